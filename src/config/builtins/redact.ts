import * as z from 'zod';
import { redact, type RedactOptions } from '../../middleware/redact/index.js';
import { BUILTIN_DETECTOR_NAMES } from '../../middleware/redact/detectors.js';
import { patternProblem } from '../../middleware/redact/redactor.js';
import { builtin } from '../builtin-middleware.js';

/** A detector of a config file's own, as `redact` and `audit` take it. */
export const customDetector = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected a name of letters, digits, ".", "_" and "-" (at most 64)')
      .describe('Shown in the mask: `[REDACTED:<name>]`'),
    pattern: z
      .string()
      .min(1)
      .superRefine((pattern, ctx) => {
        const problem = patternProblem(pattern);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      })
      .describe('A JavaScript regular expression (Unicode mode; no backreferences; must not match the empty string)'),
    ignoreCase: z.boolean().optional().describe('Match regardless of case'),
  })
  .describe('A detector of your own');

/** The config file's `redact`: masks secrets and personal data in what servers send back. */
export const redactBuiltin = builtin(
  'Masks secrets and personal data (API keys, tokens, JWTs, e-mail addresses, card numbers, private keys, your own patterns) in results, errors and server logs',
  z.strictObject({
    detectors: z
      .array(z.enum(BUILTIN_DETECTOR_NAMES))
      .optional()
      .describe(`The built-in detectors to use; default: all (${BUILTIN_DETECTOR_NAMES.join(', ')}); [] for none`),
    custom: z.array(customDetector).optional().describe('More detectors: { name, pattern, ignoreCase? }, tried after the built-in ones'),
    mask: z.string().optional().describe('What replaces a secret; `{name}` becomes the detector\'s name. Default "[REDACTED:{name}]"'),
    arguments: z
      .boolean()
      .optional()
      .describe('Also mask tools/call arguments before they reach the server (default false: the server gets the real values)'),
  }),
  (options) => redact(options as RedactOptions),
);

/**
 * @module
 * `redact`'s options (and a redactor's, which `audit` takes too), described once: these schemas
 * check config files and are where the JSON Schema, docs/middleware.md and the
 * {@link RedactOptions} type come from. The middleware imports the types alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';
import { BUILTIN_DETECTOR_NAMES } from './detectors.js';
import { patternProblem } from './redactor.js';

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

/** The options of a redactor (`createRedactor`): which detectors, and the mask. */
export const redactorOptions = z
  .strictObject({
    detectors: z
      .array(z.enum(BUILTIN_DETECTOR_NAMES))
      .optional()
      .describe(`The built-in detectors to use; default: all (${BUILTIN_DETECTOR_NAMES.join(', ')}); [] for none`),
    custom: z.array(customDetector).optional().describe('More detectors: { name, pattern, ignoreCase? }, tried after the built-in ones'),
    mask: z.string().optional().describe('What replaces a secret; `{name}` becomes the detector\'s name. Default "[REDACTED:{name}]"'),
  })
  .describe('Which detectors mask, and with what');

export const redactOptions = redactorOptions.extend({
  arguments: z
    .boolean()
    .optional()
    .describe('Also mask tools/call arguments before they reach the server (default false: a server that needs the real value, such as an e-mail address to write to, would get the mask)'),
});

/**
 * A detector of your own (see {@link customDetector}); in code, `pattern` may also be a `RegExp`
 * with no flags but `i`, `g`, `u` (its `i` flag then says what `ignoreCase` says).
 */
export interface CustomDetector extends Omit<OptionsOf<typeof customDetector>, 'pattern'> {
  readonly pattern: string | RegExp;
}
/** A redactor's options (see {@link redactorOptions}); a custom detector's pattern may be a `RegExp` in code. */
export interface RedactorOptions extends Omit<OptionsOf<typeof redactorOptions>, 'custom'> {
  readonly custom?: readonly CustomDetector[] | undefined;
}
/** `redact`'s options (see {@link redactOptions}). */
export interface RedactOptions extends Omit<OptionsOf<typeof redactOptions>, 'custom'>, Pick<RedactorOptions, 'custom'> {}

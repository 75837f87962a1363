import { redact } from '../../middleware/redact/index.js';
import { redactOptions } from '../../middleware/redact/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `redact`: masks secrets and personal data in what servers send back. */
export const redactBuiltin = builtin(
  'Masks secrets and personal data (API keys, tokens, JWTs, e-mail addresses, card numbers, private keys, your own patterns) in results, errors and server logs',
  redactOptions,
  (options) => redact(options),
);

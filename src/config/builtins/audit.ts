import { isAbsolute, resolve } from 'node:path';
import { audit } from '../../middleware/audit/index.js';
import { auditOptions } from '../../middleware/audit/options.js';
import { builtin } from '../builtin-middleware.js';

/** The config file's `audit`: an append-only JSONL record of every tool call; a relative `file` is relative to the config file. */
export const auditBuiltin = builtin(
  'An append-only JSON Lines record of every tool call (who, which server and tool, redacted arguments, duration, outcome), rotated by size and age',
  auditOptions,
  ({ file, ...options }, context) => audit({ ...options, file: isAbsolute(file) ? file : resolve(context.dir, file), logger: context.log }),
);

// One description per option: a built-in's options in a config file are the options its function
// takes in code, by name and by meaning (type). The compiler checks the names and types (this file
// does not compile when they differ); the tests check that the schema a file is validated against
// is the very one the middleware's type is inferred from, and that the docs show those names.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type * as z from 'zod';
import type { BuiltinMiddleware, OptionsSchema } from './builtin-middleware.js';
import { approveBuiltin } from './builtins/approve.js';
import { auditBuiltin } from './builtins/audit.js';
import { cacheBuiltin } from './builtins/cache.js';
import { discoverBuiltin } from './builtins/discover.js';
import { filterBuiltin } from './builtins/filter.js';
import { limitResultBuiltin } from './builtins/limit-result.js';
import { logBuiltin } from './builtins/log.js';
import { pinBuiltin } from './builtins/pin.js';
import { rateLimitBuiltin } from './builtins/rate-limit.js';
import { redactBuiltin } from './builtins/redact.js';
import { renameBuiltin } from './builtins/rename.js';
import { requireScopesBuiltin } from './builtins/require-scopes.js';
import { retryBuiltin } from './builtins/retry.js';
import { timeoutBuiltin } from './builtins/timeout.js';
import { transformBuiltin } from './builtins/transform.js';
import { validateBuiltin } from './builtins/validate.js';
import type { breakerOptions } from './config-schema.js';
import type { BuiltinOptions } from './define-config.js';
import { BUILTIN_MIDDLEWARE } from './middleware-registry.js';
import type { AggregateOptions } from '../upstream/aggregate/aggregate-options.js';
import type { approve } from '../middleware/approve/index.js';
import { approveOptions } from '../middleware/approve/options.js';
import type { audit } from '../middleware/audit/index.js';
import { auditOptions, type AuditCodeOptions } from '../middleware/audit/options.js';
import type { cache } from '../middleware/cache/index.js';
import { cacheOptions, type CacheCodeOptions } from '../middleware/cache/options.js';
import type { discover } from '../middleware/discover/index.js';
import { discoverOptions } from '../middleware/discover/options.js';
import type { filter } from '../middleware/filter/index.js';
import { filterOptions } from '../middleware/filter/options.js';
import type { limitResult } from '../middleware/limit-result/index.js';
import { limitResultOptions } from '../middleware/limit-result/options.js';
import type { log } from '../middleware/log/index.js';
import { logOptions, type LogCodeOptions } from '../middleware/log/options.js';
import type { pin } from '../middleware/pin/index.js';
import { pinOptions, type PinCodeOptions } from '../middleware/pin/options.js';
import type { rateLimit } from '../middleware/rate-limit/index.js';
import { rateLimitOptions, type RateLimitCodeOptions } from '../middleware/rate-limit/options.js';
import type { redact } from '../middleware/redact/index.js';
import { redactOptions } from '../middleware/redact/options.js';
import type { rename } from '../middleware/rename/index.js';
import { renameOptions } from '../middleware/rename/options.js';
import type { requireScopes } from '../middleware/require-scopes/index.js';
import { requireScopesOptions } from '../middleware/require-scopes/options.js';
import type { retry } from '../middleware/retry/index.js';
import { retryOptions, type RetryCodeOptions } from '../middleware/retry/options.js';
import type { timeout } from '../middleware/timeout/index.js';
import { timeoutOptions } from '../middleware/timeout/options.js';
import type { transform } from '../middleware/transform/index.js';
import { transformOptions } from '../middleware/transform/options.js';
import type { validate } from '../middleware/validate/index.js';
import { validateOptions } from '../middleware/validate/options.js';

/** What the function of a built-in takes (its optional parameter made required). */
type Param<Factory> = Factory extends (options: infer Options) => unknown ? NonNullable<Options> : never;

/**
 * `true` when the file's options and the code's agree: every option a file writes, code takes under
 * the same name with a type that accepts the file's value (the same meaning), and every option code
 * takes that a file cannot write is declared code-only (`<Name>CodeOptions`). Otherwise the names
 * that differ, which the compiler prints.
 */
type Agree<File, Code, CodeOnly> = [Exclude<keyof File, keyof Code>, Exclude<keyof Code, keyof File | keyof CodeOnly>] extends [never, never]
  ? [TypesDiffer<File, Code>] extends [never]
    ? true
    : { typesDiffer: TypesDiffer<File, Code> }
  : { onlyInFile: Exclude<keyof File, keyof Code>; onlyInCode: Exclude<keyof Code, keyof File | keyof CodeOnly> };

/** The options whose value in a file the code would not take. */
type TypesDiffer<File, Code> = { [Key in keyof File & keyof Code]-?: [File[Key]] extends [Code[Key]] ? never : Key }[keyof File & keyof Code];

/** `true` when two types accept the same values. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : { differ: [A, B] }) : { differ: [A, B] };

/** A built-in, checked: what its schema accepts (`z.output`, what the registry hands over) is what its function takes. */
type Checked<Builtin, Factory, CodeOnly = object> =
  Builtin extends BuiltinMiddleware<infer Schema> ? Agree<z.output<Schema>, Param<Factory>, CodeOnly> : 'not a built-in';

/** The compiler fails here when a built-in's config options and its code options differ. */
const AGREE: { readonly [Name in keyof BuiltinOptions]: true } = {
  filter: true satisfies Checked<typeof filterBuiltin, typeof filter>,
  rename: true satisfies Checked<typeof renameBuiltin, typeof rename>,
  log: true satisfies Checked<typeof logBuiltin, typeof log, LogCodeOptions>,
  transform: true satisfies Checked<typeof transformBuiltin, typeof transform>,
  validate: true satisfies Checked<typeof validateBuiltin, typeof validate>,
  rateLimit: true satisfies Checked<typeof rateLimitBuiltin, typeof rateLimit, RateLimitCodeOptions>,
  cache: true satisfies Checked<typeof cacheBuiltin, typeof cache, CacheCodeOptions>,
  timeout: true satisfies Checked<typeof timeoutBuiltin, typeof timeout>,
  retry: true satisfies Checked<typeof retryBuiltin, typeof retry, RetryCodeOptions>,
  redact: true satisfies Checked<typeof redactBuiltin, typeof redact>,
  limitResult: true satisfies Checked<typeof limitResultBuiltin, typeof limitResult>,
  audit: true satisfies Checked<typeof auditBuiltin, typeof audit, AuditCodeOptions>,
  approve: true satisfies Checked<typeof approveBuiltin, typeof approve>,
  discover: true satisfies Checked<typeof discoverBuiltin, typeof discover>,
  pin: true satisfies Checked<typeof pinBuiltin, typeof pin, PinCodeOptions>,
  requireScopes: true satisfies Checked<typeof requireScopesBuiltin, typeof requireScopes>,
};

/** What a TypeScript config writes (`defineConfig`) is what its schema accepts, for every built-in. */
type DefineConfigAgrees = { [Name in keyof BuiltinOptions]: Same<Readonly<BuiltinOptions[Name]>, Readonly<z.input<(typeof BUILTINS)[Name]['schema']>>> };
const DEFINE_CONFIG: { [Name in keyof BuiltinOptions]: true } = {} as DefineConfigAgrees extends { [Name in keyof BuiltinOptions]: true } ? { [Name in keyof BuiltinOptions]: true } : never;

/** The breaker's keys in a file are its keys in code (`AggregateOptions.breaker`), besides the clock and the older spellings. */
type BreakerCode = Exclude<NonNullable<AggregateOptions['breaker']>, false>;
const BREAKER: true = true satisfies Agree<Omit<Exclude<z.output<typeof breakerOptions>, false>, 'failures' | 'open' | 'maxOpen'>, BreakerCode, Pick<BreakerCode, 'now'>>;

/** Each built-in, with the schema its middleware's type is inferred from (in its folder's options.ts). */
const BUILTINS = {
  filter: { builtin: filterBuiltin, schema: filterOptions },
  rename: { builtin: renameBuiltin, schema: renameOptions },
  log: { builtin: logBuiltin, schema: logOptions },
  transform: { builtin: transformBuiltin, schema: transformOptions },
  validate: { builtin: validateBuiltin, schema: validateOptions },
  rateLimit: { builtin: rateLimitBuiltin, schema: rateLimitOptions },
  cache: { builtin: cacheBuiltin, schema: cacheOptions },
  timeout: { builtin: timeoutBuiltin, schema: timeoutOptions },
  retry: { builtin: retryBuiltin, schema: retryOptions },
  redact: { builtin: redactBuiltin, schema: redactOptions },
  limitResult: { builtin: limitResultBuiltin, schema: limitResultOptions },
  audit: { builtin: auditBuiltin, schema: auditOptions },
  approve: { builtin: approveBuiltin, schema: approveOptions },
  discover: { builtin: discoverBuiltin, schema: discoverOptions },
  pin: { builtin: pinBuiltin, schema: pinOptions },
  requireScopes: { builtin: requireScopesBuiltin, schema: requireScopesOptions },
} as const satisfies { readonly [Name in keyof BuiltinOptions]: { readonly builtin: BuiltinMiddleware; readonly schema: OptionsSchema } };

describe('one description per option', () => {
  test("every built-in a config file names is checked against the schema its middleware's type is inferred from", () => {
    assert.deepEqual(Object.keys(BUILTIN_MIDDLEWARE).sort(), Object.keys(BUILTINS).sort());
    assert.deepEqual(Object.keys(AGREE).sort(), Object.keys(BUILTINS).sort());
    assert.ok(DEFINE_CONFIG && BREAKER);
    for (const [name, { builtin, schema }] of Object.entries(BUILTINS)) {
      assert.equal(BUILTIN_MIDDLEWARE[name], builtin, name);
      assert.equal(builtin.options, schema, `${name}: the registry validates files with the schema in src/middleware/*/options.ts`);
    }
  });

  test('docs/middleware.md and the JSON Schema name the options as the schema does', () => {
    const page = readFileSync(new URL('../../docs/middleware.md', import.meta.url), 'utf8');
    for (const [name, { schema }] of Object.entries(BUILTINS)) {
      const properties = Object.keys((schema.toJSONSchema({ io: 'input', unrepresentable: 'any' }) as { properties?: object }).properties ?? {});
      const section = page.slice(page.indexOf(`## \`${name}\``)).split('\n## ')[0] ?? '';
      for (const key of properties) assert.ok(section.includes(`| \`${key}\``), `${name}.${key} in docs/middleware.md`);
    }
  });
});

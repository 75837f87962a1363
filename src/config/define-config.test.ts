// A config written in TypeScript: `export default defineConfig({...})`, where middleware are
// functions and a server may be an object (`local({...})`, a chain). A built-in's options in
// ConfigInput are the middleware's own type (builtin-options.test.ts); the servers' keys are
// written by hand (it must cost nothing to import): these tests hold them to the schema.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type * as z from 'zod';
import { configErrorOf, tempDir, write } from './_test/config-files.js';
import { IGNORED_ROOT_KEYS, IGNORED_SERVER_KEYS } from './client-keys.js';
import { CONFIG_SCHEMA, SERVER_SCHEMA } from './config-schema.js';
import { defineConfig, type BuiltinMiddlewareName, type ConfigInput, type ServerInput, type UpstreamOAuthInput } from './define-config.js';
import type { InProcessServerConfig, StdioServerConfig } from './gateway-config.js';
import { loadConfig } from './load-config.js';
import { BUILTIN_MIDDLEWARE } from './middleware-registry.js';

const dir = tempDir();
const src = join(import.meta.dirname, '..');

// Whatever ConfigInput allows, the schema takes (checked by the compiler; ConfigInput's lists are readonly).
type DeepReadonly<T> = T extends (...args: never[]) => unknown ? T : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
const serverInputFits: ServerInput extends DeepReadonly<z.input<typeof SERVER_SCHEMA>> ? true : false = true;
const configInputFits: ConfigInput extends DeepReadonly<z.input<typeof CONFIG_SCHEMA>> ? true : false = true;

/** Every key of a type, listed: the compiler fails when one is missing or one too many. */
const SERVER_INPUT_KEYS: Record<keyof ServerInput, true> = {
  type: true, command: true, args: true, env: true, envFile: true, env_vars: true, cwd: true, url: true, httpUrl: true, serverUrl: true,
  headers: true, http_headers: true, env_http_headers: true, bearer_token_env_var: true, upstream: true, disabled: true, enabled: true,
  timeoutMs: true, timeout: true, tool_timeout_sec: true, startupTimeoutMs: true, startupTimeout: true, startup_timeout_sec: true, startup_timeout_ms: true, tools: true,
  includeTools: true, excludeTools: true, enabled_tools: true, disabled_tools: true, prefix: true, isolation: true, middleware: true,
  commands: true, oauth: true,
};
const OAUTH_INPUT_KEYS: Record<keyof UpstreamOAuthInput, true> = {
  grant: true, client: true, clientMetadataUrl: true, clientName: true, scopes: true, redirectUri: true, authorizationServer: true, resource: true,
  tokenExchange: true, sharedLogin: true, tokenStore: true, openBrowser: true, clientId: true, clientSecret: true, callbackPort: true, enabled: true,
  authorizationUrl: true, tokenUrl: true, registrationUrl: true, audiences: true, tokenParamName: true, authServerMetadataUrl: true,
};
const CONFIG_INPUT_KEYS: Record<keyof ConfigInput, true> = {
  $schema: true, mcpServers: true, servers: true, mcp_servers: true, http: true, serverInfo: true, timeouts: true, drainMs: true, breaker: true, naming: true, middleware: true,
};
const BUILTIN_NAMES: Record<BuiltinMiddlewareName, true> = {
  filter: true, rename: true, log: true, transform: true, validate: true, rateLimit: true, cache: true, timeout: true, retry: true, redact: true, limitResult: true, audit: true, approve: true, discover: true, pin: true, requireScopes: true,
};

describe('defineConfig', () => {
  test('returns its argument; ConfigInput has exactly the keys the schema reads (besides other programs\' ignored ones)', () => {
    assert.ok(serverInputFits && configInputFits);
    const config: ConfigInput = { mcpServers: { a: { command: 'a' } } };
    assert.equal(defineConfig(config), config);
    const ours = (shape: object, ignored: object): string[] => Object.keys(shape).filter((key) => !Object.hasOwn(ignored, key)).sort();
    assert.deepEqual(Object.keys(SERVER_INPUT_KEYS).sort(), ours(SERVER_SCHEMA.shape, IGNORED_SERVER_KEYS));
    assert.deepEqual(Object.keys(CONFIG_INPUT_KEYS).sort(), ours(CONFIG_SCHEMA.shape, IGNORED_ROOT_KEYS));
    assert.deepEqual(Object.keys(OAUTH_INPUT_KEYS).sort(), Object.keys(SERVER_SCHEMA.shape.oauth.unwrap().shape).sort());
    assert.deepEqual(Object.keys(BUILTIN_NAMES).sort(), Object.keys(BUILTIN_MIDDLEWARE).sort());
  });

  test('a TypeScript config: a function middleware (global and per server), a local() server alone and with settings, variables', async () => {
    const path = write(
      dir,
      'ts-project/mcp-chain.config.ts',
      [
        `import { defineConfig } from '${src}/config/define-config.js';`,
        `import { local } from '${src}/upstream/local.js';`,
        `import type { Middleware } from '${src}/chain/middleware.js';`,
        'export const stamp: Middleware = async (_ctx, next) => next();',
        "const notes = local({ name: 'notes', version: '1.0.0', tools: [] });",
        'export default defineConfig({',
        '  mcpServers: {',
        '    notes,',
        "    wrapped: { upstream: notes, prefix: 'w', middleware: [stamp] },",
        "    gh: { command: 'gh', env: { TOKEN: '${GH_TOKEN}' } },",
        '  },',
        "  middleware: ['log', stamp, { filter: { tools: { deny: ['drop_*'] } } }],",
        '});',
      ].join('\n'),
    );
    const config = await loadConfig(path, { env: { GH_TOKEN: 'gh-secret' } });
    const [notes, wrapped, gh] = config.servers as [InProcessServerConfig, InProcessServerConfig, StdioServerConfig];
    assert.deepEqual([notes.transport, notes.path, typeof notes.upstream.connect], ['upstream', 'mcpServers.notes', 'function']);
    assert.equal(wrapped.upstream, notes.upstream, 'the object itself, not a copy');
    assert.equal(wrapped.prefix, 'w');
    assert.deepEqual(gh.env, { TOKEN: 'gh-secret' });
    const [log, stamp, filter] = config.middleware;
    assert.deepEqual(log, { kind: 'builtin', name: 'log', options: {}, path: 'middleware[0]' });
    assert.equal(stamp?.kind, 'function');
    assert.deepEqual(filter, { kind: 'builtin', name: 'filter', options: { tools: { deny: ['drop_*'] } }, path: 'middleware[2]' });
    assert.equal(wrapped.middleware[0]?.kind === 'function' && wrapped.middleware[0].middleware, stamp?.kind === 'function' && stamp.middleware);
  });

  test('a JavaScript config exporting `config`; its problems have paths (no line: a module has none)', async () => {
    const good = write(dir, 'js-project/good.mjs', "export const config = { servers: { a: { command: 'a' } } };\n");
    assert.deepEqual((await loadConfig(good)).servers.map((s) => s.name), ['a']);
    const bad = write(dir, 'js-project/bad.mjs', "export default { mcpServers: { a: { command: 1, comand: 'a', upstream: { connect: 'no' } } } };\n");
    assert.deepEqual((await configErrorOf(loadConfig(bad))).message.split('\n'), [
      `${bad}: mcpServers.a.command: expected a string, found a whole number`,
      `${bad}: mcpServers.a.upstream: expected an Upstream object (\`local({...})\`, a chain, \`stdio({...})\`): only in a TypeScript or JavaScript config`,
      `${bad}: mcpServers.a.comand: unknown key; did you mean "command"?`,
    ]);
    const none = write(dir, 'js-project/none.mjs', 'export const other = 1;\n');
    assert.match((await configErrorOf(loadConfig(none))).message, /none\.mjs: expected a default export \(or an export named "config"\)/);
  });

  test('a TypeScript config that does not compile: the place of the first error; one that throws: why', async () => {
    const path = write(dir, 'broken/mcp-chain.config.ts', 'export default {\n  mcpServers: { a: { command: "a" }\n};\n');
    const error = await configErrorOf(loadConfig(path));
    assert.equal(error.message, `${path}:3:2: cannot compile: Expected "}" but found ";"`);
    const throwing = write(dir, 'throwing/mcp-chain.config.ts', "throw new Error('no config today');\n");
    assert.equal((await configErrorOf(loadConfig(throwing))).message, `${throwing}: cannot load: no config today`);
  });
});

// loadConfig: the config files users already have, in every format, read unchanged into one
// GatewayConfig; variables; and problems a person can act on.
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { captureLogger, configErrorOf, tempDir, write } from './_test/config-files.js';
import type { RemoteServerConfig, StdioServerConfig } from './gateway-config.js';
import { loadConfig } from './load-config.js';

const dir = tempDir();
let files = 0;
/** A file of its own for each test (in `folder` of a directory of its own). */
function file(ext: string, text: string | object, folder = ''): string {
  return write(dir, join(`case-${++files}`, folder, `config.${ext}`), text);
}

describe('formats', () => {
  test('JSON with comments and trailing commas (.json and .jsonc)', async () => {
    for (const ext of ['json', 'jsonc']) {
      const path = file(ext, '{\n  // the one server\n  "mcpServers": {\n    "echo": { "command": "echo", "args": ["hi",], },\n  },\n}\n');
      const config = await loadConfig(path);
      assert.equal(config.file, path);
      assert.deepEqual(config.servers, [
        { name: 'echo', path: 'mcpServers.echo', disabled: false, isolation: 'session', middleware: [], transport: 'stdio', command: 'echo', args: ['hi'], env: {} },
      ]);
      assert.deepEqual(config.front, { kind: 'stdio' });
      assert.deepEqual(config.naming, { separator: '__', maxNameLength: 64 });
      assert.deepEqual(config.middleware, []);
    }
  });

  test('YAML (.yaml and .yml)', async () => {
    for (const ext of ['yaml', 'yml']) {
      const config = await loadConfig(file(ext, 'mcpServers:\n  echo:\n    command: echo\n    args: [hi]\n  web:\n    url: https://example.com/mcp\n'));
      assert.deepEqual(
        config.servers.map((s) => [s.name, s.transport]),
        [
          ['echo', 'stdio'],
          ['web', 'http'],
        ],
      );
    }
  });

  test("TOML in Codex's shape: [mcp_servers.<name>], its other settings ignored", async () => {
    const log = captureLogger();
    const config = await loadConfig(
      file(
        'toml',
        [
          'model = "o3"',
          'approval_policy = "on-request"',
          '[mcp_servers.github]',
          'command = "npx"',
          'args = ["-y", "@modelcontextprotocol/server-github"]',
          '[mcp_servers.github.env]',
          'LOG = "debug"',
        ].join('\n'),
      ),
      { log },
    );
    const [github] = config.servers as [StdioServerConfig];
    assert.equal(github.path, 'mcp_servers.github');
    assert.deepEqual(github.args, ['-y', '@modelcontextprotocol/server-github']);
    assert.deepEqual(github.env, { LOG: 'debug' });
    assert.ok(log.lines.some((line) => line.level === 'debug' && /model: ignored \(a setting of Codex/.test(line.message)));
  });

  test('a file of another kind is refused, naming the kinds it may be', async () => {
    const error = await configErrorOf(loadConfig(file('ini', '[x]')));
    assert.match(error.message, /config\.ini: unknown format: expected a file ending in \.json, \.jsonc, \.yaml, \.yml, \.toml, \.ts, \.mts, \.js, \.mjs$/);
  });
});

describe('the shapes of the clients', () => {
  test('Claude Desktop: mcpServers with command, args, env; the app\'s own keys ignored with a debug line', async () => {
    const log = captureLogger();
    const config = await loadConfig(
      file('json', {
        globalShortcut: 'Ctrl+Space',
        preferences: { menuBarEnabled: true },
        mcpServers: {
          filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/tmp/memory.json' } },
        },
      }),
      { log },
    );
    assert.deepEqual(
      config.servers.map((s) => s.name),
      ['filesystem', 'memory'],
    );
    assert.deepEqual((config.servers[1] as StdioServerConfig).env, { MEMORY_FILE_PATH: '/tmp/memory.json' });
    const debug = log.lines.filter((line) => line.level === 'debug').map((line) => line.message);
    assert.ok(debug.some((line) => line.endsWith('globalShortcut: ignored (a setting of Claude Desktop that mcp-chain does not use)')));
    assert.ok(debug.some((line) => line.endsWith('preferences: ignored (a setting of Claude Desktop that mcp-chain does not use)')));
  });

  test('VS Code: servers with type stdio/http/sse, inputs ignored, envFile and ${workspaceFolder} relative to the workspace', async () => {
    const path = file(
      'json',
      {
        inputs: [{ type: 'promptString', id: 'api-key', description: 'API key', password: true }],
        servers: {
          local: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/server.js'], envFile: '${workspaceFolder}/.env', sandboxEnabled: false },
          remote: { type: 'http', url: 'https://api.example.com/mcp', headers: { 'X-Team': 'core' } },
          legacy: { type: 'sse', url: 'https://old.example.com/sse' },
        },
      },
      '.vscode',
    );
    const workspace = join(path, '..', '..');
    write(workspace, '.env', 'API_URL=https://x.example\n');
    const config = await loadConfig(path);
    const [local, remote, legacy] = config.servers as [StdioServerConfig, RemoteServerConfig, RemoteServerConfig];
    assert.deepEqual(local.args, [`${workspace}/server.js`]);
    assert.deepEqual(local.env, { API_URL: 'https://x.example' });
    assert.equal(local.path, 'servers.local');
    assert.deepEqual([remote.transport, remote.url, remote.headers], ['http', 'https://api.example.com/mcp', { 'X-Team': 'core' }]);
    assert.deepEqual([legacy.transport, legacy.url], ['sse', 'https://old.example.com/sse']);
  });

  test('Cursor: url with headers (Streamable HTTP without a type), ${env:VAR}', async () => {
    const config = await loadConfig(
      file('json', { mcpServers: { linear: { url: 'https://mcp.linear.app/mcp', headers: { Authorization: 'Bearer ${env:LINEAR_KEY}' } } } }, '.cursor'),
      { env: { LINEAR_KEY: 'lin_123' } },
    );
    const [linear] = config.servers as [RemoteServerConfig];
    assert.equal(linear.transport, 'http');
    assert.deepEqual(linear.headers, { Authorization: 'Bearer lin_123' });
  });

  test("a server's deadlines are named as in code (timeoutMs, startupTimeoutMs), before the clients' keys and the older spelling", async () => {
    const path = file('json', {
      mcpServers: {
        ours: { command: 'a', timeoutMs: 7000, startupTimeoutMs: 9000 },
        both: { command: 'b', timeoutMs: 7000, timeout: 5000, startupTimeoutMs: 9000, startupTimeout: 3000 },
        older: { command: 'c', startupTimeout: 3000 },
      },
    });
    const [ours, both, older] = (await loadConfig(path)).servers as [StdioServerConfig, StdioServerConfig, StdioServerConfig];
    assert.deepEqual([ours.timeoutMs, ours.startupTimeoutMs], [7000, 9000]);
    assert.deepEqual([both.timeoutMs, both.startupTimeoutMs], [7000, 9000]);
    assert.equal(older.startupTimeoutMs, 3000);
  });

  test('Gemini CLI: httpUrl, cwd, timeout, includeTools/excludeTools; trust ignored', async () => {
    const path = file('json', {
      mcpServers: {
        remote: { httpUrl: 'https://api.example.com/mcp', timeout: 5000, includeTools: ['search', 'fetch'], excludeTools: ['fetch'], trust: true },
        py: { command: 'python', args: ['-m', 'server'], cwd: './tools' },
      },
    });
    const config = await loadConfig(path);
    const [remote, py] = config.servers as [RemoteServerConfig, StdioServerConfig];
    assert.deepEqual([remote.transport, remote.url, remote.timeoutMs], ['http', 'https://api.example.com/mcp', 5000]);
    // Both lists are kept: the filter lets deny win over allow.
    assert.deepEqual(remote.tools, { allow: ['search', 'fetch'], deny: ['fetch'] });
    assert.equal(py.cwd, join(path, '..', 'tools'));
  });

  test('Windsurf: serverUrl, disabled', async () => {
    const config = await loadConfig(file('json', { mcpServers: { w: { serverUrl: 'https://w.example/mcp' }, off: { command: 'x', disabled: true } } }));
    assert.deepEqual(
      config.servers.map((s) => [s.name, s.transport, s.disabled]),
      [
        ['w', 'http', false],
        ['off', 'stdio', true],
      ],
    );
  });

  test('Codex: env_vars, bearer_token_env_var, http_headers, env_http_headers, timeouts in seconds, enabled_tools/disabled_tools, enabled', async () => {
    const config = await loadConfig(
      file(
        'toml',
        [
          '[mcp_servers.local]',
          'command = "server"',
          'env_vars = ["PASSED", "NOT_SET"]',
          'env = { OWN = "1" }',
          'startup_timeout_sec = 20',
          'tool_timeout_sec = 1.5',
          'enabled_tools = ["read_*"]',
          'disabled_tools = ["read_secret"]',
          '[mcp_servers.remote]',
          'url = "https://api.example.com/mcp"',
          'bearer_token_env_var = "API_TOKEN"',
          'http_headers = { "X-Team" = "core" }',
          'env_http_headers = { "X-Key" = "API_KEY" }',
          '[mcp_servers.off]',
          'command = "x"',
          'enabled = false',
        ].join('\n'),
      ),
      { env: { PASSED: 'p', API_TOKEN: 'tok', API_KEY: 'key' } },
    );
    const [local, remote, off] = config.servers as [StdioServerConfig, RemoteServerConfig, StdioServerConfig];
    assert.deepEqual(local.env, { PASSED: 'p', OWN: '1' });
    assert.deepEqual([local.startupTimeoutMs, local.timeoutMs], [20_000, 1500]);
    assert.deepEqual(local.tools, { allow: ['read_*'], deny: ['read_secret'] });
    assert.deepEqual(remote.headers, { 'X-Team': 'core', 'X-Key': 'key', Authorization: 'Bearer tok' });
    assert.equal(off.disabled, true);
  });

  test("mcp-chain's own keys: http front, serverInfo, timeouts, naming, middleware (global and per server), prefix, isolation, tools", async () => {
    const path = file('yaml', [
      'http:',
      '  host: 0.0.0.0',
      '  port: 3000',
      '  tokens: ["${GATEWAY_TOKEN}", { id: ci, token: "${CI_TOKEN}" }, "literal-token"]',
      '  allowedOrigins: [https://app.example.com]',
      '  sessionTtl: 60000',
      '  sse: true',
      'serverInfo: { name: gateway, version: 1.2.3 }',
      'timeouts: { request: 30000, max: 300000, startup: 20000, list: 5000 }',
      'naming: { separator: "_", maxNameLength: 60, pageSize: 100 }',
      'middleware:',
      '  - log',
      '  - filter: { tools: { deny: ["delete_*"] } }',
      '  - { module: ./audit.mjs, export: audit, options: { level: 2 } }',
      'mcpServers:',
      '  github:',
      '    command: gh-mcp',
      '    prefix: gh',
      '    isolation: shared',
      '    startupTimeout: 15000',
      '    tools: { allow: [search_*] }',
      '    middleware: [{ rename: { tools: { search_issues: find } } }]',
      '  plain: { command: p, prefix: false }',
    ].join('\n'));
    write(join(path, '..'), 'audit.mjs', 'export const audit = () => (ctx, next) => next();\n');
    const config = await loadConfig(path, { env: { GATEWAY_TOKEN: 'g-secret', CI_TOKEN: 'c-secret' } });
    assert.deepEqual(config.front, {
      kind: 'http',
      host: '0.0.0.0',
      port: 3000,
      path: '/mcp',
      tokens: [
        { id: 'GATEWAY_TOKEN', token: 'g-secret' },
        { id: 'ci', token: 'c-secret' },
        { id: 'token-3', token: 'literal-token' },
      ],
      allowedOrigins: ['https://app.example.com'],
      sessionTtlMs: 60_000,
      allowUnauthenticated: false,
      sse: true,
    });
    assert.deepEqual(config.serverInfo, { name: 'gateway', version: '1.2.3' });
    assert.deepEqual(config.timeouts, { requestMs: 30_000, maxMs: 300_000, startupMs: 20_000, listMs: 5000 });
    assert.deepEqual(config.naming, { separator: '_', maxNameLength: 60, pageSize: 100 });
    assert.deepEqual(config.middleware, [
      { kind: 'builtin', name: 'log', options: {}, path: 'middleware[0]' },
      { kind: 'builtin', name: 'filter', options: { tools: { deny: ['delete_*'] } }, path: 'middleware[1]' },
      { kind: 'module', module: join(path, '..', 'audit.mjs'), export: 'audit', options: { level: 2 }, path: 'middleware[2]' },
    ]);
    const [github, plain] = config.servers as [StdioServerConfig, StdioServerConfig];
    assert.deepEqual(
      { prefix: github.prefix, isolation: github.isolation, startupTimeoutMs: github.startupTimeoutMs, tools: github.tools, middleware: github.middleware },
      {
        prefix: 'gh',
        isolation: 'shared',
        startupTimeoutMs: 15_000,
        tools: { allow: ['search_*'] },
        middleware: [{ kind: 'builtin', name: 'rename', options: { tools: { search_issues: 'find' } }, path: 'mcpServers.github.middleware[0]' }],
      },
    );
    assert.equal(plain.prefix, false);
  });

  test('servers of several sections keep file order; keys that do not apply to a server\'s kind are ignored with a warning', async () => {
    const log = captureLogger();
    const config = await loadConfig(file('json', { servers: { b: { command: 'b', headers: { X: 'secret-header' } } }, mcpServers: { a: { url: 'https://a.example/mcp', env: { K: 'secret-env' } } } }), { log });
    assert.deepEqual(
      config.servers.map((s) => s.name),
      ['b', 'a'],
    );
    const warnings = log.lines.filter((line) => line.level === 'warn').map((line) => line.message);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0] ?? '', /servers\.b\.headers: ignored: it applies to a remote server \("url"\)$/);
    assert.match(warnings[1] ?? '', /mcpServers\.a\.env: ignored: it applies to a server started with "command"$/);
    assert.doesNotMatch(JSON.stringify(log.lines), /secret-/);
  });
});

describe('variables', () => {
  const shape = (server: object): object => ({ mcpServers: { github: server } });

  test('${VAR}, ${env:VAR} and ${VAR:-default} in command, args, env, cwd, url and headers', async () => {
    const config = await loadConfig(
      file('json', {
        mcpServers: {
          local: { command: '${BIN}', args: ['--token=${env:TOKEN}', '${MODE:-fast}', '${EMPTY:-fallback}'], env: { T: '${TOKEN}' }, cwd: '${HOME_DIR}' },
          remote: { url: 'https://${HOST:-api.example.com}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        },
      }),
      { env: { BIN: '/usr/bin/server', TOKEN: 't0k', EMPTY: '', HOME_DIR: '/home/me' } },
    );
    const [local, remote] = config.servers as [StdioServerConfig, RemoteServerConfig];
    assert.equal(local.command, '/usr/bin/server');
    assert.deepEqual(local.args, ['--token=t0k', 'fast', 'fallback']);
    assert.deepEqual(local.env, { T: 't0k' });
    assert.equal(local.cwd, '/home/me');
    assert.equal(remote.url, 'https://api.example.com/mcp');
    assert.deepEqual(remote.headers, { Authorization: 'Bearer t0k' });
  });

  test('an unset variable without a default is an error naming it and where it is used, with its line', async () => {
    const path = file('json', '{\n  "mcpServers": {\n    "github": {\n      "command": "gh",\n      "env": { "GITHUB_TOKEN": "${GITHUB_PAT}" }\n    }\n  }\n}\n');
    const error = await configErrorOf(loadConfig(path, { env: {} }));
    assert.equal(error.message, `${path}:5:16: mcpServers.github.env.GITHUB_TOKEN: uses \${GITHUB_PAT}, which is not set`);
    assert.deepEqual(error.problems, [{ file: path, line: 5, column: 16, path: 'mcpServers.github.env.GITHUB_TOKEN', message: 'uses ${GITHUB_PAT}, which is not set' }]);
  });

  test('every unset variable is reported, also in the HTTP front\'s tokens and in Codex\'s *_env_var keys', async () => {
    const error = await configErrorOf(
      loadConfig(
        file('toml', ['[http]', 'tokens = ["${GATEWAY_TOKEN}"]', '[mcp_servers.r]', 'url = "https://${HOST}/mcp"', 'bearer_token_env_var = "API_TOKEN"'].join('\n')),
        { env: {} },
      ),
    );
    assert.deepEqual(
      error.problems.map((p) => `${p.path}: ${p.message}`),
      ['mcp_servers.r.url: uses ${HOST}, which is not set', 'mcp_servers.r.bearer_token_env_var: names API_TOKEN, which is not set', 'http.tokens[0]: uses ${GATEWAY_TOKEN}, which is not set'],
    );
  });

  test('a disabled server may use variables that are not set (it is not started)', async () => {
    const config = await loadConfig(file('json', shape({ command: 'gh', env: { T: '${NOT_SET}' }, disabled: true })), { env: {} });
    assert.equal(config.servers[0]?.disabled, true);
  });

  test('a name that is a member of every object (${constructor}, ${__proto__}, ${toString}) is not set unless the environment sets it', async () => {
    for (const env of [{}, undefined]) {
      for (const name of ['constructor', '__proto__', 'toString']) {
        const error = await configErrorOf(loadConfig(file('json', shape({ command: 'gh', env: { T: `\${${name}}` } })), env === undefined ? {} : { env }));
        assert.deepEqual(error.problems.map((p) => p.message), [`uses \${${name}}, which is not set`]);
        const config = await loadConfig(file('json', shape({ command: 'gh', env: { T: `\${${name}:-fallback}` } })), env === undefined ? {} : { env });
        assert.deepEqual((config.servers[0] as StdioServerConfig).env, { T: 'fallback' });
      }
    }
  });

  test("VS Code's ${input:...} cannot be prompted for: an error that says what to do", async () => {
    const error = await configErrorOf(loadConfig(file('json', { servers: { s: { command: 'x', env: { KEY: '${input:api-key}' } } } }), { env: {} }));
    assert.match(error.message, /servers\.s\.env\.KEY: uses \$\{input:api-key\}, a VS Code input, which mcp-chain cannot prompt for: use \$\{env:NAME\} and set NAME instead$/);
  });

  test('envFile: read as dotenv relative to the config file; the file\'s env wins', async () => {
    const path = file('json', shape({ command: 'gh', envFile: 'secrets/.env', env: { B: 'from-config' } }));
    write(join(path, '..'), 'secrets/.env', '# comment\nA=from-file\nB=overridden\nexport C="quoted value"\n');
    const config = await loadConfig(path);
    assert.deepEqual((config.servers[0] as StdioServerConfig).env, { A: 'from-file', B: 'from-config', C: 'quoted value' });
  });

  test('an envFile that cannot be read is an error with its path and the reason', async () => {
    const path = file('json', shape({ command: 'gh', envFile: 'missing.env' }));
    const error = await configErrorOf(loadConfig(path));
    assert.match(error.message, new RegExp(`mcpServers\\.github\\.envFile: cannot read ${join(path, '..', 'missing.env').replace(/[.]/g, '\\.')}: no such file or directory \\(ENOENT\\)$`));
  });
});

describe('problems', () => {
  test('an unknown key: its line and column, and the key it is probably a misspelling of', async () => {
    const path = file('json', '{\n  "mcpServers": {\n    "github": { "comand": "gh" }\n  }\n}\n');
    const error = await configErrorOf(loadConfig(path));
    assert.equal(error.message, `${path}:3:17: mcpServers.github.comand: unknown key; did you mean "command"?`);
  });

  test('unknown keys at the top and in our own sections, with or without a suggestion', async () => {
    const path = file('yaml', 'mcpServer:\n  a: { command: a }\nhttp:\n  prot: 80\nnaming:\n  colour: blue\n');
    const error = await configErrorOf(loadConfig(path));
    assert.deepEqual(
      error.problems.map((p) => `${p.line}:${p.column}: ${p.path}: ${p.message}`),
      [
        '1:1: mcpServer: unknown key; did you mean "mcpServers"?',
        '4:3: http.prot: unknown key; did you mean "port"?',
        '6:3: naming.colour: unknown key: expected one of separator, maxNameLength, pageSize',
      ],
    );
  });

  test('a value of the wrong type: what was expected and what was found', async () => {
    const path = file('json', '{\n  "mcpServers": {\n    "a": { "command": "a", "args": "--verbose", "timeout": "5s", "disabled": "yes" },\n    "b": { "url": "https://b.example/mcp", "type": "websocket" }\n  }\n}\n');
    const error = await configErrorOf(loadConfig(path));
    assert.deepEqual(
      error.problems.map((p) => `${p.line}:${p.column}: ${p.path}: ${p.message}`),
      [
        '3:28: mcpServers.a.args: expected a list, found a string',
        '3:49: mcpServers.a.timeout: expected a number, found a string',
        '3:66: mcpServers.a.disabled: expected true or false, found a string',
        '4:44: mcpServers.b.type: expected one of "stdio", "http", "streamable-http", "streamableHttp", "sse", found "websocket"',
      ],
    );
  });

  test('numbers out of range, a prefix that cannot be part of a name, a top level that is no object', async () => {
    const bad = await configErrorOf(loadConfig(file('json', { http: { port: 70000 }, mcpServers: { a: { command: 'a', prefix: 'my.prefix', timeout: 0 } } })));
    assert.deepEqual(
      bad.problems.map((p) => `${p.path}: ${p.message}`),
      ['http.port: expected at most 65535, found 70000', 'mcpServers.a.prefix: expected only letters, digits, "_" and "-"', 'mcpServers.a.timeout: expected more than 0, found 0'],
    );
    const list = await configErrorOf(loadConfig(file('json', '[1, 2]')));
    assert.match(list.message, /config\.json:1:1: expected an object, found a list$/);
  });

  test('a server that is neither local nor remote, or both', async () => {
    const error = await configErrorOf(
      loadConfig(file('json', { mcpServers: { none: { args: ['x'] }, both: { command: 'x', url: 'https://x.example' }, typed: { type: 'sse', command: 'x' } } })),
    );
    assert.deepEqual(
      error.problems.map((p) => `${p.path}: ${p.message}`),
      [
        'mcpServers.none: expected "command" (a local server) or "url" (a remote one)',
        'mcpServers.both: give one of "command", "url", not both: "command" starts a local server, "url" reaches a remote one',
        'mcpServers.typed: missing "url": "type" is "sse"',
      ],
    );
  });

  test('headers the HTTP upstream would refuse: a bad name, one of the protocol\'s own, a line break in a value', async () => {
    const error = await configErrorOf(
      loadConfig(file('json', { mcpServers: { r: { url: 'https://x.example', headers: { 'Bad Name': 'x', 'Mcp-Session-Id': 'x', 'X-Ok': 'a${NL}b' } } } }), { env: { NL: '\r\n' } }),
    );
    assert.deepEqual(
      error.problems.map((p) => `${p.path}: ${p.message}`),
      [
        'mcpServers.r.headers["Bad Name"]: not a valid header name',
        'mcpServers.r.headers.Mcp-Session-Id: mcp-chain sets this header itself: it cannot be configured',
        'mcpServers.r.headers.X-Ok: the value contains a line break or NUL',
      ],
    );
  });

  test('no servers at all, a URL that is not http(s)', async () => {
    const none = await configErrorOf(loadConfig(file('json', { serverInfo: { name: 'x', version: '1' } })));
    assert.match(none.message, /config\.json:1:1: no servers: expected "mcpServers" \(or "servers", or "mcp_servers"\) with a server in it$/);
    const ftp = await configErrorOf(loadConfig(file('json', { mcpServers: { f: { url: 'ftp://files.example' } } })));
    assert.match(ftp.message, /mcpServers\.f\.url: expected an http:\/\/ or https:\/\/ URL$/);
  });

  test('middleware: an unknown name with a suggestion, options checked by the built-in\'s schema, a module that is not there', async () => {
    const path = file('json', { mcpServers: { a: { command: 'a', middleware: ['lgo', { filter: { tols: {} } }, { log: { level: 'loud' } }, { module: './nope.js' }, 42] } } });
    const error = await configErrorOf(loadConfig(path));
    assert.deepEqual(
      error.problems.map((p) => `${p.path}: ${p.message}`),
      [
        'mcpServers.a.middleware[0]: unknown middleware "lgo"; did you mean "log"?',
        'mcpServers.a.middleware[1].filter.tols: unknown key; did you mean "tools"?',
        'mcpServers.a.middleware[2].log.level: expected "call" or "message", found "loud"',
        'mcpServers.a.middleware[4]: expected a built-in\'s name (filter, rename, log, transform, validate, rateLimit, cache, timeout, retry, redact, limitResult, audit, approve, discover, pin, requireScopes), { "<name>": { ...options } } or { "module": "./file.js" }, found a whole number',
      ],
    );
    const missing = await configErrorOf(loadConfig(file('json', { mcpServers: { a: { command: 'a', middleware: [{ module: './nope.js' }] } } })));
    assert.match(missing.message, /mcpServers\.a\.middleware\[0\]\.module: cannot find .*\/nope\.js$/);
  });

  test('an unreadable file: its path and the reason the system gave', async () => {
    const missing = join(dir, 'no-such-config.json');
    assert.equal((await configErrorOf(loadConfig(missing))).message, `${missing}: cannot read: no such file or directory (ENOENT)`);
    const folder = write(dir, 'folder.json/inside', '');
    assert.equal((await configErrorOf(loadConfig(join(folder, '..')))).message, `${join(folder, '..')}: cannot read: illegal operation on a directory (EISDIR)`);
    if (process.getuid?.() !== 0) {
      const locked = file('json', '{}');
      chmodSync(locked, 0o000);
      assert.match((await configErrorOf(loadConfig(locked))).message, /: cannot read: permission denied \(EACCES\)$/);
    }
  });

  test('bad JSON, YAML and TOML: the line and column of the syntax error', async () => {
    const json = file('json', '{\n  "mcpServers": {\n    "a": { "command": "a" }\n    "b": {}\n  }\n}\n');
    assert.equal((await configErrorOf(loadConfig(json))).message, `${json}:4:5: invalid JSON: expected "," or the end of the object or list`);
    const yaml = file('yaml', 'mcpServers:\n  a:\n    command: a\n   args: [x]\n');
    assert.match((await configErrorOf(loadConfig(yaml))).message, new RegExp(`^${yaml}:4:\\d+: invalid YAML: `));
    const toml = file('toml', '[mcp_servers.a]\ncommand = "a"\nargs = [1,\n');
    assert.equal((await configErrorOf(loadConfig(toml))).message, `${toml}:4:1: invalid TOML: invalid value`);
    const empty = file('json', '');
    assert.equal((await configErrorOf(loadConfig(empty))).message, `${empty}:1:1: invalid JSON: expected a value`);
  });

  test('a file nested too deeply for the parser (JSON 10,000 levels) is a ConfigError, not a stack overflow', async () => {
    for (const text of ['['.repeat(10_000) + ']'.repeat(10_000), `{"mcpServers":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`]) {
      const path = file('json', text);
      const error = await configErrorOf(loadConfig(path));
      assert.equal(error.message, `${path}: nested too deeply to read`);
    }
  });

  test('a key written twice in one object (JSON, YAML)', async () => {
    const json = file('json', '{ "mcpServers": { "a": { "command": "a" }, "a": { "command": "b" } } }');
    assert.equal((await configErrorOf(loadConfig(json))).message, `${json}:1:44: the key "a" is written twice in the same object`);
    const yaml = file('yaml', 'mcpServers:\n  a: { command: a }\n  a: { command: b }\n');
    assert.match((await configErrorOf(loadConfig(yaml))).message, new RegExp(`^${yaml}:3:3: invalid YAML: map keys must be unique`));
  });

  test('a server name used in two sections', async () => {
    const error = await configErrorOf(loadConfig(file('json', { mcpServers: { a: { command: 'a' } }, servers: { a: { command: 'b' } } })));
    assert.match(error.message, /servers\.a: a second server named "a" \(the first is mcpServers\.a\)$/);
  });

  test('secrets (env and header values, tokens, URLs) appear in no message and no log line', async () => {
    const secret = 'sk-VERY-SECRET-123';
    const log = captureLogger();
    const path = file('json', {
      mcpServers: {
        a: { command: 'a', env: { KEY: secret, NUM: 42, REF: '${SECRET}' }, headers: { Authorization: secret }, trust: secret },
        b: { url: `ftp://user:${secret}@x.example`, headers: { Authorization: 7 } },
        c: { url: 'https://x.example', env: { K: secret }, comand: secret },
      },
      http: { tokens: [secret, 12] },
      sandbox: secret,
    });
    const error = await configErrorOf(loadConfig(path, { env: { SECRET: secret }, log }));
    assert.ok(error.problems.length >= 4, error.message);
    assert.ok(!error.message.includes(secret), error.message);
    assert.ok(!JSON.stringify(error.problems).includes(secret));
    // A valid file with secrets logs its ignored and misplaced keys without them.
    await loadConfig(file('json', { mcpServers: { a: { url: 'https://x.example', env: { K: secret }, trust: secret } }, sandbox: secret }), { log });
    assert.ok(log.lines.length >= 3);
    assert.ok(!JSON.stringify(log.lines).includes(secret));
  });
});

describe("a remote server's oauth (the gateway as an OAuth client)", () => {
  test("mcp-chain's own keys: interpolated, tokenStore relative to the config file, passed on as they are", async () => {
    const path = file('json', {
      mcpServers: {
        api: {
          url: 'https://api.example.com/mcp',
          oauth: {
            grant: 'client_credentials',
            client: { clientId: '${CLIENT_ID}', clientSecret: '${CLIENT_SECRET}', tokenEndpointAuthMethod: 'client_secret_post' },
            scopes: ['mcp:read', 'mcp:write'],
            authorizationServer: 'https://auth.example.com',
            resource: 'https://api.example.com/mcp',
            tokenStore: './tokens.json',
            openBrowser: false,
          },
        },
        web: { url: 'https://web.example.com/mcp', oauth: { sharedLogin: true, clientMetadataUrl: 'https://gw.example.com/client.json', redirectUri: 'http://127.0.0.1:33418/callback' } },
        plain: { url: 'https://plain.example.com/mcp' },
      },
    });
    const config = await loadConfig(path, { env: { CLIENT_ID: 'gw', CLIENT_SECRET: 's3cret' } });
    const [api, web, plain] = config.servers as [RemoteServerConfig, RemoteServerConfig, RemoteServerConfig];
    assert.deepEqual(api.oauth, {
      grant: 'client_credentials',
      client: { clientId: 'gw', clientSecret: 's3cret', tokenEndpointAuthMethod: 'client_secret_post' },
      scopes: ['mcp:read', 'mcp:write'],
      authorizationServer: 'https://auth.example.com',
      resource: 'https://api.example.com/mcp',
      tokenStore: join(path, '..', 'tokens.json'),
      openBrowser: false,
    });
    assert.deepEqual(web.oauth, { sharedLogin: true, clientMetadataUrl: 'https://gw.example.com/client.json', redirectUri: 'http://127.0.0.1:33418/callback' });
    assert.equal(plain.oauth, undefined);
  });

  test("Claude Code's oauth: clientId, callbackPort (a localhost redirect URI), scopes as one string", async () => {
    const path = file('json', { mcpServers: { notion: { type: 'http', url: 'https://mcp.notion.example/mcp', oauth: { clientId: 'abc', callbackPort: 8765, scopes: 'read  write' } } } });
    const [notion] = (await loadConfig(path)).servers as [RemoteServerConfig];
    assert.deepEqual(notion.oauth, { client: { clientId: 'abc' }, redirectUri: 'http://localhost:8765/callback', scopes: ['read', 'write'] });
  });

  test("Gemini CLI's oauth: enabled, clientId, clientSecret, scopes, redirectUri mapped; its endpoint keys ignored with a warning; enabled false: none", async () => {
    const log = captureLogger();
    const path = file('json', {
      mcpServers: {
        webex: {
          httpUrl: 'https://webex.example/mcp',
          oauth: {
            enabled: true,
            clientId: 'id',
            clientSecret: '${SECRET}',
            scopes: ['spark:mcp'],
            redirectUri: 'http://localhost:7777/oauth/callback',
            authorizationUrl: 'https://webex.example/v1/authorize',
            tokenUrl: 'https://webex.example/v1/access_token',
            audiences: ['x'],
          },
        },
        off: { httpUrl: 'https://off.example/mcp', oauth: { enabled: false, clientId: 'id' } },
      },
    });
    const [webex, off] = (await loadConfig(path, { env: { SECRET: 'gem-secret' }, log })).servers as [RemoteServerConfig, RemoteServerConfig];
    assert.deepEqual(webex.oauth, { client: { clientId: 'id', clientSecret: 'gem-secret' }, scopes: ['spark:mcp'], redirectUri: 'http://localhost:7777/oauth/callback' });
    assert.equal(off.oauth, undefined);
    const warnings = log.lines.filter((line) => line.level === 'warn').map((line) => line.message);
    assert.deepEqual(
      warnings.map((message) => /mcpServers\.webex\.oauth\.(\w+): ignored: mcp-chain discovers/.exec(message)?.[1]),
      ['authorizationUrl', 'tokenUrl', 'audiences'],
    );
    assert.ok(!JSON.stringify(log.lines).includes('gem-secret'));
  });

  test('a redirect URI on the HTTP front (https, or loopback on its port) is kept; on a path the front serves itself (the MCP path, /sse, /messages, /.well-known/) it is a problem', async () => {
    const config = await loadConfig(file('json', {
      http: { port: 8080, path: '/mcp' },
      mcpServers: {
        a: { url: 'https://a.example/mcp', oauth: { redirectUri: 'https://mcp.example.com/oauth/callback' } },
        b: { url: 'https://b.example/mcp', oauth: { redirectUri: 'http://127.0.0.1:8080/oauth/callback' } },
        c: { url: 'https://c.example/mcp', oauth: { redirectUri: 'http://127.0.0.1:9000/mcp' } },
      },
    }));
    assert.deepEqual(config.servers.map((server) => (server as RemoteServerConfig).oauth?.redirectUri), ['https://mcp.example.com/oauth/callback', 'http://127.0.0.1:8080/oauth/callback', 'http://127.0.0.1:9000/mcp']);
    const error = await configErrorOf(loadConfig(file('json', {
      http: { port: 8080, path: '/mcp', sse: true },
      mcpServers: {
        a: { url: 'https://a.example/mcp', oauth: { redirectUri: 'https://mcp.example.com/mcp' } },
        b: { url: 'https://b.example/mcp', oauth: { redirectUri: 'http://localhost:8080/sse' } },
        c: { url: 'https://c.example/mcp', oauth: { redirectUri: 'https://mcp.example.com/.well-known/oauth-protected-resource' } },
        d: { url: 'https://d.example/mcp', oauth: { redirectUri: 'https://mcp.example.com/cb?x=1' } },
      },
    })));
    assert.deepEqual(error.message.split('\n').map((line) => line.slice(line.indexOf('mcpServers'))).sort(), [
      'mcpServers.a.oauth.redirectUri: /mcp is a path the HTTP front serves itself; the login\'s redirect needs one of its own, such as /oauth/callback',
      'mcpServers.b.oauth.redirectUri: /sse is a path the HTTP front serves itself; the login\'s redirect needs one of its own, such as /oauth/callback',
      'mcpServers.c.oauth.redirectUri: /.well-known/oauth-protected-resource is a path the HTTP front serves itself; the login\'s redirect needs one of its own, such as /oauth/callback',
      'mcpServers.d.oauth.redirectUri: expected a loopback http URL (http://127.0.0.1:<port>/callback, [::1] or localhost) or an https address of the gateway\'s HTTP front (https://mcp.example.com/oauth/callback), without a query or fragment: the login\'s redirect comes to mcp-chain itself',
    ]);
  });

  test('problems at their place: a redirect URI that is neither loopback http nor https, a metadata URL that is not https, a grant without what it needs, a client given twice, an unknown key', async () => {
    const path = file('json', {
      mcpServers: {
        a: { url: 'https://a.example/mcp', oauth: { redirectUri: 'http://gw.example/callback', clientMetadataUrl: 'http://gw.example/client.json' } },
        b: { url: 'https://b.example/mcp', oauth: { grant: 'client_credentials' } },
        c: { url: 'https://c.example/mcp', oauth: { grant: 'token_exchange', client: { clientId: 'x' }, clientId: 'y', redirectUri: 'http://127.0.0.1:1/callback', callbackPort: 2 } },
        d: { url: 'https://d.example/mcp', oauth: { clientSecret: '${S}' } },
      },
    });
    const error = await configErrorOf(loadConfig(path, { env: { S: 'not-shown' } }));
    const lines = error.message.split('\n').map((line) => line.slice(line.indexOf('mcpServers')));
    assert.deepEqual(lines.sort(), [
      'mcpServers.a.oauth.clientMetadataUrl: http://gw.example/client.json: plain http is allowed only to loopback; use https',
      'mcpServers.a.oauth.redirectUri: expected a loopback http URL (http://127.0.0.1:<port>/callback, [::1] or localhost) or an https address of the gateway\'s HTTP front (https://mcp.example.com/oauth/callback), without a query or fragment: the login\'s redirect comes to mcp-chain itself',
      'mcpServers.b.oauth.grant: client_credentials needs a registered client: give "client" ({ "clientId", "clientSecret" })',
      'mcpServers.c.oauth.callbackPort: give "redirectUri" or "callbackPort", not both',
      'mcpServers.c.oauth.clientId: give the client once: "client" or "clientId" (and "clientSecret"), not both',
      'mcpServers.c.oauth.grant: token_exchange needs "tokenExchange" (the gateway\'s client at the identity provider)',
      'mcpServers.d.oauth.clientSecret: a client secret needs "clientId"',
    ].sort());
    assert.ok(!error.message.includes('not-shown'));
    const keys = await configErrorOf(loadConfig(file('json', { mcpServers: { d: { url: 'https://d.example/mcp', oauth: { client_id: 'x', scopes: ['a b'] } } } })));
    assert.deepEqual(keys.message.split('\n').map((line) => line.slice(line.indexOf('mcpServers'))).sort(), [
      'mcpServers.d.oauth.client_id: unknown key; did you mean "clientId"?',
      'mcpServers.d.oauth.scopes[0]: expected a scope (no spaces, quotes or backslashes)',
    ]);
  });

  test('oauth on a server started with command is ignored with a warning', async () => {
    const log = captureLogger();
    const [local] = (await loadConfig(file('json', { mcpServers: { local: { command: 'x', oauth: { clientId: 'a' } } } }), { log })).servers;
    assert.equal(local?.transport, 'stdio');
    assert.ok(log.lines.some((line) => line.level === 'warn' && line.message.includes('mcpServers.local.oauth: ignored: it applies to a remote server')));
  });
});

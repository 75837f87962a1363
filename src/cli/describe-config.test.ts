import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { GatewayConfig, ServerConfig } from '../config/gateway-config.js';
import { describeConfig } from './describe-config.js';

const base = { disabled: false, isolation: 'session', middleware: [] } as const;

function config(servers: readonly ServerConfig[], more: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    file: '/home/me/claude_desktop_config.json',
    servers,
    front: { kind: 'stdio' },
    naming: { separator: '__', maxNameLength: 64 },
    middleware: [],
    ...more,
  };
}

describe('describeConfig (what `mcp-chain validate` prints)', () => {
  test('each server in file order: transport, command line or URL, names of env and headers, prefix, tools, isolation, disabled', () => {
    const text = describeConfig(
      config([
        { ...base, name: 'github', path: 'mcpServers.github', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github', 'a b'], env: { GITHUB_TOKEN: 'ghp_s3cret' }, tools: { allow: ['create_issue', 'list_*'], deny: ['delete_*'] } },
        { ...base, name: 'my.api', path: 'mcpServers["my.api"]', transport: 'http', url: 'https://user:pw@api.example.com/mcp', headers: { Authorization: 'Bearer tok3n' }, isolation: 'shared', timeoutMs: 5000 },
        { ...base, name: 'old', path: 'mcpServers.old', transport: 'stdio', command: 'old-server', args: [], env: {}, disabled: true },
      ]),
    );
    assert.equal(
      text,
      [
        '/home/me/claude_desktop_config.json: valid, 3 servers (1 disabled)',
        '',
        'front: stdio',
        'names: "__" between prefix and name, at most 64 characters',
        'middleware: none',
        '',
        'servers:',
        '  github: stdio',
        "    command: npx -y @modelcontextprotocol/server-github 'a b'",
        '    env: GITHUB_TOKEN',
        '    names: github__<name>',
        '    tools allowed: create_issue, list_*',
        '    tools denied: delete_*',
        '    isolation: session (one connection per client session)',
        '  my.api: Streamable HTTP',
        '    url: https://user:***@api.example.com/mcp',
        '    headers: Authorization',
        '    names: my_api__<name>',
        '    isolation: shared (one connection for all sessions)',
        '    timeouts: each call 5000 ms',
        '  old: stdio, disabled',
        '    command: old-server',
        '    names: old__<name>',
        '    isolation: session (one connection per client session)',
        '',
      ].join('\n'),
    );
    for (const secret of ['ghp_s3cret', 'tok3n', 'pw@']) assert.ok(!text.includes(secret), secret);
  });

  test("a remote server's oauth: the grant, the client (never its secret), scopes, where tokens are kept", () => {
    const remote = { ...base, path: 'mcpServers.x', transport: 'http', url: 'https://x.example/mcp', headers: {} } as const;
    const text = describeConfig(
      config([
        { ...remote, name: 'notion', oauth: {} },
        { ...remote, name: 'api', oauth: { grant: 'client_credentials', client: { clientId: 'gw', clientSecret: 'cl1ent-s3cret' }, scopes: ['a', 'b'], tokenStore: '/var/lib/tokens.json' } },
        { ...remote, name: 'team', oauth: { sharedLogin: true, clientMetadataUrl: 'https://gw.example/client.json', redirectUri: 'http://127.0.0.1:4567/callback' } },
      ]),
    );
    const lines = text.split('\n').filter((line) => line.startsWith('    oauth: '));
    assert.deepEqual(lines, [
      '    oauth: a person logs in (mcp-chain auth login notion); client registered at the first login',
      '    oauth: client credentials; client gw with a secret; scopes a b; tokens in /var/lib/tokens.json',
      '    oauth: a person logs in (mcp-chain auth login team), one login for every user; client metadata document https://gw.example/client.json; redirect http://127.0.0.1:4567/callback',
    ]);
    assert.ok(!text.includes('cl1ent-s3cret'));
  });

  test('a server of command-line programs: each tool with its program and argv template, placeholders as {param} and [flag {param}]', () => {
    const text = describeConfig(
      config([
        {
          ...base,
          name: 'repo',
          path: 'mcpServers.repo',
          transport: 'commands',
          env: { TOKEN: 't0ken' },
          cwd: '/home/me/src/app',
          commands: {
            grep: { description: 'Search', command: 'grep', args: ['-rn', { param: 'ignoreCase', flag: '-i' }, '--', '{pattern}', { literal: 'a b' }] },
            status: { description: 'Status', command: 'git' },
          },
        },
        { ...base, name: 'other', path: 'mcpServers.other', transport: 'stdio', command: 'other', args: [], env: {} },
      ]),
    );
    assert.match(text, /^ {2}repo: command-line programs as tools$/m);
    assert.match(text, /^ {4}tool grep: grep -rn \[-i \{ignoreCase\}\] -- \{pattern\} 'a b'$/m);
    assert.match(text, /^ {4}tool status: git$/m);
    assert.match(text, /^ {4}env: TOKEN$/m);
    assert.match(text, /^ {4}cwd: \/home\/me\/src\/app$/m);
    assert.match(text, /^ {4}names: repo__<name>$/m);
    assert.ok(!text.includes('t0ken'));
  });

  test('values that came from the environment are shown as the ${NAME} they came from', () => {
    const text = describeConfig(
      config([{ ...base, name: 'api', path: 'mcpServers.api', transport: 'stdio', command: 'server', args: ['--key', 'k-12345', '-v'], env: {} }]),
      { secrets: new Map([['API_KEY', 'k-12345'], ['V', '-v']]) },
    );
    assert.match(text, /^ {4}command: server --key \$\{API_KEY\} -v$/m);
    assert.match(text, /^ {4}names: as the server gives them \(the only server\)$/m);
  });

  test('the HTTP front names its tokens, never their values; middleware show their option names only', () => {
    const text = describeConfig(
      config([], {
        front: { kind: 'http', host: '127.0.0.1', port: 8080, path: '/mcp', tokens: [{ id: 'ADMIN', token: 'adm1n-secret' }], allowUnauthenticated: false, sse: true, sessionTtlMs: 60_000 },
        middleware: [{ kind: 'builtin', name: 'filter', options: { tools: { deny: ['x'] } }, path: 'middleware[0]' }, { kind: 'builtin', name: 'log', options: {}, path: 'middleware[1]' }],
      }),
    );
    assert.match(text, /^front: Streamable HTTP at http:\/\/127\.0\.0\.1:8080\/mcp; legacy HTTP\+SSE too; tokens: ADMIN; sessions end after 60 s idle$/m);
    assert.match(text, /^middleware: filter \(tools\), then log$/m);
    assert.match(text, /^servers: none$/m);
    assert.ok(!text.includes('adm1n-secret'));
  });
});

// The JSON Schema that ships with the package (editor completion and checks) is generated from the
// zod schema that validates config files: the checked-in file must be what it generates, and it
// must accept and refuse what loadConfig accepts and refuses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { configJsonSchema } from './config-json-schema.js';

const shipped = new URL('../../schema/mcp-chain.config.schema.json', import.meta.url);

interface Validator {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}
/** ajv 8 (the official SDK's, a dev dependency), loaded without types of its own here. */
function compile(schema: object): Validator {
  const Ajv = createRequire(import.meta.url)('ajv') as { default: new (options: object) => { compile(schema: object): Validator } };
  return new Ajv.default({ strict: false, allErrors: true }).compile(schema);
}

describe('the JSON Schema of config files', () => {
  test('schema/mcp-chain.config.schema.json is what the zod schema generates (after a change: npm run gen:config-schema)', () => {
    const checkedIn = readFileSync(shipped, 'utf8');
    assert.ok(checkedIn === JSON.stringify(configJsonSchema(), null, 2) + '\n', 'schema/mcp-chain.config.schema.json is out of date: run `npm run gen:config-schema` and commit it');
  });

  test('it accepts the client shapes and our own keys, and refuses unknown keys and wrong types', () => {
    const validate = compile(configJsonSchema());
    const valid = [
      { mcpServers: { a: { command: 'npx', args: ['-y', 'x'], env: { K: '${K}' } } } },
      { servers: { a: { type: 'http', url: 'https://x.example/mcp', headers: { A: 'b' } } } },
      { mcp_servers: { a: { command: 'x', startup_timeout_sec: 10, enabled_tools: ['a'] } } },
      { mcpServers: { a: { httpUrl: 'https://x.example', trust: true, includeTools: ['x'] } } },
      {
        $schema: 'https://unpkg.com/mcp-chain/schema/mcp-chain.config.schema.json',
        http: { port: 8080, tokens: ['${T}', { id: 'ci', token: '${CI}' }] },
        serverInfo: { name: 'g', version: '1' },
        timeouts: { request: 1000 },
        naming: { separator: '__' },
        middleware: ['log', { filter: { tools: { deny: ['x'] } } }, { module: './m.js', options: {} }],
        mcpServers: { a: { command: 'x', prefix: false, isolation: 'shared', middleware: [{ rename: { tools: { a: 'b' } } }] } },
      },
    ];
    for (const config of valid) assert.ok(validate(config), `${JSON.stringify(config)}: ${JSON.stringify(validate.errors)}`);
    const invalid = [
      { mcpServers: { a: { comand: 'x' } } },
      { mcpServers: { a: { command: 1 } } },
      { mcpServers: { a: { command: 'x', type: 'websocket' } } },
      { mcpServers: { a: { command: 'x', upstream: {} } } },
      { mcpServer: {} },
      { middleware: ['lgo'] },
      { middleware: [{ filter: { tols: {} } }] },
      { http: { port: '80' } },
      // Other programs' own settings are read (and ignored) in their files, but not suggested in ours.
      { mcpServers: {}, globalShortcut: 'x' },
    ];
    for (const config of invalid) assert.ok(!validate(config), `${JSON.stringify(config)} should be refused`);
  });
});

// `audit` end to end: `mcp-chain serve` of a JSON config file naming the built-in `audit`, in front
// of server-everything and server-memory, reached by the official SDK client on stdio and on
// --http. Once the client has gone (and the gateway with it), the audit file holds one record per
// call: server, tool, redacted arguments, outcome, error.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BUILTIN_MIDDLEWARE } from '../../src/config/middleware-registry.js';
import { gatewayTarget, referenceEntry, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, proxyBuilt, type Connection } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';

const T = { timeout: 30_000 };
const EMAIL = 'alice.smith@example.com';
const needsRegistry = Object.hasOwn(BUILTIN_MIDDLEWARE, 'audit') ? false : 'audit is not in the registry yet (middleware-registry.ts)';

interface AuditLine {
  time: string;
  session: string;
  method: string;
  server?: string;
  tool?: string;
  arguments?: unknown;
  durationMs: number;
  outcome: string;
  error?: { code: number; message: string };
}

forEachTransport(({ http, flag }) => {
  describe(`audit through mcp-chain serve${flag}`, { skip: needsRegistry }, () => {
    let ws: Workspace;
    let gateway: Connection | undefined;

    before(() => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-policy-audit-');
    });

    after(async () => {
      await gateway?.close();
      ws?.remove();
    });

    it('every tools/call is in the file, redacted, once the client has gone', T, async () => {
      const config = ws.write(
        'mcp-chain.json',
        JSON.stringify({
          mcpServers: { everything: referenceEntry('server-everything'), memory: referenceEntry('server-memory', [], { MEMORY_FILE_PATH: ws.path('memory.jsonl') }) },
          middleware: [{ audit: { file: 'logs/audit.jsonl' } }],
        }),
      );
      ws.mkdir('logs');
      gateway = await connectClient(gatewayTarget(config, { http }), { capabilities: {} });
      const echoed = textOf(await callTool(gateway.client, { name: 'everything__echo', arguments: { message: `hi ${EMAIL}` } }));
      assert.match(echoed, new RegExp(EMAIL.replaceAll('.', '\\.')));
      await callTool(gateway.client, { name: 'memory__read_graph', arguments: {} });
      const unknown = await gateway.client.callTool({ name: 'everything__nope', arguments: {} }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(unknown instanceof Error);
      await gateway.client.listTools();
      // The client goes away; the gateway exits (on stdio when its stdin ends) and closes the chain.
      await gateway.close();
      gateway = undefined;

      const file = ws.path('logs', 'audit.jsonl');
      assert.ok(existsSync(file));
      const records = readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as AuditLine);
      assert.deepEqual(
        records.map(({ method, server, tool, arguments: args, outcome, error }) => ({ method, server, tool, arguments: args, outcome, code: error?.code })),
        [
          { method: 'tools/call', server: 'everything', tool: 'everything__echo', arguments: { message: 'hi [REDACTED:email]' }, outcome: 'ok', code: undefined },
          { method: 'tools/call', server: 'memory', tool: 'memory__read_graph', arguments: {}, outcome: 'ok', code: undefined },
          { method: 'tools/call', server: 'everything', tool: 'everything__nope', arguments: {}, outcome: 'error', code: -32602 },
        ],
      );
      assert.equal(new Set(records.map((record) => record.session)).size, 1);
      for (const record of records) assert.match(record.time, /^\d{4}-\d\d-\d\dT/);
      assert.ok(!readFileSync(file, 'utf8').includes(EMAIL));
    });
  });
});

// `rateLimit` end to end: `mcp-chain serve` of a TypeScript config file whose middleware is
// `rateLimit(...)`, in front of server-everything and server-memory, reached by the official SDK
// client on stdio and on --http. A server's bucket runs out while the other server still answers;
// the refusal is -32029 with `retryAfterMs` in its data; a second call to a tool with
// `maxConcurrent: 1` is refused while the first is running (seen running by its progress).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { gatewayTarget, serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, proxyBuilt, repoRoot, type Connection } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';

const T = { timeout: 30_000 };

/** The config file: the middleware imported from the repository's sources. */
function configFile(ws: Workspace): string {
  const json = (value: unknown): string => JSON.stringify(value);
  return ws.write(
    'mcp-chain.config.ts',
    `import { rateLimit } from ${json(`${repoRoot}/src/middleware/rate-limit/index.ts`)};

export default {
  mcpServers: {
    everything: { command: ${json(process.execPath)}, args: [${json(serverBin('server-everything'))}] },
    memory: { command: ${json(process.execPath)}, args: [${json(serverBin('server-memory'))}], env: { MEMORY_FILE_PATH: ${json(ws.path('memory.jsonl'))} } },
  },
  middleware: [
    rateLimit({
      limits: [{ key: ['identity', 'server'], tools: ['everything__echo', 'memory__*'], rate: 2, per: 'hour' }],
      concurrency: [{ tools: ['everything__trigger-long-running-operation'], maxConcurrent: 1, retryAfterMs: 2000 }],
    }),
  ],
};
`,
  );
}

/** The McpError a call is refused with. */
async function refusal(connection: Connection, name: string, args: Record<string, unknown> = {}): Promise<McpError> {
  try {
    await connection.client.callTool({ name, arguments: args });
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error(`${name} was not refused`);
}

forEachTransport(({ http, flag }) => {
  describe(`rateLimit through mcp-chain serve${flag}`, () => {
    let ws: Workspace;
    let gateway: Connection;

    before(async () => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-rate-limit-');
      gateway = await connectClient(gatewayTarget(configFile(ws), { http }), { capabilities: {} });
    });

    after(async () => {
      await gateway?.close();
      ws?.remove();
    });

    it('a server runs out of calls (-32029, retryAfterMs), the other server still answers, tools no rule names are not limited', T, async () => {
      for (const message of ['one', 'two']) {
        assert.equal(textOf(await callTool(gateway.client, { name: 'everything__echo', arguments: { message } })), `Echo: ${message}`);
      }
      const refused = await refusal(gateway, 'everything__echo', { message: 'three' });
      assert.equal(refused.code, -32029);
      assert.match(refused.message, /^MCP error -32029: Rate limit exceeded for tool "everything__echo" \(2 per hour, per identity and server\); retry in 30 min$/);
      const data = refused.data as { retryAfterMs: number; limit: string; tool: string };
      assert.equal(data.limit, 'rate');
      assert.equal(data.tool, 'everything__echo');
      assert.ok(data.retryAfterMs > 29 * 60_000 && data.retryAfterMs <= 30 * 60_000, `retryAfterMs ${data.retryAfterMs}`);

      const graph = await callTool(gateway.client, { name: 'memory__read_graph', arguments: {} });
      assert.notEqual(graph.isError, true);
      assert.equal((await callTool(gateway.client, { name: 'everything__get-sum', arguments: { a: 1, b: 2 } })).isError === true, false);
      assert.equal((await callTool(gateway.client, { name: 'everything__get-sum', arguments: { a: 2, b: 3 } })).isError === true, false);
    });

    it('a second call to a tool with maxConcurrent 1 is refused while the first runs', T, async () => {
      const running = new AbortController();
      let started!: () => void;
      const progressed = new Promise<void>((resolve) => (started = resolve));
      const first = gateway.client.callTool(
        { name: 'everything__trigger-long-running-operation', arguments: { duration: 60, steps: 600 } },
        undefined,
        { signal: running.signal, onprogress: () => started(), timeout: 120_000 },
      );
      first.catch(() => undefined);
      await progressed;
      const refused = await refusal(gateway, 'everything__trigger-long-running-operation', { duration: 1, steps: 1 });
      assert.equal(refused.code, -32029);
      assert.equal(refused.message, 'MCP error -32029: Too many concurrent calls to tool "everything__trigger-long-running-operation" (at most 1 at a time per tool); retry in 2 s');
      assert.deepEqual(refused.data, { retryAfterMs: 2000, limit: 'concurrency', tool: 'everything__trigger-long-running-operation', maxConcurrent: 1 });
      running.abort('done');
      await assert.rejects(first);
    });
  });
});

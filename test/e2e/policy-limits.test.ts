// `limitResult`, `timeout` and `retry` end to end: `mcp-chain serve` of a TypeScript config file
// whose middleware are imported from the repository's sources, in front of server-everything,
// reached by the official SDK client on stdio and on --http. A long echo is cut with a note; a
// long-running operation ends at its deadline with -32001 naming the tool (after the retry the
// config allows); other tools are untouched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { gatewayTarget, serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, proxyBuilt, repoRoot, type Connection } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';

const T = { timeout: 30_000 };

function configFile(ws: Workspace): string {
  const json = (value: unknown): string => JSON.stringify(value);
  return ws.write(
    'mcp-chain.config.ts',
    `import { limitResult } from ${json(`${repoRoot}/src/middleware/limit-result/index.ts`)};
import { retry } from ${json(`${repoRoot}/src/middleware/retry/index.ts`)};
import { timeout } from ${json(`${repoRoot}/src/middleware/timeout/index.ts`)};

export default {
  mcpServers: {
    everything: { command: ${json(process.execPath)}, args: [${json(serverBin('server-everything'))}] },
    other: { command: ${json(process.execPath)}, args: [${json(serverBin('server-everything'))}] },
  },
  middleware: [
    limitResult({ tools: { 'everything__echo': { maxTextChars: 20 } } }),
    retry({ tools: ['everything__trigger-long-running-operation'], on: ['timeout'], maxAttempts: 2, initialDelayMs: 10 }),
    timeout({ servers: { everything: 500 } }),
  ],
};
`,
  );
}

forEachTransport(({ http, flag }) => {
  describe(`limitResult, timeout and retry through mcp-chain serve${flag}`, () => {
    let ws: Workspace;
    let gateway: Connection;

    before(async () => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-policy-limits-');
      gateway = await connectClient(gatewayTarget(configFile(ws), { http }), { capabilities: {} });
    });

    after(async () => {
      await gateway?.close();
      ws?.remove();
    });

    it('a long result is cut to its cap with a note the model can read; a short one is untouched', T, async () => {
      const long = await callTool(gateway.client, { name: 'everything__echo', arguments: { message: 'x'.repeat(100) } });
      assert.equal(long.content[0]?.type === 'text' ? long.content[0].text : undefined, `Echo: ${'x'.repeat(14)}`);
      assert.match(textOf({ content: long.content.slice(1) }), /^\[… truncated by the gateway: its text was 106 characters, over the gateway's limit of 20; text cut to 20 of 106 characters\]$/);
      assert.equal(textOf(await callTool(gateway.client, { name: 'everything__echo', arguments: { message: 'hi' } })), 'Echo: hi');
      assert.equal(textOf(await callTool(gateway.client, { name: 'other__echo', arguments: { message: 'x'.repeat(100) } })), `Echo: ${'x'.repeat(100)}`);
    });

    it("a call past its server's deadline is -32001 naming the tool and the limit; the other server has none", T, async () => {
      const error = await gateway.client
        .callTool({ name: 'everything__trigger-long-running-operation', arguments: { duration: 5, steps: 5 } })
        .then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32001);
      assert.match(error.message, /Tool "everything__trigger-long-running-operation" did not answer within 500 ms \(the gateway's limit\)/);
      assert.deepEqual(error.data, { tool: 'everything__trigger-long-running-operation', timeout: 500 });
      const quick = await callTool(gateway.client, { name: 'other__trigger-long-running-operation', arguments: { duration: 1, steps: 1 } });
      assert.notEqual(quick.isError, true);
    });
  });
});

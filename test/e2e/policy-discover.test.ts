// `discover` end to end: `mcp-chain serve` of a TypeScript config file whose middleware is
// `discover({ alwaysShow: ['memory__read_graph'] })` imported from the repository's sources, in
// front of server-everything and server-memory (a gateway: names are `<server>__<tool>`), reached
// by the official SDK client on stdio and on --http. The client lists the three meta-tools (and the
// one tool always shown); searching "repeat a message back" finds everything__echo; call_tool runs
// it, and a long-running tool through call_tool reports its progress to the client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { gatewayTarget, serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, droppedProgress, textOf } from '../helpers/mcp.js';
import { connectClient, proxyBuilt, type Connection } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';

const T = { timeout: 30_000 };

/** A YAML config naming the built-in, so the bundled CLI runs its own copy of discover. */
function configFile(ws: Workspace): string {
  const json = (value: unknown): string => JSON.stringify(value); // JSON strings are YAML strings
  return ws.write(
    'mcp-chain.config.yaml',
    `mcpServers:
  everything:
    command: ${json(process.execPath)}
    args: [${json(serverBin('server-everything'))}]
  memory:
    command: ${json(process.execPath)}
    args: [${json(serverBin('server-memory'))}]
    env: { MEMORY_FILE_PATH: ${json(ws.path('memory.jsonl'))} }
middleware:
  - discover: { alwaysShow: [memory__read_graph] }
`,
  );
}

interface Found {
  tools: Array<{ name: string; description: string; score: number }>;
}

forEachTransport(({ http, flag }) => {
  describe(`discover through mcp-chain serve${flag}`, () => {
    let ws: Workspace;
    let gateway: Connection;

    before(async () => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-discover-');
      gateway = await connectClient(gatewayTarget(configFile(ws), { http }), { capabilities: {} });
    });

    after(async () => {
      await gateway?.close();
      ws?.remove();
    });

    it('the client lists the three meta-tools and the tool always shown, not the catalog', T, async () => {
      const { tools, nextCursor } = await gateway.client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['search_tools', 'describe_tool', 'call_tool', 'memory__read_graph'],
      );
      assert.equal(nextCursor, undefined);
      assert.equal(tools[0]?.annotations?.readOnlyHint, true);
    });

    it('search finds everything__echo for "repeat a message back", with both servers in the catalog', T, async () => {
      const result = await callTool(gateway.client, { name: 'search_tools', arguments: { query: 'repeat a message back', limit: 3 } });
      const { tools } = result.structuredContent as unknown as Found;
      assert.ok(tools.some((tool) => tool.name === 'everything__echo'), JSON.stringify(tools));
      assert.match(textOf(result), /- everything__echo: Echoes back the input string/);
      const memory = await callTool(gateway.client, { name: 'search_tools', arguments: { query: 'create entities in the knowledge graph', limit: 3 } });
      assert.equal((memory.structuredContent as unknown as Found).tools[0]?.name, 'memory__create_entities');
    });

    it("describe_tool gives the tool's definition as the server lists it", T, async () => {
      const result = await callTool(gateway.client, { name: 'describe_tool', arguments: { name: 'everything__echo' } });
      const tool = result.structuredContent as { name: string; description: string; inputSchema: { properties: Record<string, unknown> } };
      assert.equal(tool.name, 'everything__echo');
      assert.equal(tool.description, 'Echoes back the input string');
      assert.deepEqual(Object.keys(tool.inputSchema.properties), ['message']);
    });

    it('call_tool echoes; the tools keep working by their own names', T, async () => {
      const echoed = await callTool(gateway.client, { name: 'call_tool', arguments: { name: 'everything__echo', arguments: { message: 'hello' } } });
      assert.equal(textOf(echoed), 'Echo: hello');
      assert.equal(textOf(await callTool(gateway.client, { name: 'everything__echo', arguments: { message: 'direct' } })), 'Echo: direct');
      // An unknown tool gets the gateway's own answer, as a direct call of it does.
      const viaCall = await gateway.client.callTool({ name: 'call_tool', arguments: { name: 'everything__nope' } }).then(String, String);
      const direct = await gateway.client.callTool({ name: 'everything__nope' }).then(String, String);
      assert.match(direct, /everything__nope/);
      assert.equal(viaCall, direct);
    });

    it('a long-running tool called through call_tool reports its progress to the client', T, async () => {
      const progress: Progress[] = [];
      const errorMark = gateway.errors.length;
      const result = await callTool(
        gateway.client,
        { name: 'call_tool', arguments: { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.4, steps: 2 } } },
        { onprogress: (p) => progress.push(p) },
      );
      assert.equal(textOf(result), 'Long running operation completed. Duration: 0.4 seconds, Steps: 2.');
      // The SDK client may report the last progress through onerror when it arrives with the result.
      assert.deepEqual([...progress.map((p) => p.progress), ...droppedProgress(gateway.errors.slice(errorMark))], [1, 2]);
    });
  });
});

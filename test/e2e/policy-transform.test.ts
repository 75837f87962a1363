// `transform` end to end: `mcp-chain serve` of a TypeScript config file with server-everything and
// server-memory, a transform on the whole gateway (names `<server>__<tool>`) and one on the memory
// server alone (its own names), through the official SDK client on stdio and on --http: what the
// client lists, what the servers get, structured output against its outputSchema, and the refusals.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { gatewayTarget, listAll, referenceEntry, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, mcpErrorWithCode, textOf } from '../helpers/mcp.js';
import { connectClient, repoRoot } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';

const T = { timeout: 30_000 };

/** The config file: imports transform from the repository's sources (esbuild bundles it in). */
function configText(memoryFile: string): string {
  const everything = referenceEntry('server-everything');
  const memory = referenceEntry('server-memory', [], { MEMORY_FILE_PATH: memoryFile });
  return `import { transform } from ${JSON.stringify(`${repoRoot}/src/middleware/transform/index.js`)};

export default {
  mcpServers: {
    everything: ${JSON.stringify(everything)},
    memory: { ...${JSON.stringify(memory)}, middleware: [transform({ tools: { read_graph: { name: 'graph', description: '{description} (ACME)' } } })] },
  },
  middleware: [
    transform({
      tools: {
        everything__echo: {
          name: 'say',
          description: '{description}, for ACME',
          annotations: { readOnlyHint: true },
          arguments: { message: { name: 'text', description: 'What to say', maxLength: 20 } },
        },
        'everything__get-sum': { arguments: { b: { hide: true, value: 100 }, a: { minimum: 0 } } },
        'everything__get-structured-content': { title: 'Weather', arguments: { location: { enum: ['Chicago'], default: 'Chicago' } } },
        'everything__get-env': { enabled: false },
      },
    }),
  ],
};
`;
}

describe('policy: transform through mcp-chain serve', () => {
  let ws: Workspace;
  before(() => {
    ws = workspace('mcp-chain-transform-');
  });
  after(() => ws.remove());

  forEachTransport(({ name, http }) => {
    it(`${name}: the client sees the transformed tools, calls reach the servers mapped back, refusals are -32602`, T, async () => {
      const file = ws.write(`${name}/mcp-chain.config.ts`, configText(ws.path(`memory-${name}.jsonl`)));
      const gateway = await connectClient(gatewayTarget(file, { http }), { capabilities: {} });
      try {
        const tools = new Map((await listAll(gateway.client, 'tools')).items.map((tool: Tool) => [tool.name, tool]));
        for (const gone of ['everything__echo', 'everything__get-env', 'memory__read_graph']) assert.equal(tools.has(gone), false, gone);

        const say = tools.get('say');
        assert.ok(say);
        assert.equal(say.description, 'Echoes back the input string, for ACME');
        assert.equal(say.annotations?.readOnlyHint, true);
        assert.deepEqual(say.inputSchema.properties, { text: { type: 'string', description: 'What to say', maxLength: 20 } });
        assert.deepEqual(say.inputSchema.required, ['text']);

        const sum = tools.get('everything__get-sum');
        assert.deepEqual(Object.keys(sum?.inputSchema.properties ?? {}), ['a']);
        assert.deepEqual(sum?.inputSchema.required, ['a']);

        const weather = tools.get('everything__get-structured-content');
        assert.equal(weather?.title, 'Weather');
        assert.deepEqual(weather?.inputSchema.properties?.location, { type: 'string', enum: ['Chicago'], description: 'Choose city', default: 'Chicago' });
        assert.equal(weather?.inputSchema.required, undefined);
        assert.ok(weather?.outputSchema, 'outputSchema kept');

        assert.match(tools.get('memory__graph')?.description ?? '', / \(ACME\)$/);

        assert.equal(textOf(await callTool(gateway.client, { name: 'say', arguments: { text: 'hello' } })), 'Echo: hello');
        assert.equal(textOf(await callTool(gateway.client, { name: 'everything__get-sum', arguments: { a: 1 } })), 'The sum of 1 and 100 is 101.');
        // The SDK client checks structuredContent against the listed outputSchema.
        const structured = await callTool(gateway.client, { name: 'everything__get-structured-content', arguments: {} });
        assert.equal(typeof structured.structuredContent?.temperature, 'number');
        assert.deepEqual(JSON.parse(textOf(await callTool(gateway.client, { name: 'memory__graph', arguments: {} }))), { entities: [], relations: [] });

        await assert.rejects(
          gateway.client.callTool({ name: 'everything__get-sum', arguments: { a: 1, b: 2 } }),
          mcpErrorWithCode(ErrorCode.InvalidParams, 'Invalid arguments for tool everything__get-sum: "b" is fixed and cannot be set'),
        );
        await assert.rejects(
          gateway.client.callTool({ name: 'everything__get-sum', arguments: { a: -1 } }),
          mcpErrorWithCode(ErrorCode.InvalidParams, '"a" must be at least 0'),
        );
        await assert.rejects(
          gateway.client.callTool({ name: 'say', arguments: { text: 'x'.repeat(21) } }),
          mcpErrorWithCode(ErrorCode.InvalidParams, '"text" must be at most 20 characters long'),
        );
        await assert.rejects(
          gateway.client.callTool({ name: 'everything__get-structured-content', arguments: { location: 'New York' } }),
          mcpErrorWithCode(ErrorCode.InvalidParams, '"location" must be one of "Chicago"'),
        );
        for (const name of ['everything__echo', 'everything__get-env']) {
          await assert.rejects(gateway.client.callTool({ name, arguments: { message: 'x' } }), mcpErrorWithCode(ErrorCode.InvalidParams, `Unknown tool: ${name}`));
        }
      } finally {
        const report = await gateway.close();
        assert.equal(report.exitCode, 0, gateway.stderrTail());
      }
    });
  });
});

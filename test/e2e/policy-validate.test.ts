// `validate` end to end: `mcp-chain serve` of a TypeScript config file whose middleware is
// `validate({ invalidArguments: 'error' })` (refusals as -32602, to check their shape end to end), in front of server-everything and server-memory (a gateway: names are
// `<server>__<tool>`), reached by the official SDK client on stdio and on --http. Arguments that
// break a tool's inputSchema (the servers' own schemas, as they list them) are refused with -32602
// naming the field and the rule before the server sees them; valid calls and valid structured
// results pass; a structured result broken on its way back (by a middleware behind `validate`,
// standing in for a server that breaks its outputSchema) reaches the client as an isError result.
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
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
    `import { validate } from ${json(`${repoRoot}/src/middleware/validate/index.ts`)};
import type { Middleware } from ${json(`${repoRoot}/src/chain/middleware.ts`)};

/** Spoils the weather in Los Angeles: humidity becomes a string, which the tool's outputSchema forbids. */
const spoil: Middleware = async (ctx, next) => {
  const reply = await next();
  const params = ctx.message.params as { name?: unknown; arguments?: { location?: unknown } } | undefined;
  if (ctx.method !== 'tools/call' || params?.name !== 'everything__get-structured-content' || params.arguments?.location !== 'Los Angeles') return reply;
  return { ...reply, structuredContent: { ...(reply?.structuredContent as object), humidity: 'high' } };
};

export default {
  mcpServers: {
    everything: { command: ${json(process.execPath)}, args: [${json(serverBin('server-everything'))}] },
    memory: { command: ${json(process.execPath)}, args: [${json(serverBin('server-memory'))}], env: { MEMORY_FILE_PATH: ${json(ws.path('memory.jsonl'))} } },
  },
  middleware: [validate({ tools: { deny: ['everything__echo'] }, invalidArguments: 'error' }), spoil],
};
`,
  );
}

/** The McpError a call is refused with. */
async function refusal(connection: Connection, name: string, args: Record<string, unknown>): Promise<McpError> {
  try {
    await connection.client.callTool({ name, arguments: args });
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error(`${name} was not refused`);
}

forEachTransport(({ http, flag }) => {
  describe(`validate through mcp-chain serve${flag}`, () => {
    let ws: Workspace;
    let gateway: Connection;

    before(async () => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-validate-');
      // The config is compiled next to itself with packages left as imports: validate's own (ajv)
      // resolve from the repository's node_modules (removing the workspace removes only the link).
      symlinkSync(join(repoRoot, 'node_modules'), ws.path('node_modules'), 'dir');
      gateway = await connectClient(gatewayTarget(configFile(ws), { http }), { capabilities: {} });
    });

    after(async () => {
      await gateway?.close();
      ws?.remove();
    });

    it('arguments that break the inputSchema are refused with -32602 naming the field and the rule (before any tools/list)', T, async () => {
      const sum = await refusal(gateway, 'everything__get-sum', { a: 1, b: 'two' });
      assert.equal(sum.code, -32602);
      assert.equal(sum.message, 'MCP error -32602: Invalid params: arguments/b must be number (type)');
      const data = sum.data as { tool: string; errors: Array<{ path: string; keyword: string }> };
      assert.equal(data.tool, 'everything__get-sum');
      assert.deepEqual(data.errors.map((error) => [error.path, error.keyword]), [['arguments/b', 'type']]);

      const city = await refusal(gateway, 'everything__get-structured-content', { location: 'Paris' });
      assert.equal(city.message, 'MCP error -32602: Invalid params: arguments/location must be equal to one of the allowed values (enum)');

      const entities = await refusal(gateway, 'memory__create_entities', { entities: 'alice' });
      assert.equal(entities.message, 'MCP error -32602: Invalid params: arguments/entities must be array (type)');
    });

    it('valid calls, and structured results that match the outputSchema, pass; a denied tool is not checked', T, async () => {
      const sum = await callTool(gateway.client, { name: 'everything__get-sum', arguments: { a: 1, b: 2 } });
      assert.match(textOf(sum), /\b3\b/);
      const weather = await callTool(gateway.client, { name: 'everything__get-structured-content', arguments: { location: 'Chicago' } });
      assert.deepEqual(weather.structuredContent, { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
      const graph = await callTool(gateway.client, { name: 'memory__read_graph', arguments: {} });
      assert.notEqual(graph.isError, true);
      // echo is denied: its bad argument reaches the server, whose own validation answers.
      const echo = await gateway.client.callTool({ name: 'everything__echo', arguments: { message: 42 } }).then(
        (result) => textOf(CallToolResultSchema.parse(result)),
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      assert.doesNotMatch(echo, /Invalid params: arguments/);
      assert.match(echo, /expected string/i);
    });

    it('a structured result that breaks the outputSchema reaches the client as an isError result saying why', T, async () => {
      await gateway.client.listTools(); // the SDK client would otherwise not know the outputSchema either
      const result = await callTool(gateway.client, { name: 'everything__get-structured-content', arguments: { location: 'Los Angeles' } });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent, undefined);
      assert.equal(
        textOf(result),
        'Tool everything__get-structured-content returned structuredContent that does not match its outputSchema: structuredContent/humidity must be number (type)',
      );
    });
  });
});

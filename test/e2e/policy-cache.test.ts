// `cache` end to end: `mcp-chain serve` of a typed config file (the cache imported from the repo's
// src until the registry names it; a config in a temp dir cannot import 'mcp-chain' itself) in front of server-memory (the only server: its tools keep their names), driven by the official SDK client.
// read_graph is cacheable: a second read answers from memory and does not see an entity created
// in between; a tool not named is never cached.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { referenceEntry, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { gatewayTarget } from '../helpers/gateway.js';
import { connectClient, repoRoot, type Connection } from '../helpers/targets.js';

const T = { timeout: 30_000 };

describe('cache through mcp-chain serve in front of server-memory', () => {
  let ws: Workspace;
  let gateway: Connection;

  before(async () => {
    ws = workspace('mcp-chain-policy-cache-');
    const memory = referenceEntry('server-memory', [], { MEMORY_FILE_PATH: ws.path('memory.jsonl') });
    const config = ws.write(
      'mcp-chain.config.ts',
      [
        `import { cache } from ${JSON.stringify(`${repoRoot}/src/middleware/cache/index.ts`)};`,
        'export default {',
        `  mcpServers: { memory: ${JSON.stringify(memory)} },`,
        "  middleware: [cache({ tools: ['read_graph'], ttlMs: { tools: 600_000 } })],",
        '};',
        '',
      ].join('\n'),
    );
    gateway = await connectClient(gatewayTarget(config), { capabilities: {} });
  });

  after(async () => {
    await gateway?.close();
    ws?.remove();
  });

  it('a cacheable tool answers from memory; other tools still reach the server', T, async () => {
    const read = 'read_graph';
    const create = 'create_entities';
    const tools = await gateway.client.listTools();
    assert.ok(tools.tools.some((tool) => tool.name === read));
    assert.deepEqual(await gateway.client.listTools(), tools);

    const before = textOf(await callTool(gateway.client, { name: read, arguments: {} }));
    await callTool(gateway.client, { name: create, arguments: { entities: [{ name: 'cached', entityType: 'test', observations: ['x'] }] } });
    const after = textOf(await callTool(gateway.client, { name: read, arguments: {} }));
    assert.equal(after, before, 'the second read_graph came from memory');
    assert.doesNotMatch(after, /cached/);

    const searched = textOf(await callTool(gateway.client, { name: 'search_nodes', arguments: { query: 'cached' } }));
    assert.match(searched, /cached/, 'a tool not named goes to the server');
  });
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, everythingDirect, repoRoot, viaProxy, type Connection } from '../helpers/targets.js';

describe('mcp-chain run examples/company-policy.ts -- server-everything', () => {
  let conn: Connection;
  before(async () => {
    const target = viaProxy(everythingDirect(), ['run', join(repoRoot, 'examples', 'company-policy.ts')], 'company policy');
    conn = await connectClient(target, { env: { MCP_CHAIN_LOG_LEVEL: 'warn' } });
  });
  after(async () => {
    await conn.close();
  });

  test('the serverInfo exported as options replaces the server’s own', () => {
    assert.deepEqual(conn.client.getServerVersion(), { name: 'acme-gateway', version: '1.0.0' });
  });

  test('tools/list shows renamed and re-described tools, and not the denied ones', async () => {
    const { tools } = await conn.client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('acme_echo') && names.includes('acme_add'));
    assert.ok(!names.includes('echo') && !names.includes('get-sum') && !names.includes('get-env'));
    assert.ok(!names.some((n) => n.startsWith('trigger-')));
    assert.equal(tools.find((t) => t.name === 'acme_echo')?.description, 'ACME approved: repeats your message back.');
  });

  test('a renamed tool is called by its new name', async () => {
    assert.equal(textOf(await callTool(conn.client, { name: 'acme_add', arguments: { a: 2, b: 40 } })), 'The sum of 2 and 40 is 42.');
  });

  for (const hidden of ['get-env', 'echo', 'trigger-sampling-request']) {
    test(`calling ${hidden} (hidden or renamed away) is refused as an unknown tool, -32602`, async () => {
      await assert.rejects(conn.client.callTool({ name: hidden, arguments: {} }), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, -32602);
        assert.match(error.message, new RegExp(`Unknown tool: ${hidden}`));
        return true;
      });
    });
  }
});

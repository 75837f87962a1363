import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { answerTo, openSession, send } from '../helpers/http.js';
import { startHttpProxy, type HttpProxy } from '../helpers/http-proxy.js';
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

describe('mcp-chain run examples/team-gateway.ts --http: tools per caller identity', () => {
  const tokens = { ALICE_TOKEN: 'alice-token-1', BUILD_BOT_TOKEN: 'bot-token-2' };
  let proxy: HttpProxy;
  before(async () => {
    const server = everythingDirect();
    proxy = await startHttpProxy([
      'run', join(repoRoot, 'examples', 'team-gateway.ts'),
      '--http', '127.0.0.1:0', '--token-env', 'ALICE_TOKEN', '--token-env', 'BUILD_BOT_TOKEN',
      '--', server.command, ...server.args,
    ], tokens);
  });
  after(async () => {
    assert.equal(await proxy.stop(), 0);
  });

  const toolNames = async (token: string): Promise<{ headers: Record<string, string>; names: string[] }> => {
    const { headers } = await openSession(proxy.url, { headers: { authorization: `Bearer ${token}` } });
    const reply = await send(proxy.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers });
    const tools = answerTo(reply, 2)?.result?.tools as Array<{ name: string }>;
    return { headers, names: tools.map((t) => t.name) };
  };

  test('alice sees every tool; the build bot only echo and get-sum', async () => {
    const alice = await toolNames(tokens.ALICE_TOKEN);
    assert.ok(alice.names.includes('get-env') && alice.names.includes('echo'));
    const bot = await toolNames(tokens.BUILD_BOT_TOKEN);
    assert.deepEqual(bot.names.sort(), ['echo', 'get-sum']);
  });

  test('the bot calling a tool it may not use gets -32602 Unknown tool; one it may use works', async () => {
    const { headers } = await toolNames(tokens.BUILD_BOT_TOKEN);
    const denied = await send(proxy.url, { body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get-env', arguments: {} } }, headers });
    assert.deepEqual(answerTo(denied, 3)?.error, { code: -32602, message: 'Unknown tool: get-env' });
    const echo = await send(proxy.url, { body: { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } }, headers });
    assert.match(JSON.stringify(answerTo(echo, 4)?.result), /Echo: hi/);
  });

  test('no token: 401', async () => {
    assert.equal((await send(proxy.url, { body: { jsonrpc: '2.0', id: 1, method: 'ping' } })).status, 401);
  });
});

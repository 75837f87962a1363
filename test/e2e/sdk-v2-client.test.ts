// The second generation of the official SDK (the split `@modelcontextprotocol/client` package,
// which also speaks 2026-07-28) talks to server-everything through mcp-chain: it negotiates the
// newest version the chain serves and everything flows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { everythingEntry, proxyMain } from '../helpers/targets.js';

describe('the v2 SDK client through mcp-chain', () => {
  let transport: StdioClientTransport;
  let client: Client;

  before(async () => {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [proxyMain, '--log-level', 'warn', '--', process.execPath, everythingEntry(), 'stdio'],
      stderr: 'pipe',
    });
    client = new Client({ name: 'mcp-chain-e2e-v2', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client.close();
  });

  test('initializes through the chain and sees the upstream server and its capabilities', () => {
    assert.equal(client.getServerVersion()?.name, 'mcp-servers/everything');
    assert.ok(client.getServerCapabilities()?.tools);
  });

  test('lists and calls tools', async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'echo'));
    const result = await client.callTool({ name: 'echo', arguments: { message: 'from v2' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: from v2' }]);
  });

  test('receives progress for a long call', async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { onprogress: (p: { progress: number }) => void progress.push(p.progress) },
    );
    assert.ok(progress.length >= 2, `got ${progress.length} progress notifications`);
    assert.deepEqual([...progress].sort((a, b) => a - b), progress);
    assert.ok(Array.isArray(result.content));
  });
});

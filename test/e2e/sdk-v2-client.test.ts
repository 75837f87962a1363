// The second generation of the official SDK (the split `@modelcontextprotocol/client` package,
// which also speaks 2026-07-28) talks to server-everything through mcp-chain: it negotiates the
// newest version the chain serves and everything flows.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startHttpProxy } from '../helpers/http-proxy.js';
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

// A v2 client in auto mode probes with server/discover. The chain serves 2026-07-28 on both fronts
// (in front of a session-era server, through its bridge), so the probe succeeds and the client
// speaks the stateless era: it does not fall back to initialize.
describe('the v2 SDK client in auto mode (probing with server/discover) through mcp-chain', () => {
  const upstream = ['--', process.execPath, everythingEntry(), 'stdio'];

  async function connectedEra(transport: Transport): Promise<{ era: string | undefined; version: string | undefined; tools: number }> {
    const client = new Client({ name: 'mcp-chain-e2e-v2-auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      return { era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion(), tools: tools.length };
    } finally {
      await client.close();
    }
  }

  test('over stdio: the probe finds 2026-07-28, and calls work', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [proxyMain, '--log-level', 'warn', ...upstream], stderr: 'pipe' });
    const connected = await connectedEra(transport);
    assert.deepEqual({ era: connected.era, version: connected.version }, { era: 'modern', version: '2026-07-28' });
    assert.ok(connected.tools > 0);
  });

  test('over Streamable HTTP: the probe finds 2026-07-28, and calls work', async () => {
    const proxy = await startHttpProxy(['--http', '127.0.0.1:0', ...upstream]);
    try {
      const connected = await connectedEra(new StreamableHTTPClientTransport(new URL(proxy.url)));
      assert.deepEqual({ era: connected.era, version: connected.version }, { era: 'modern', version: '2026-07-28' });
      assert.ok(connected.tools > 0);
    } finally {
      await proxy.stop();
    }
  });
});

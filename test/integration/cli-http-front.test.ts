// `mcp-chain --http`: a real `node dist/cli/main.js` (build first) serving stdio servers on
// Streamable HTTP (and legacy SSE with --sse), one server process per session.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { openSession, send } from '../helpers/http.js';
import { startHttpProxy } from '../helpers/http-proxy.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { proxyMain, repoRoot } from '../helpers/targets.js';
import { processesMatching, processGone } from './_process.js';

const T = { timeout: 120_000 };
const upstream = join(repoRoot, 'bench', 'upstream.mjs');

/** Runs the CLI to its exit (for the cases that never serve). */
function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [proxyMain, ...args], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr });
    });
  });
}

describe('mcp-chain --http', () => {
  test('listens on 127.0.0.1 by default and announces its URL on stderr', T, async () => {
    const front = await startHttpProxy(['--http', '0', '--', process.execPath, upstream]);
    assert.match(front.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.equal(await front.stop(), 0);
  });

  test('the address is announced even at --log-level warn', T, async () => {
    const front = await startHttpProxy(['--http', '0', '--log-level', 'warn', '--', process.execPath, upstream]);
    assert.match(front.stderr(), /"level":40.*"msg":"listening"/);
    assert.equal(await front.stop(), 0);
  });

  test('usage mistakes exit 2 with a message', T, async () => {
    assert.match((await run(['--sse', '--', 'x'])).stderr, /--sse needs --http/);
    assert.equal((await run(['--sse', '--', 'x'])).code, 2);
    const bad = await run(['--http', 'nowhere', '--', 'x']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--http takes \[host:\]port/);
    const token = await run(['--http', '0', '--token-env', 'NOT_SET_ANYWHERE', '--', 'x']);
    assert.equal(token.code, 2);
    assert.match(token.stderr, /NOT_SET_ANYWHERE/);
  });

  test('--token-env requires that token: 401 without, a session with it', T, async () => {
    const front = await startHttpProxy(['--http', '127.0.0.1:0', '--token-env', 'GATEWAY_TOKEN', '--', process.execPath, upstream], { GATEWAY_TOKEN: 'tok-123' });
    try {
      const denied = await send(front.url, { body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
      assert.equal(denied.status, 401);
      const { headers } = await openSession(front.url, { headers: { authorization: 'Bearer tok-123' } });
      const reply = await send(front.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'in' } } }, headers });
      assert.deepEqual(reply.json, { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'in' }] } });
      assert.ok(!front.stderr().includes('tok-123'), 'the token never reaches the log');
    } finally {
      assert.equal(await front.stop(), 0);
    }
  });

  test('100 concurrent sessions, each with its own server process: no reply misrouted, no process left', T, async () => {
    const marker = `cli-http-100-${process.pid}`;
    const front = await startHttpProxy(['--http', '127.0.0.1:0', '--', process.execPath, upstream, marker]);
    const sessions = await Promise.all(Array.from({ length: 100 }, () => openSession(front.url)));
    assert.equal(new Set(sessions.map((s) => s.id)).size, 100);
    const servers = (): number[] => processesMatching(marker).filter((pid) => pid !== front.child.pid);
    assert.equal(servers().length, 100, 'one server process per session');
    // Every session calls echo several times at once, all sessions together.
    const replies = await Promise.all(sessions.flatMap((session, i) =>
      [1, 2, 3].map(async (n) => {
        const text = `session ${i} call ${n}`;
        const reply = await send(front.url, { body: { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'echo', arguments: { text } } }, headers: session.headers });
        return { n, text, reply };
      })));
    for (const { n, text, reply } of replies) {
      assert.deepEqual(reply.json, { jsonrpc: '2.0', id: n, result: { content: [{ type: 'text', text }] } });
    }
    // Half end their session: their processes go; the rest go when the server stops.
    await Promise.all(sessions.slice(0, 50).map((s) => send(front.url, { method: 'DELETE', headers: s.headers })));
    const deadline = Date.now() + 30_000;
    while (servers().length > 50 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(servers().length, 50);
    const pids = processesMatching(marker);
    assert.equal(await front.stop(), 0);
    await Promise.all(pids.map((pid) => processGone(pid)));
    assert.deepEqual(processesMatching(marker), []);
  });

  test('--sse also serves the legacy HTTP+SSE transport to an SDK SSE client', T, async () => {
    const front = await startHttpProxy(['--http', '127.0.0.1:0', '--sse', '--', process.execPath, upstream]);
    const client = new Client({ name: 'legacy', version: '1' });
    try {
      await client.connect(new SSEClientTransport(new URL('/sse', front.url)));
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'echo'));
      assert.equal(textOf(await callTool(client, { name: 'echo', arguments: { text: 'old client' } })), 'old client');
    } finally {
      await client.close();
      assert.equal(await front.stop(), 0);
    }
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import { serveHttp, type HttpFront } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { shared, type SharedUpstream } from '../../src/upstream/shared/shared.js';
import { stdio } from '../../src/upstream/stdio.js';
import { openSession, openStream, send, type OpenStream } from '../helpers/http.js';
import { fixtureCommand, fixturePath, proxyMain } from '../helpers/targets.js';
import { processAlive, processesMatching, processGone } from './_process.js';

interface Client {
  headers: Record<string, string>;
  /** The session's standalone SSE stream (GET), where unrelated notifications arrive. */
  stream: OpenStream;
}

const SESSIONS = 4;
const CALLS = 20;

function call(id: number | string, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } };
}

/** The text of the one tools/call result in a reply. */
function textOf(message: unknown): string {
  const result = (message as { result?: { content?: Array<{ text?: string }> } }).result;
  return result?.content?.[0]?.text ?? `no result: ${JSON.stringify(message)}`;
}

async function callTool(url: string, client: Client, id: number | string, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const reply = await send(url, { body: call(id, name, args), headers: client.headers });
  assert.equal(reply.messages.length, 1);
  assert.equal((reply.messages[0] as { id: unknown }).id, id);
  return textOf(reply.messages[0]);
}

/** The next JSON-RPC message on a stream (priming events skipped). */
async function nextMessage(stream: OpenStream): Promise<{ method?: string; params?: Record<string, unknown>; id?: unknown }> {
  for (;;) {
    const event = await stream.next();
    if (event.data !== '') return JSON.parse(event.data) as { method?: string; params?: Record<string, unknown> };
  }
}

describe('shared upstream behind the HTTP front: many sessions, one stdio server', () => {
  let upstream: SharedUpstream;
  let front: HttpFront;
  const clients: Client[] = [];
  let pid = 0;

  before(async () => {
    upstream = shared(stdio({ ...fixtureCommand('multiplex'), name: 'multiplex', shutdownGraceMs: 500 }), { log: silentLogger });
    front = await serveHttp(chain().to(upstream), { port: 0, log: silentLogger });
    for (let i = 0; i < SESSIONS; i++) {
      const { headers } = await openSession(front.url);
      const stream = await openStream(front.url, { headers });
      assert.equal(stream.status, 200);
      clients.push({ headers, stream });
    }
  });

  after(async () => {
    for (const client of clients) client.stream.close();
    await front.close();
    await upstream.close();
  });

  test('concurrent calls from every session each get their own answer; there is one server process', async () => {
    const replies = await Promise.all(clients.flatMap((client, s) =>
      Array.from({ length: CALLS }, (_, i) => callTool(front.url, client, i, 'echo', { text: `session ${s} call ${i}` }).then((text) => ({ s, i, text })))));
    for (const { s, i, text } of replies) assert.equal(text, `session ${s} call ${i}`);

    const pids = await Promise.all(clients.map((client, s) => callTool(front.url, client, `pid-${s}`, 'pid')));
    assert.equal(new Set(pids).size, 1);
    pid = Number(pids[0]);
    assert.ok(processAlive(pid));
    assert.deepEqual(processesMatching(fixturePath('multiplex')), [pid]);
  });

  test('resources/updated reaches only the subscribers (the server is subscribed once), list_changed reaches all', async () => {
    const [c0, c1, c2, c3] = clients;
    assert.ok(c0 && c1 && c2 && c3);
    for (const [client, uri] of [[c0, 'multiplex://a'], [c1, 'multiplex://a'], [c2, 'multiplex://b']] as const) {
      const reply = await send(front.url, { body: { jsonrpc: '2.0', id: 'sub', method: 'resources/subscribe', params: { uri } }, headers: client.headers });
      assert.deepEqual((reply.messages[0] as { result: unknown }).result, {});
    }
    assert.equal(await callTool(front.url, c3, 'subs', 'subscriptions'), JSON.stringify(['subscribe multiplex://a', 'subscribe multiplex://b']));

    assert.equal(await callTool(front.url, c3, 't1', 'touch', { uri: 'multiplex://a' }), 'touched multiplex://a');
    assert.equal(await callTool(front.url, c3, 'add', 'add-tool', { name: 'late' }), 'added late');
    // What each session's stream carries, in order: the update only where subscribed, then the list change.
    for (const client of [c0, c1]) {
      assert.deepEqual(await nextMessage(client.stream), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'multiplex://a' } });
    }
    for (const client of clients) {
      assert.deepEqual(await nextMessage(client.stream), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    }
  });

  test('a server→client request that cannot be told apart (two sessions busy) is refused, not guessed', async () => {
    const [c0, c1] = clients;
    assert.ok(c0 && c1);
    const blocked = await openStream(front.url, { method: 'POST', body: call('b', 'block', {}, { progressToken: 'blocking' }), headers: c0.headers });
    const progress = await nextMessage(blocked);
    assert.equal(progress.method, 'notifications/progress');
    const answer = await callTool(front.url, c1, 'ask', 'ask-roots');
    assert.match(answer, /^refused: -32603 .*cannot tell which client session roots\/list is for \(2 of 4 sessions have requests in flight\)/);
    const done = await nextMessage(blocked);
    assert.equal(textOf(done), 'unblocked');
    blocked.close();
  });

  test('after close, no server process is left', async () => {
    assert.ok(pid > 0);
    for (const client of clients) client.stream.close();
    await front.close();
    await upstream.close();
    await processGone(pid);
    assert.deepEqual(processesMatching(fixturePath('multiplex')), []);
  });
});

describe('mcp-chain --http --shared', () => {
  test('every HTTP session talks to the one server process; it is gone after SIGTERM', { timeout: 30_000 }, async () => {
    const { command, args } = fixtureCommand('multiplex');
    const cli = spawn(process.execPath, [proxyMain, '--http', '127.0.0.1:0', '--shared', '--', command, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        cli.stderr.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /^(?=.*"msg":"listening").*"url":"([^"]+)"/m.exec(seen);
          if (match?.[1]) resolve(match[1]);
        });
        cli.once('exit', () => reject(new Error(`the CLI exited: ${seen}`)));
      });
      const pids = await Promise.all([0, 1, 2].map(async (s) => {
        const { headers } = await openSession(url);
        const reply = await send(url, { body: call(s, 'pid'), headers });
        return textOf(reply.messages[0]);
      }));
      assert.equal(new Set(pids).size, 1);
      const pid = Number(pids[0]);
      // The CLI's own command line names the fixture too.
      assert.deepEqual(processesMatching(fixturePath('multiplex')).filter((p) => p !== cli.pid), [pid]);
      cli.kill('SIGTERM');
      assert.equal(await exited, 0);
      await processGone(pid);
    } finally {
      if (cli.exitCode === null && cli.signalCode === null) cli.kill('SIGKILL');
    }
  });
});

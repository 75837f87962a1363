// UpstreamConnection.onStatus against real servers: a stdio server that crashes and is restarted,
// an HTTP server that goes away and comes back (with a new session, or with the same one), and a
// session the server forgot. Events are seen through a Chain, as an owner of a chain sees them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import type { Upstream } from '../../src/core/upstream.js';
import type { UpstreamStatus } from '../../src/core/upstream-status.js';
import { harness } from '../../src/testing/harness.js';
import { http } from '../../src/upstream/http/http.js';
import { stdio } from '../../src/upstream/stdio.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/http/mcp-http-server.js';
import { fixtureCommand } from '../helpers/targets.js';
import { CaptureLogger } from './_capture-logger.js';

const CLIENT = { name: 'status-test-client', version: '1.0.0' };
/** A safety net only: every wait below ends on an event long before this. */
const EVENT_DEADLINE_MS = 15_000;

function texts(result: Record<string, unknown>): string[] {
  return (result.content as Array<{ text: string }>).map((c) => c.text);
}

/**
 * `upstream` (a Chain here) with the status events of the connection it opens recorded: what the
 * owner of that connection is told, in order.
 */
class Watched implements Upstream {
  readonly events: UpstreamStatus[] = [];
  readonly #upstream: Upstream;
  readonly #waiters: Array<() => void> = [];

  constructor(upstream: Upstream) {
    this.#upstream = upstream;
  }

  connect(...args: Parameters<Upstream['connect']>): ReturnType<Upstream['connect']> {
    const connection = this.#upstream.connect(...args);
    assert.ok(connection.onStatus, 'the connection can report its status');
    connection.onStatus((event) => {
      this.events.push(event);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    return connection;
  }

  close(): Promise<void> {
    return this.#upstream.close?.() ?? Promise.resolve();
  }

  /** Resolves once `count` events were told; fails with what was seen if they do not come. */
  async told(count: number): Promise<UpstreamStatus[]> {
    const deadline = Date.now() + EVENT_DEADLINE_MS;
    while (this.events.length < count) {
      const left = deadline - Date.now();
      assert.ok(left > 0, `waited for ${count} status events, got ${JSON.stringify(this.events)}`);
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
    return this.events;
  }
}

describe('upstream status: stdio', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-status-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a server that crashes is down (with its exit code), and up, restarted, once the next call restarted and re-initialized it', async () => {
    const log = new CaptureLogger();
    const upstream = new Watched(chain().to(stdio({
      ...fixtureCommand('crashy'),
      name: 'crashy',
      env: { CRASHY_STATE_FILE: join(dir, 'crashy-state') },
      restart: { initialDelayMs: 10 },
      shutdownGraceMs: 500,
    })));
    const h = await harness(upstream, { log });
    assert.ok(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'one' } })).includes('start=1'));
    assert.deepEqual(upstream.events, [], 'starting is not an event');

    const crashed = await h.call('tools/call', { name: 'crash', arguments: {} });
    assert.equal((crashed.error as { code: number }).code, -32000);
    assert.deepEqual(await upstream.told(1), [{ state: 'down', reason: 'exited (code 3)' }]);

    const again = texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'two' } }));
    assert.deepEqual(again.slice(0, 2), ['two', 'start=2']);
    assert.deepEqual(await upstream.told(2), [
      { state: 'down', reason: 'exited (code 3)' },
      { state: 'up', restarted: true },
    ]);
    // Re-initialized before it was announced: the client's initialize reached the new server.
    await log.waitFor(/^start=2 got initialize$/);

    await h.close();
    assert.equal(upstream.events.length, 2, 'closing is not an event');
  });
});

describe('upstream status: HTTP against the SDK server', () => {
  let fixture: HttpFixture;
  before(async () => {
    fixture = await startHttpFixture();
  });
  after(() => fixture.close());

  async function open(upstream: Upstream): Promise<Awaited<ReturnType<typeof harness>>> {
    const h = await harness(upstream, { initialize: false });
    await h.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT });
    h.notify('notifications/initialized');
    return h;
  }

  test('a server that stops is down (unreachable); once it is back with no sessions, the next call re-initializes and it is up, restarted', async () => {
    const upstream = new Watched(chain().to(http({ url: fixture.url })));
    const h = await open(upstream);
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'up' } })), ['up']);
    assert.deepEqual(upstream.events, []);

    await fixture.stop();
    const failed = await h.call('tools/call', { name: 'echo', arguments: { text: 'down' } });
    assert.equal((failed.error as { code: number }).code, -32000);
    const [down] = await upstream.told(1);
    assert.ok(down?.state === 'down');
    assert.match(down.reason, /^is unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);

    await fixture.restart();
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'back' } })), ['back']);
    const events = await upstream.told(2);
    assert.deepEqual(events.slice(1), [{ state: 'up', restarted: true }]);
    await h.close();
    await upstream.close();
    assert.equal(upstream.events.length, 2);
  });

  test('a session the server forgot (404) is down until it is initialized again, then up, restarted', async () => {
    const upstream = new Watched(chain().to(http({ url: fixture.url })));
    const h = await open(upstream);
    await fixture.expireSessions();
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'again' } })), ['again']);
    assert.deepEqual(await upstream.told(2), [
      { state: 'down', reason: 'forgot the session (HTTP 404)' },
      { state: 'up', restarted: true },
    ]);
    await h.close();
    await upstream.close();
  });
});

describe('upstream status: HTTP, a server that comes back with the session it had', () => {
  // A bare Streamable HTTP server (JSON answers, no GET stream) whose session outlives a restart
  // of its listener: what a server behind a flaky network looks like from here.
  let server: Server;
  let port: number;
  const SESSION = 'kept-session';
  before(async () => {
    server = createServer((req, res) => answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => stopListening());

  function answer(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const message = JSON.parse(body) as { id?: number | string; method?: string; params?: { arguments?: { text?: string } } };
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const result = message.method === 'initialize'
        ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'kept', version: '1' } }
        : { content: [{ type: 'text', text: String(message.params?.arguments?.text) }] };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SESSION }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  }

  function stopListening(): Promise<void> {
    return new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  test('unreachable is down; the next call that gets through is up, not restarted', async () => {
    const upstream = new Watched(chain().to(http({ url: `http://127.0.0.1:${port}/mcp` })));
    const h = await harness(upstream, { initialize: false });
    await h.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT });
    h.notify('notifications/initialized');
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'one' } })), ['one']);

    await stopListening();
    const failed = await h.call('tools/call', { name: 'echo', arguments: { text: 'lost' } });
    assert.equal((failed.error as { code: number }).code, -32000);
    assert.equal((await upstream.told(1))[0]?.state, 'down');

    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'two' } })), ['two']);
    assert.deepEqual((await upstream.told(2))[1], { state: 'up', restarted: false });
    await h.close();
    await upstream.close();
    assert.equal(upstream.events.length, 2);
  });
});

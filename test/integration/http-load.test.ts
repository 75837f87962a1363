// The HTTP front under sustained load from the official SDK client (Node's fetch), short form: many
// sessions with calls in flight all the time, sessions ending and starting, every failure counted
// (none allowed), and the TCP connections of the front's port watched on both sides. The long
// form is `npm run bench:load` (bench/load-sessions.ts). Linux only: sockets are read from /proc.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { newProgress, openDescriptors, openSockets, runSdkLoad, tcpSockets, type PortSockets } from '../../bench/sdk-load.js';
import { chain } from '../../src/chain/chain.js';
import { serveHttp } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { local } from '../../src/upstream/local.js';
import { openSession } from '../helpers/http.js';
import { startHttpProxy } from '../helpers/http-proxy.js';
import { repoRoot } from '../helpers/targets.js';

const SESSIONS = 12;
const INFLIGHT = 8;
const CALLS = 2000;
/** Sessions end (DELETE, close) and are replaced, so opening and closing is under load too. */
const CALLS_PER_SESSION = 100;
/** The front's cap on idle connections (connection-policy.ts), beyond which responses say `Connection: close`. */
const MAX_IDLE = 1024;

/** Resolves once `done()` holds; a bounded wait that fails with what it was waiting for. */
async function until(what: string, done: () => boolean, describeState: () => string, safetyMs = 20_000): Promise<void> {
  const deadline = Date.now() + safetyMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${safetyMs} ms: ${describeState()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('HTTP front under load from the official SDK client', { skip: !existsSync('/proc/net/tcp') && 'needs /proc/net/tcp' }, () => {
  test('the front keeps an idle connection longer than the Keep-Alive hint it gives clients', async () => {
    const front = await serveHttp(chain().to(local({ tools: [] })), { port: 0, log: silentLogger });
    try {
      const response = await fetch(front.url, { method: 'GET' });
      await response.body?.cancel();
      const hint = /timeout=(\d+)/.exec(response.headers.get('keep-alive') ?? '');
      assert.ok(hint?.[1], `a Keep-Alive hint: ${response.headers.get('keep-alive')}`);
      // Node's fetch keeps an idle connection for the hint minus 2 s, and a busy client's timers
      // run late: closing at the hint raced requests already sent ("other side closed").
      assert.ok(front.server.keepAliveTimeout >= Number(hint[1]) * 1000 + 30_000,
        `hint ${hint[1]} s, server keeps idle connections ${front.server.keepAliveTimeout} ms`);
    } finally {
      await front.close();
    }
  });

  test(`${SESSIONS} sessions × ${INFLIGHT} calls in flight, ${CALLS} calls: no failure; sockets bounded on both sides and none left after the clients close`, async () => {
    const proxy = await startHttpProxy(['--http', '127.0.0.1:0', '--shared', '--log-level', 'warn', '--', process.execPath, join(repoRoot, 'bench/upstream.mjs')]);
    const port = Number(new URL(proxy.url).port);
    const pid = proxy.child.pid ?? 0;
    try {
      // The baseline: the proxy with its listening socket and its (shared) upstream started by a
      // first session, less the connection that session came on.
      await openSession(proxy.url);
      const state = (): PortSockets => tcpSockets(port);
      const show = (): string => JSON.stringify({ sockets: state(), proxyFds: openDescriptors(pid) });
      const baselineFds = openDescriptors(pid) - openSockets(state().server);

      let peakServer = 0;
      let peakClient = 0;
      const progress = newProgress();
      const result = await runSdkLoad({
        url: proxy.url,
        sessions: SESSIONS,
        inflight: INFLIGHT,
        maxCalls: CALLS,
        callsPerSession: CALLS_PER_SESSION,
        onSettled: (p) => {
          if ((p.calls + p.failures) % 50 !== 0) return;
          const sockets = state();
          peakServer = Math.max(peakServer, openSockets(sockets.server));
          peakClient = Math.max(peakClient, openSockets(sockets.client));
        },
      }, progress);

      assert.deepEqual(Object.fromEntries(result.failuresByMessage), {}, 'no call failed');
      assert.equal(result.calls, CALLS);
      assert.ok(result.sessionsOpened > SESSIONS, `sessions were replaced under load (${result.sessionsOpened} opened)`);
      // Busy connections: at most one per request in flight (calls, and each session's GET stream);
      // idle ones: the front's cap, and the client drops its own after the Keep-Alive hint.
      const bound = 2 * SESSIONS * (INFLIGHT + 1) + MAX_IDLE;
      assert.ok(peakServer > 0 && peakServer <= bound, `server side peaked at ${peakServer} connections (bound ${bound})`);
      assert.ok(peakClient > 0 && peakClient <= bound, `client side peaked at ${peakClient} connections (bound ${bound})`);

      // The clients are closed: their idle connections end by the hint (the client closes them),
      // and the front is back to its baseline of descriptors.
      await until('every connection to close on both sides',
        () => openSockets(state().server) === 0 && openSockets(state().client) === 0, show);
      await until(`the proxy's descriptors to return to ${baselineFds}`, () => openDescriptors(pid) <= baselineFds, show);
    } finally {
      await proxy.stop();
    }
  });
});

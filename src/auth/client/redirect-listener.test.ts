import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { describe, test } from 'node:test';
import { ChainError } from '../../errors/chain-error.js';
import { listenForRedirect } from './redirect-listener.js';

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One GET, on a connection of its own. */
function get(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether `promise` is still pending once every callback already due has run. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const result = await Promise.race([promise.then(() => 'settled', () => 'settled'), new Promise((resolve) => setImmediate(() => resolve(marker)))]);
  return result === marker;
}

const ipv6 = await new Promise<boolean>((resolve) => {
  const server = createServer();
  server.once('error', () => resolve(false));
  server.listen(0, '::1', () => server.close(() => resolve(true)));
});

describe('listenForRedirect', () => {
  test('listens on a free loopback port and settles with the redirect of the login (code and state), answering a page that never shows the code', async () => {
    const listener = await listenForRedirect({ expectedState: 'state-1' });
    assert.match(listener.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.notEqual(new URL(listener.redirectUri).port, '0');
    const answer = await get(`${listener.redirectUri}?code=CODE-SECRET&state=state-1&iss=https%3A%2F%2Fas.example`);
    assert.equal(answer.status, 200);
    assert.match(answer.body, /Logged in/);
    assert.ok(!answer.body.includes('CODE-SECRET'));
    assert.equal(answer.headers['cache-control'], 'no-store');
    const params = await listener.callback;
    assert.equal(params.get('code'), 'CODE-SECRET');
    assert.equal(params.get('iss'), 'https://as.example');
    await listener.close();
    await assert.rejects(get(`${listener.redirectUri}?code=x&state=state-1`), /ECONNREFUSED/, 'closed after the first valid redirect');
  });

  test('a request with the wrong state, no state, another path or neither code nor error gets 400 and does not cancel the login', async () => {
    const listener = await listenForRedirect({ expectedState: 'the-state' });
    const base = listener.redirectUri;
    for (const url of [`${base}?code=x&state=other`, `${base}?code=x`, `${base}?code=x&state=the-stat`, new URL('/favicon.ico?state=the-state&code=x', base).href, `${base}?state=the-state`]) {
      const answer = await get(url);
      assert.equal(answer.status, 400, url);
      assert.equal(await pending(listener.callback), true, url);
    }
    const raw = connect(Number(new URL(base).port), '127.0.0.1');
    raw.on('error', () => undefined);
    raw.end('GET http://[/callback HTTP/1.1\r\nHost: x\r\n\r\n');
    let reply = '';
    raw.setEncoding('utf8').on('data', (chunk: string) => (reply += chunk));
    await new Promise((resolve) => raw.once('close', resolve));
    assert.match(reply, /^HTTP\/1\.1 400/, 'a request target that is not a URL');
    assert.equal(await pending(listener.callback), true);
    const forged = await get(`${base}?error=access_denied&state=forged`);
    assert.equal(forged.status, 400);
    assert.equal(await pending(listener.callback), true);
    assert.equal((await get(`${base}?code=real&state=the-state`)).status, 200);
    assert.equal((await listener.callback).get('code'), 'real');
    await listener.close();
  });

  test('an error redirect with the right state settles with its params; the page shows the error HTML-escaped', async () => {
    const listener = await listenForRedirect({ expectedState: 's' });
    const answer = await get(`${listener.redirectUri}?error=access_denied&error_description=${encodeURIComponent('<script>alert(1)</script>')}&state=s`);
    assert.match(answer.body, /Login failed/);
    assert.match(answer.body, /access_denied: &#60;script&#62;alert\(1\)&#60;\/script&#62;/);
    assert.ok(!answer.body.includes('<script>'));
    const params = await listener.callback;
    assert.equal(params.get('error'), 'access_denied');
    await listener.close();
  });

  test('a redirect URI that is not loopback http is refused at once', async () => {
    for (const uri of ['https://127.0.0.1:0/callback', 'http://example.com:0/callback', 'http://0.0.0.0:0/callback', 'http://192.168.1.2:0/callback', 'http://127.0.0.2:0/x', 'http://127.0.0.1:0/callback?x=1', 'not a url']) {
      await assert.rejects(listenForRedirect({ redirectUri: uri, expectedState: 's' }), (error: unknown) => error instanceof ChainError && /loopback address/.test(error.message), uri);
    }
  });

  test('a given port and path are used; a port that is taken is a ChainError naming it', async () => {
    const first = await listenForRedirect({ redirectUri: 'http://127.0.0.1:0/oauth/done', expectedState: 's' });
    const port = new URL(first.redirectUri).port;
    await first.close();
    const listener = await listenForRedirect({ redirectUri: `http://127.0.0.1:${port}/oauth/done`, expectedState: 's' });
    assert.equal(listener.redirectUri, `http://127.0.0.1:${port}/oauth/done`);
    await assert.rejects(listenForRedirect({ redirectUri: listener.redirectUri, expectedState: 's' }), (error: unknown) => error instanceof ChainError && error.message.includes(`127.0.0.1:${port}`) && /EADDRINUSE/.test(error.message));
    assert.equal((await get(`${listener.redirectUri}?code=c&state=s`)).status, 200);
    await listener.callback;
    await listener.close();
  });

  test('localhost listens on 127.0.0.1 (and ::1 when there is one) and keeps the name in the redirect URI', async () => {
    const listener = await listenForRedirect({ redirectUri: 'http://localhost:0/callback', expectedState: 's' });
    assert.match(listener.redirectUri, /^http:\/\/localhost:\d+\/callback$/);
    const port = new URL(listener.redirectUri).port;
    if (ipv6) assert.equal((await get(`http://[::1]:${port}/callback?state=wrong`)).status, 400);
    assert.equal((await get(`http://127.0.0.1:${port}/callback?code=c&state=s`)).status, 200);
    await listener.callback;
    await listener.close();
  });

  test('[::1] is loopback too', { skip: !ipv6 && 'no IPv6 loopback here' }, async () => {
    const listener = await listenForRedirect({ redirectUri: 'http://[::1]:0/callback', expectedState: 's' });
    assert.match(listener.redirectUri, /^http:\/\/\[::1\]:\d+\/callback$/);
    assert.equal((await get(`${listener.redirectUri}?code=c&state=s`)).status, 200);
    await listener.callback;
    await listener.close();
  });

  test('the wait is bounded: the callback rejects when the time is up, and the port is closed', async () => {
    const listener = await listenForRedirect({ expectedState: 's', timeoutMs: 20 });
    await assert.rejects(listener.callback, /no login redirect within/);
    await listener.close();
    await assert.rejects(get(`${listener.redirectUri}?code=c&state=s`), /ECONNREFUSED/);
  });

  test('an abort rejects the callback with the reason; an aborted signal refuses at once', async () => {
    const controller = new AbortController();
    const listener = await listenForRedirect({ expectedState: 's', signal: controller.signal });
    controller.abort(new Error('user gave up'));
    await assert.rejects(listener.callback, /user gave up/);
    await listener.close();
    await assert.rejects(listenForRedirect({ expectedState: 's', signal: AbortSignal.abort(new Error('already')) }), /already/);
  });

  test('close() rejects a pending callback and closes open connections too (idle, or a request half sent): nothing is left', async () => {
    const listener = await listenForRedirect({ expectedState: 's' });
    const { port } = new URL(listener.redirectUri);
    const open = async (data?: string): Promise<{ closed: Promise<void> }> => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      if (data !== undefined) socket.write(data);
      return { closed: new Promise<void>((resolve) => socket.once('close', () => resolve())) };
    };
    const idle = await open();
    const half = await open('GET /callback?code=c&state=s HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await listener.close();
    await Promise.all([idle.closed, half.closed]);
    await assert.rejects(listener.callback, /closed/);
    await listener.close(); // twice is fine
  });
});

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ChainError } from '../../errors/chain-error.js';
import { deliverRedirect, expectRedirect, routesRedirect, serveRedirects } from './redirect-router.js';

/** Whether `promise` is still pending once every callback already due has run. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const result = await Promise.race([promise.then(() => 'settled', () => 'settled'), new Promise((resolve) => setImmediate(() => resolve(marker)))]);
  return result === marker;
}

const CALLBACK = 'https://mcp.example.com/oauth/callback';
const at = (query: string, path = '/oauth/callback'): URL => new URL(`http://front.invalid${path}?${query}`);

describe('redirect router', () => {
  let stopServing: () => void = () => undefined;
  beforeEach(() => {
    stopServing = serveRedirects(43_210);
  });
  afterEach(() => stopServing());

  test('a login waits on the path of its redirect URI; the redirect with its state settles it, the page never shows the code', async () => {
    const listener = expectRedirect({ redirectUri: CALLBACK, expectedState: 'state-1' });
    assert.equal(listener.redirectUri, CALLBACK);
    const page = deliverRedirect(at('code=CODE-SECRET&state=state-1&iss=https%3A%2F%2Fas.example'));
    assert.equal(page?.status, 200);
    assert.match(page.html, /Logged in/);
    assert.ok(!page.html.includes('CODE-SECRET'));
    const params = await listener.callback;
    assert.equal(params.get('code'), 'CODE-SECRET');
    assert.equal(params.get('iss'), 'https://as.example');
    assert.equal(deliverRedirect(at('code=again&state=state-1')), undefined, 'one use per state: nothing waits there any more');
  });

  test('no login waiting on a path: undefined (the front answers as without logins)', () => {
    assert.equal(deliverRedirect(at('code=x&state=y')), undefined);
    const listener = expectRedirect({ redirectUri: CALLBACK, expectedState: 's' });
    assert.equal(deliverRedirect(at('code=x&state=s', '/other')), undefined);
    void listener.close();
  });

  test('a wrong or missing state, or neither code nor error, is 400 and the login goes on waiting', async () => {
    const listener = expectRedirect({ redirectUri: CALLBACK, expectedState: 'the-state' });
    for (const query of ['code=x&state=other', 'code=x', 'code=x&state=the-stat', 'state=the-state']) {
      const page = deliverRedirect(at(query));
      assert.equal(page?.status, 400, query);
    }
    assert.equal(await pending(listener.callback), true);
    assert.equal(deliverRedirect(at('code=good&state=the-state'))?.status, 200);
    assert.equal((await listener.callback).get('code'), 'good');
  });

  test('two logins on one path (two users): each redirect settles its own', async () => {
    const alice = expectRedirect({ redirectUri: CALLBACK, expectedState: 'alice-state' });
    const bob = expectRedirect({ redirectUri: CALLBACK, expectedState: 'bob-state' });
    assert.equal(deliverRedirect(at('code=for-bob&state=bob-state'))?.status, 200);
    assert.equal((await bob.callback).get('code'), 'for-bob');
    assert.equal(await pending(alice.callback), true);
    assert.equal(deliverRedirect(at('code=for-alice&state=alice-state'))?.status, 200);
    assert.equal((await alice.callback).get('code'), 'for-alice');
  });

  test('an error redirect (access_denied) settles with its params; its page is HTML-escaped', async () => {
    const listener = expectRedirect({ redirectUri: CALLBACK, expectedState: 's' });
    const page = deliverRedirect(at(`error=access_denied&error_description=${encodeURIComponent('<script>alert(1)</script>')}&state=s`));
    assert.equal(page?.status, 200);
    assert.ok(!page.html.includes('<script>'));
    assert.match(page.html, /&#60;script&#62;/);
    assert.equal((await listener.callback).get('error'), 'access_denied');
  });

  test('time up, abort and close reject the login and free its state', async () => {
    const timed = expectRedirect({ redirectUri: CALLBACK, expectedState: 't', timeoutMs: 1 });
    await assert.rejects(timed.callback, /no login redirect within/);
    const controller = new AbortController();
    const aborted = expectRedirect({ redirectUri: CALLBACK, expectedState: 'a', signal: controller.signal });
    controller.abort(new Error('gone'));
    await assert.rejects(aborted.callback, /gone/);
    const closed = expectRedirect({ redirectUri: CALLBACK, expectedState: 'c' });
    await closed.close();
    await assert.rejects(closed.callback, /closed/);
    assert.equal(deliverRedirect(at('code=x&state=c')), undefined);
  });

  test('a second login with the same state on the same path is refused', async () => {
    const first = expectRedirect({ redirectUri: CALLBACK, expectedState: 'same' });
    assert.throws(() => expectRedirect({ redirectUri: CALLBACK, expectedState: 'same' }), /already waits/);
    await first.close();
  });

  test('refused at once: not https nor loopback http, a query or fragment, and no HTTP front in this process', () => {
    for (const redirectUri of ['http://mcp.example.com/cb', 'https://mcp.example.com/cb?x=1', 'https://mcp.example.com/cb#f', 'https://u:p@mcp.example.com/cb', 'not a url']) {
      assert.throws(() => expectRedirect({ redirectUri, expectedState: 's' }), (error: unknown) => error instanceof ChainError && error.code === 'CONFIG', redirectUri);
    }
    stopServing();
    assert.throws(() => expectRedirect({ redirectUri: CALLBACK, expectedState: 's' }), /serves none/);
  });

  test('routesRedirect: a URI that is not loopback, or loopback on the port of a front of this process', () => {
    assert.equal(routesRedirect(CALLBACK), true);
    assert.equal(routesRedirect('http://127.0.0.1:43210/oauth/callback'), true);
    assert.equal(routesRedirect('http://localhost:43210/oauth/callback'), true);
    assert.equal(routesRedirect('http://127.0.0.1:43211/callback'), false, 'another port: a loopback listener of its own');
    assert.equal(routesRedirect('http://127.0.0.1:0/callback'), false);
    stopServing();
    assert.equal(routesRedirect('http://127.0.0.1:43210/oauth/callback'), false, 'the front stopped');
  });
});

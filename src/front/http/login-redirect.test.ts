import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { expectRedirect, routesRedirect } from '../../auth/client/redirect-router.js';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { local } from '../../upstream/local.js';
import { serveHttp } from './serve-http.js';

/** One request with no token, on a connection of its own; `host` overrides the Host header. */
function call(url: string, method = 'GET', host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, ...(host === undefined ? {} : { headers: { host } }) }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the HTTP front answers the login redirects of remote servers', () => {
  test('with static tokens: a GET on the path a login waits on is answered without a token; other paths, other methods and no login waiting are 404; the MCP path still needs its token', async () => {
    const front = await serveHttp(chain().to(local({})), { port: 0, auth: { tokens: [{ id: 'team', token: 'team-token-1234567890' }] }, log: silentLogger });
    const origin = new URL(front.url).origin;
    const redirectUri = `${origin}/oauth/callback`;
    try {
      assert.equal(routesRedirect(redirectUri), true, 'a loopback redirect URI on the front\'s port waits through the front');
      assert.equal((await call(`${redirectUri}?code=c&state=s`)).status, 404, 'no login waits');
      const login = expectRedirect({ redirectUri, expectedState: 'the-state' });
      assert.equal((await call(`${redirectUri}?code=c&state=s`, 'POST')).status, 404, 'only GET');
      assert.equal((await call(`${origin}/elsewhere?code=c&state=the-state`)).status, 404);
      assert.equal((await call(`${redirectUri}?code=c&state=the-state`, 'GET', 'evil.example')).status, 403, 'the Host check comes first');
      const wrong = await call(`${redirectUri}?code=c&state=wrong`);
      assert.equal(wrong.status, 400);
      const page = await call(`${redirectUri}?code=CODE-SECRET&state=the-state`);
      assert.equal(page.status, 200);
      assert.match(page.body, /Logged in/);
      assert.ok(!page.body.includes('CODE-SECRET'));
      assert.equal((await login.callback).get('code'), 'CODE-SECRET');
      assert.equal((await call(front.url, 'POST')).status, 401, 'the MCP endpoint is not opened by it');
    } finally {
      await front.close();
    }
    assert.equal(routesRedirect(redirectUri), false, 'a closed front no longer takes redirects');
  });
});

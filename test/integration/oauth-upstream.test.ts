// The HTTP upstream in front of a remote MCP server that wants OAuth (the official SDK's
// requireBearerAuth, tokens of oidc-provider checked against its JWKS and audience), in-process:
// an UpstreamAuth of the test's own (client credentials) shows the transport's side of the
// protocol — no token, the server's 401 challenge, a token, the calls; an expired token refused
// and replaced — against a real resource server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Principal, UpstreamAuth, UpstreamRefusal } from '../../src/auth/upstream-auth.js';
import { chain } from '../../src/chain/chain.js';
import { serveHttp } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { harness } from '../../src/testing/harness.js';
import { http } from '../../src/upstream/http/http.js';
import { startAuthorizationServer, type AuthorizationServer } from '../helpers/authorization-server.js';
import { withTimeout } from '../helpers/client.js';
import { openSession, send } from '../helpers/http.js';
import { startOAuthProtectedServer, type OAuthProtectedServer } from '../fixtures/servers/oauth-protected-server.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;
const CLIENT_TOKEN = 'front-client-token-8d41e7';

/** Client-credentials tokens for the fixture, fetched when the server refuses the one sent. */
class MachineAuth implements UpstreamAuth {
  readonly refusals: UpstreamRefusal[] = [];
  readonly principals: string[] = [];
  #token: string | undefined;

  constructor(readonly as: AuthorizationServer, readonly resource: string) {}

  authorization(principal: Principal): Promise<string | undefined> {
    this.principals.push(principal.key);
    return Promise.resolve(this.#token === undefined ? undefined : `Bearer ${this.#token}`);
  }

  async refused(_principal: Principal, refusal: UpstreamRefusal): Promise<void> {
    this.refusals.push(refusal);
    this.#token = await this.as.token({ resource: this.resource, scope: 'mcp:read' });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function text(result: Record<string, unknown>): string | undefined {
  return (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
}

describe('http upstream: a remote server that wants OAuth (SDK resource server, oidc-provider tokens)', T, () => {
  let as: AuthorizationServer;
  let remote: OAuthProtectedServer;
  before(async () => {
    as = await startAuthorizationServer();
    remote = await startOAuthProtectedServer({ issuer: as.issuer, jwksUri: as.jwksUri });
  });
  after(async () => {
    await remote.close();
    await as.close();
  });

  test('the first request is challenged with the Protected Resource Metadata; with a token the calls work; an expired token is refused and replaced once', T, async () => {
    const auth = new MachineAuth(as, remote.url);
    const upstream = http({ url: remote.url, auth });
    const h = await harness(chain().to(upstream));
    const [first] = auth.refusals;
    assert.ok(first);
    assert.equal(first.status, 401);
    assert.equal(first.sent, undefined);
    assert.match(first.challenge ?? '', /^Bearer /);
    assert.ok(first.challenge?.includes(`resource_metadata="${remote.resourceMetadataUrl}"`), first.challenge);
    const metadata = (await (await fetch(remote.resourceMetadataUrl)).json()) as { resource: string; authorization_servers: string[] };
    assert.equal(metadata.resource, remote.url);
    assert.deepEqual(metadata.authorization_servers, [as.issuer]);

    assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'echo');
    assert.equal(auth.refusals.length, 1);

    // The token expires for the server: refused once, replaced, the call served.
    remote.expireTokens();
    const refused = remote.nextRefusal();
    assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'echo');
    await withTimeout(refused, EVENT_MS, () => 'the refusal of the expired token');
    assert.equal(auth.refusals.length, 2);
    assert.match(auth.refusals[1]?.challenge ?? '', /error="invalid_token"/);
    assert.ok(auth.principals.every((key) => key === 'local'));
    await h.close();
    await upstream.close?.();
  });

  test('no token passthrough: a client of an authenticating HTTP front is served with the upstream\'s own token, never its own; its principal is its identity', T, async () => {
    const auth = new MachineAuth(as, remote.url);
    const upstream = http({ url: remote.url, auth });
    const front = await serveHttp(chain().to(upstream), { port: 0, log: silentLogger, auth: { tokens: [{ id: 'client', token: CLIENT_TOKEN }] } });
    const first = remote.requests.length;
    try {
      const { headers } = await openSession(front.url, { headers: { authorization: `Bearer ${CLIENT_TOKEN}` } });
      const call = await send(front.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } }, headers });
      assert.deepEqual((call.messages[0] as { result: unknown }).result, { content: [{ type: 'text', text: 'echo' }] });
    } finally {
      await front.close();
      await upstream.close?.();
    }
    const seen = remote.requests.slice(first);
    assert.ok(seen.length > 2);
    assert.ok(seen.every((r) => !(r.authorization ?? '').includes(CLIENT_TOKEN)), 'the client\'s token reached the remote server');
    assert.ok(seen.some((r) => r.status === 200 && r.authorization?.startsWith('Bearer ey')), 'served with a JWT of the authorization server');
    assert.ok(auth.principals.length > 0 && auth.principals.every((key) => key === 'token client'));
  });
});

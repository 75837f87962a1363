// The HTTP front as an OAuth resource server, against the TokenVerifier contract (a verifier of
// the test's own: which tokens it accepts is the test's choice; the JWT and introspection
// verifiers are tested against real keys and servers in src/auth/).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { subjectTokenOf } from '../../auth/subject-token.js';
import { TokenRefusal, type TokenVerifier, type VerifiedToken } from '../../auth/token-verifier.js';
import { chain } from '../../chain/chain.js';
import type { Identity, SessionInfo } from '../../core/session-info.js';
import type { Upstream } from '../../core/upstream.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { local } from '../../upstream/local.js';
import { openSession, send } from '../../../test/helpers/http.js';
import { metadataPaths, metadataUrl } from './oauth-resource.js';
import { serveHttp, type HttpFront } from './serve-http.js';

const ISSUER = 'https://login.example.com';

/** alice and bob have tokens with the `mcp` scope; carol's lacks it; "expired" is refused; "down" cannot be checked. */
const verifier: TokenVerifier = {
  verify(token: string): Promise<VerifiedToken> {
    const grant = (subject: string, scopes: string[]): Promise<VerifiedToken> =>
      Promise.resolve({ subject, clientId: 'ide', scopes, claims: { iss: ISSUER, sub: subject, email: `${subject}@example.com`, secret_claim: 'x' } });
    switch (token) {
      case 'tok-alice':
        return grant('alice', ['mcp', 'read']);
      case 'tok-bob':
        return grant('bob', ['mcp']);
      case 'tok-carol':
        return grant('carol', ['read']);
      case 'tok-expired':
        return Promise.reject(new TokenRefusal('invalid_token', 'the token has expired'));
      case 'tok-down':
        return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9'));
      default:
        return Promise.reject(new TokenRefusal('invalid_token', 'the token is not valid'));
    }
  },
};

const whoami = local({
  tools: [{ name: 'whoami', handler: (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(ctx.session.identity ?? null) }] }) }],
});

describe('the HTTP front as an OAuth resource server', () => {
  let front: HttpFront;
  let resource: string;
  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

  before(async () => {
    // The resource identifier is the public URL; here the front's own, known once it listens.
    const placeholder = 'http://127.0.0.1/mcp';
    const options = { resource: placeholder, authorizationServers: [ISSUER], verifier, requiredScopes: ['mcp'], claims: ['email'], resourceName: 'ACME gateway' };
    front = await serveHttp(chain().to(whoami), { port: 0, oauth: options, auth: { tokens: [{ id: 'ci', token: 'static-s3cret' }] }, log: silentLogger });
    resource = front.url;
    // Serve again with the real URL as the resource: what a deployment configures.
    await front.close();
    const port = new URL(resource).port;
    front = await serveHttp(chain().to(whoami), { port: Number(port), oauth: { ...options, resource }, auth: { tokens: [{ id: 'ci', token: 'static-s3cret' }] }, log: silentLogger });
  });

  after(async () => {
    await front?.close();
  });

  test('the Protected Resource Metadata (RFC 9728) at the path-suffixed and the root well-known paths, readable by any page', async () => {
    assert.deepEqual(metadataPaths(resource), ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
    for (const path of metadataPaths(resource)) {
      const reply = await send(new URL(path, resource).href, { method: 'GET', headers: { origin: 'https://elsewhere.example' } });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(reply.json, { resource, authorization_servers: [ISSUER], bearer_methods_supported: ['header'], scopes_supported: ['mcp'], resource_name: 'ACME gateway' });
    }
    const post = await send(new URL(metadataPaths(resource)[0] ?? '', resource).href, { body: {} });
    assert.equal(post.status, 405);
  });

  test('no credential: 401 whose challenge names the metadata and the scope', async () => {
    const reply = await send(resource, { body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    assert.equal(reply.status, 401);
    assert.equal(reply.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl(resource)}", scope="mcp"`);
  });

  test('a refused token: 401 invalid_token with the reason, never the token', async () => {
    const reply = await send(resource, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: bearer('tok-expired') });
    assert.equal(reply.status, 401);
    assert.equal(
      reply.headers.get('www-authenticate'),
      `Bearer resource_metadata="${metadataUrl(resource)}", error="invalid_token", error_description="the token has expired", scope="mcp"`,
    );
    const unknown = await send(resource, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: bearer('tok-made-up') });
    assert.equal(unknown.status, 401);
    assert.ok(!unknown.text.includes('tok-made-up') && !(unknown.headers.get('www-authenticate') ?? '').includes('tok-made-up'));
  });

  test('a token without the required scope: 403 insufficient_scope naming it', async () => {
    const reply = await send(resource, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: bearer('tok-carol') });
    assert.equal(reply.status, 403);
    assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata="[^"]+", error="insufficient_scope", error_description="[^"]+", scope="mcp"$/);
  });

  test('a verifier that cannot tell (the authorization server down): 503 with Retry-After, not the token\'s fault', async () => {
    const reply = await send(resource, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: bearer('tok-down') });
    assert.equal(reply.status, 503);
    assert.equal(reply.headers.get('retry-after'), '5');
  });

  test("a valid token: served; the session's identity is the subject, issuer, client, scopes and the chosen claims only", async () => {
    const session = await openSession(resource, { headers: bearer('tok-alice') });
    const reply = await send(resource, { body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, headers: session.headers });
    assert.equal(reply.status, 200);
    const text = (reply.messages[0] as { result: { content: Array<{ text: string }> } }).result.content[0]?.text ?? '';
    assert.deepEqual(JSON.parse(text), { id: 'alice', method: 'oauth', issuer: ISSUER, clientId: 'ide', scopes: ['mcp', 'read'], claims: { email: 'alice@example.com' } });
  });

  test("a session stays bound to its subject: bob's token on alice's session finds no session", async () => {
    const session = await openSession(resource, { headers: bearer('tok-alice') });
    const reply = await send(resource, { body: { jsonrpc: '2.0', id: 3, method: 'ping' }, headers: { ...session.headers, ...bearer('tok-bob') } });
    assert.equal(reply.status, 404);
  });

  test('static tokens keep working beside OAuth', async () => {
    const session = await openSession(resource, { headers: bearer('static-s3cret') });
    const reply = await send(resource, { body: { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, headers: session.headers });
    const text = (reply.messages[0] as { result: { content: Array<{ text: string }> } }).result.content[0]?.text ?? '';
    assert.deepEqual(JSON.parse(text), { id: 'ci', method: 'bearer' });
  });
});

describe("the front's token, kept beside the identity for a token exchange", () => {
  test('an OAuth identity carries its token (subjectTokenOf) to ctx.session and to Upstream.connect (one SessionInfo, never a copy); a static one none', async () => {
    const connected: SessionInfo[] = [];
    const inMiddleware: SessionInfo[] = [];
    const inner = chain()
      .use((ctx, next) => {
        inMiddleware.push(ctx.session);
        return next();
      })
      .to(whoami);
    const upstream: Upstream = { connect: (downstream, session) => (connected.push(session), inner.connect(downstream, session)) };
    const front = await serveHttp(upstream, {
      port: 0,
      oauth: { resource: 'http://127.0.0.1/mcp', authorizationServers: [ISSUER], verifier, requiredScopes: ['mcp'] },
      auth: { tokens: [{ id: 'ci', token: 'static-s3cret' }] },
      log: silentLogger,
    });
    try {
      const alice = await openSession(front.url, { headers: { authorization: 'Bearer tok-alice' } });
      await send(front.url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, headers: alice.headers });
      const info = connected[0];
      assert.ok(info?.identity !== undefined);
      assert.equal(subjectTokenOf(info.identity), 'tok-alice');
      assert.ok(inMiddleware.length > 0 && inMiddleware.every((session) => session === info), 'ctx.session is the SessionInfo the upstream got');
      assert.equal(info.identity.id, 'alice');
      // Not a property: nothing that prints the identity can print the token.
      assert.ok(!JSON.stringify(info.identity).includes('tok-alice'));

      await openSession(front.url, { headers: { authorization: 'Bearer static-s3cret' } });
      const staticIdentity = connected[1]?.identity;
      assert.equal(staticIdentity?.method, 'bearer');
      assert.equal(subjectTokenOf(staticIdentity as Identity), undefined);
    } finally {
      await front.close();
    }
  });
});

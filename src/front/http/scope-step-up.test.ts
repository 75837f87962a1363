// Scope step-up on the Streamable HTTP front (2025-11-25 authorization, "Scope Challenge
// Handling"): a lone -32004 of requireScopes goes out as 403 insufficient_scope with the JSON-RPC
// error as the body, where the front has OAuth and the session a token with scopes; everywhere
// else it stays the 200 it was. The verifier is the test's own (which tokens it accepts is the
// test's choice); test/integration/oauth-front-step-up.test.ts runs it with a real authorization
// server and the SDK client.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { subjectTokenOf } from '../../auth/subject-token.js';
import { TokenRefusal, type TokenVerifier, type VerifiedToken } from '../../auth/token-verifier.js';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { INSUFFICIENT_SCOPE, requireScopes } from '../../middleware/require-scopes/index.js';
import { local } from '../../upstream/local.js';
import { openSession, send, type HttpReply } from '../../../test/helpers/http.js';
import { metadataUrl } from './oauth-resource.js';
import { serveHttp, type HttpFront } from './serve-http.js';

const ISSUER = 'https://login.example.com';

/** bob holds `mcp`; "tok-bob-deploy" is bob again after a step-up, with `deploy` too. */
const verifier: TokenVerifier = {
  verify(token: string): Promise<VerifiedToken> {
    const grant = (scopes: string[]): Promise<VerifiedToken> => Promise.resolve({ subject: 'bob', clientId: 'ide', scopes, claims: { iss: ISSUER, sub: 'bob' } });
    if (token === 'tok-bob') return grant(['mcp']);
    if (token === 'tok-bob-deploy') return grant(['mcp', 'deploy']);
    return Promise.reject(new TokenRefusal('invalid_token', 'the token is not valid'));
  },
};

const tools = local({
  tools: [
    { name: 'deploy', handler: () => ({ content: [{ type: 'text', text: 'deployed' }] }) },
    { name: 'status', handler: () => ({ content: [{ type: 'text', text: 'green' }] }) },
  ],
});
/** The token each call's session identity carries, for a token exchange (subjectTokenOf). */
const seenTokens: Array<string | undefined> = [];
const scoped = (): ReturnType<typeof chain> => chain()
  .use((ctx, next) => {
    if (ctx.method === 'tools/call' && ctx.session.identity !== undefined) seenTokens.push(subjectTokenOf(ctx.session.identity));
    return next();
  })
  .use(requireScopes({ tools: { deploy: 'deploy' }, onMissing: 'refuse', unscoped: 'deny' }));
const call = (id: number, name: string): unknown => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

function errorOf(reply: HttpReply): { code: number; data?: unknown } | undefined {
  return (reply.messages[0] as { error?: { code: number; data?: unknown } } | undefined)?.error;
}

describe('scope step-up on the Streamable HTTP front', () => {
  let front: HttpFront;
  let resource: string;

  before(async () => {
    front = await serveHttp(scoped().to(tools), {
      port: 0,
      oauth: { resource: 'http://127.0.0.1/mcp', authorizationServers: [ISSUER], verifier, requiredScopes: ['mcp'] },
      auth: { tokens: [{ id: 'ci', token: 'static-s3cret' }] },
      log: silentLogger,
    });
    resource = 'http://127.0.0.1/mcp';
  });

  after(async () => {
    await front?.close();
  });

  test('a call the token lacks a scope for: 403, WWW-Authenticate insufficient_scope with the scopes held and needed, the JSON-RPC error as the body', async () => {
    const session = await openSession(front.url, { headers: bearer('tok-bob') });
    const reply = await send(front.url, { body: call(2, 'deploy'), headers: session.headers });
    assert.equal(reply.status, 403);
    assert.equal(
      reply.headers.get('www-authenticate'),
      `Bearer resource_metadata="${metadataUrl(resource)}", error="insufficient_scope", error_description="the token lacks a needed scope (deploy)", scope="mcp deploy"`,
    );
    assert.equal(reply.headers.get('content-type'), 'application/json');
    assert.equal((reply.json as { id: unknown }).id, 2);
    assert.equal(errorOf(reply)?.code, INSUFFICIENT_SCOPE);
    assert.deepEqual(errorOf(reply)?.data, { scopes: ['deploy'], tool: 'deploy' });

    const allowed = await send(front.url, { body: call(3, 'status'), headers: session.headers });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('www-authenticate'), null);
  });

  test('after the step-up, the same session with the larger token is served: the session takes the newer token of the same subject', async () => {
    const session = await openSession(front.url, { headers: bearer('tok-bob') });
    seenTokens.length = 0;
    assert.equal((await send(front.url, { body: call(2, 'deploy'), headers: session.headers })).status, 403);
    const retried = await send(front.url, { body: call(2, 'deploy'), headers: { ...session.headers, ...bearer('tok-bob-deploy') } });
    assert.equal(retried.status, 200);
    assert.deepEqual((retried.messages[0] as { result: unknown }).result, { content: [{ type: 'text', text: 'deployed' }] });
    // The token a token exchange would use is the newer one too.
    assert.deepEqual(seenTokens, ['tok-bob', 'tok-bob-deploy']);
  });

  test('inside a batch the refusal stays a member of the 200 answer', async () => {
    const session = await openSession(front.url, { headers: bearer('tok-bob'), version: '2025-03-26' });
    const reply = await send(front.url, { body: [call(2, 'deploy'), call(3, 'status')], headers: session.headers });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('www-authenticate'), null);
    assert.equal(errorOf(reply)?.code, INSUFFICIENT_SCOPE);
  });

  test('a session without scopes (a static token) cannot step up: its refusal stays a 200', async () => {
    const session = await openSession(front.url, { headers: bearer('static-s3cret') });
    const reply = await send(front.url, { body: call(2, 'deploy'), headers: session.headers });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('www-authenticate'), null);
    assert.equal(errorOf(reply)?.code, INSUFFICIENT_SCOPE);
  });

  test('a front without OAuth answers the refusal as a 200 with the JSON-RPC error, as before', async () => {
    const plain = await serveHttp(scoped().to(tools), { port: 0, log: silentLogger });
    try {
      const session = await openSession(plain.url);
      const reply = await send(plain.url, { body: call(2, 'deploy'), headers: session.headers });
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('www-authenticate'), null);
      assert.equal(errorOf(reply)?.code, INSUFFICIENT_SCOPE);
    } finally {
      await plain.close();
    }
  });
});

describe('scope step-up for 2026-07-28 clients (each POST on its own, sessions pooled)', () => {
  let front: HttpFront;

  before(async () => {
    front = await serveHttp(scoped().to(tools), {
      port: 0,
      oauth: { resource: 'http://127.0.0.1/mcp', authorizationServers: [ISSUER], verifier, requiredScopes: ['mcp'] },
      log: silentLogger,
    });
  });

  after(async () => {
    await front?.close();
  });

  const statelessCall = (id: number, name: string, token: string): Promise<HttpReply> =>
    send(front.url, {
      body: {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      },
      headers: { ...bearer(token), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
    });

  test('each token\'s own scopes judge its calls: a token without the scope gets the 403 challenge, even after the same person called with a token that has it', async () => {
    const first = await statelessCall(1, 'deploy', 'tok-bob');
    assert.equal(first.status, 403);
    assert.match(first.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    assert.equal((first.json as { id: unknown }).id, 1);

    const stepped = await statelessCall(2, 'deploy', 'tok-bob-deploy');
    assert.equal(stepped.status, 200);
    assert.equal(((stepped.json as { result: { content: Array<{ text: string }> } }).result.content[0])?.text, 'deployed');

    const again = await statelessCall(3, 'deploy', 'tok-bob');
    assert.equal(again.status, 403, 'the token with fewer scopes is not served by the session of the one with more');
    assert.equal((await statelessCall(4, 'status', 'tok-bob')).status, 200);
  });
});

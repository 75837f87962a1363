// Scope step-up (2025-11-25 authorization, "Scope Challenge Handling") against a real
// authorization server (oidc-provider on loopback): a token without the scope a tool needs
// (requireScopes, onMissing 'refuse') gets 403 `insufficient_scope` naming the scopes and the
// metadata; the official SDK client takes that as its cue, sends the user to consent to the larger
// scope, and its retried call is served in the same session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { chain } from '../../src/chain/chain.js';
import { metadataUrl } from '../../src/front/http/oauth-resource.js';
import { INSUFFICIENT_SCOPE, requireScopes } from '../../src/middleware/require-scopes/index.js';
import { local } from '../../src/upstream/local.js';
import type { AuthorizationServer } from '../helpers/authorization-server.js';
import { freePort, openSession, send } from '../helpers/http.js';
import { startJwtFront, type JwtFront } from '../helpers/jwt-front.js';
import { MemoryOAuthProvider } from '../helpers/memory-oauth-provider.js';

const T = { timeout: 60_000 };
/**
 * The interactive client's registration asks for the authorization_code grant only: no refresh
 * token, so a step-up goes to the user for consent (an SDK with a refresh token tries a refresh
 * first, which cannot add scopes).
 */
const STEP_UP_CLIENT = { clientName: 'mcp-chain step-up test', grantTypes: ['authorization_code'] };

const tools = local({
  tools: [
    { name: 'status', handler: () => ({ content: [{ type: 'text', text: 'green' }] }) },
    { name: 'deploy', handler: () => ({ content: [{ type: 'text', text: 'deployed' }] }) },
  ],
});

describe('scope step-up: 403 insufficient_scope from the gateway, and the SDK client re-authorizing with the larger scope', () => {
  let fixture: JwtFront | undefined;
  let as: AuthorizationServer;
  let resource: string;
  let redirect: string;

  before(async () => {
    fixture = await startJwtFront(chain().use(requireScopes({ tools: { deploy: 'mcp:write' }, onMissing: 'refuse' })).to(tools));
    ({ as, resource } = fixture);
    redirect = `http://127.0.0.1:${await freePort()}/callback`;
  });

  after(() => fixture?.close());

  test('a token without the scope a tool needs: 403 with WWW-Authenticate insufficient_scope (scopes held and needed, resource_metadata) and the JSON-RPC error as the body', T, async () => {
    const token = await as.token({ resource, scope: 'mcp:read' });
    const session = await openSession(resource, { headers: { authorization: `Bearer ${token}` } });
    const call = (id: number, name: string): unknown => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

    const refused = await send(resource, { body: call(2, 'deploy'), headers: session.headers });
    assert.equal(refused.status, 403);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /^Bearer /);
    assert.ok(challenge.includes('error="insufficient_scope"'), challenge);
    assert.ok(challenge.includes('scope="mcp:read mcp:write"'), challenge);
    assert.ok(challenge.includes(`resource_metadata="${metadataUrl(resource)}"`), challenge);
    assert.ok(!challenge.includes(token) && !refused.text.includes(token), 'the token is never echoed');
    const error = (refused.json as { id: unknown; error: { code: number; data: unknown } });
    assert.equal(error.id, 2);
    assert.equal(error.error.code, INSUFFICIENT_SCOPE);
    assert.deepEqual(error.error.data, { scopes: ['mcp:write'], tool: 'deploy' });

    const served = await send(resource, { body: call(3, 'status'), headers: session.headers });
    assert.equal(served.status, 200);
  });

  test('the SDK client: logged in with mcp:read, refused deploy, sends the user to consent to mcp:read mcp:write, and the retried call is served in the same session', T, async () => {
    const provider = new MemoryOAuthProvider(redirect, STEP_UP_CLIENT);
    // Registered beforehand, for every scope: the SDK's own registration would ask for the first
    // challenge's scope only, and oidc-provider holds a client to the scope it registered with.
    provider.client = await as.registerClient({ ...provider.clientMetadata });
    const first = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });

    // 1. The first login, with the scope the 401 named.
    await assert.rejects(new Client({ name: 'oauth-step-up-test', version: '1.0.0' }).connect(first), UnauthorizedError);
    const login = provider.authorizationUrl;
    assert.ok(login !== undefined, 'the SDK sent the user to log in');
    assert.equal(login.searchParams.get('scope'), 'mcp:read');
    const code = new URL(await as.completeLogin(login.href, { subject: 'alice' })).searchParams.get('code');
    assert.ok(code !== null);
    await first.finishAuth(code);
    await first.close();
    assert.equal(provider.saved?.refresh_token, undefined, 'no refresh token: a step-up needs the user');
    const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
    const client = new Client({ name: 'oauth-step-up-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.deepEqual((await client.callTool({ name: 'status', arguments: {} })).content, [{ type: 'text', text: 'green' }]);
      const sessionId = transport.sessionId;

      // 2. deploy needs mcp:write: 403 insufficient_scope; the SDK asks the user for both scopes.
      provider.authorizationUrl = undefined;
      await assert.rejects(client.callTool({ name: 'deploy', arguments: {} }), UnauthorizedError);
      const stepUp = provider.authorizationUrl as URL | undefined;
      assert.ok(stepUp !== undefined, 'the SDK sent the user to consent to more');
      assert.equal(stepUp.searchParams.get('scope'), 'mcp:read mcp:write', 'the scopes the challenge named, nothing held lost');
      assert.equal(stepUp.searchParams.get('resource'), resource);

      // 3. The user consents; the retried call is served, in the same session, with the larger token.
      const more = new URL(await as.completeLogin(stepUp.href, { subject: 'alice' })).searchParams.get('code');
      assert.ok(more !== null);
      await transport.finishAuth(more);
      assert.deepEqual(String(decodeJwt(provider.saved?.access_token ?? '').scope).split(' ').sort(), ['mcp:read', 'mcp:write']);
      assert.deepEqual((await client.callTool({ name: 'deploy', arguments: {} })).content, [{ type: 'text', text: 'deployed' }]);
      assert.equal(transport.sessionId, sessionId, 'the same session');
    } finally {
      await client.close();
    }
    assert.deepEqual(as.serverErrors, []);
  });
});

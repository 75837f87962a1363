// The whole MCP authorization flow, as a real MCP client runs it against the gateway: the official
// SDK client (StreamableHTTPClientTransport with an OAuthClientProvider) meets the HTTP front as an
// OAuth resource server (serveHttp + jwtVerifier), with oidc-provider on loopback as the
// authorization server. Nothing is handed to the client but the gateway's URL: it is refused
// (401), reads the Protected Resource Metadata the challenge points at, the authorization server's
// metadata, registers itself (Dynamic Client Registration), and sends the user to log in; the test
// plays the user in the browser, gives the code back, and the client is then served as that user.
// Its access token then expires (the gateway's clock moves on) and the SDK refreshes it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { chain } from '../../src/chain/chain.js';
import { local } from '../../src/upstream/local.js';
import { freePort } from '../helpers/http.js';
import type { AuthorizationServer } from '../helpers/authorization-server.js';
import { startJwtFront, type JwtFront } from '../helpers/jwt-front.js';
import { MemoryOAuthProvider } from '../helpers/memory-oauth-provider.js';

const T = { timeout: 60_000 };
/** The client application registers for both grants, so the SDK can refresh its token. */
const LOGIN_CLIENT = { clientName: 'mcp-chain login test', grantTypes: ['authorization_code', 'refresh_token'] };

/** The identity the `whoami` tool reports: what the gateway put in `ctx.session.identity`. */
async function whoamiOf(client: Client): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text;
  assert.equal(typeof text, 'string', 'whoami answers with text');
  return JSON.parse(text ?? 'null') as Record<string, unknown>;
}

const whoami = local({
  tools: [{ name: 'whoami', handler: (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(ctx.session.identity ?? null) }] }) }],
});

describe('the official SDK client logs in to the gateway by itself: discovery, registration, authorization code with PKCE, refresh', () => {
  let fixture: JwtFront | undefined;
  let as: AuthorizationServer;
  let resource: string;
  let redirect: string;
  /** The gateway's clock, moved forward by the refresh test (the token verifier reads it). */
  let skewMs = 0;

  before(async () => {
    fixture = await startJwtFront(chain().to(whoami), { now: () => Date.now() + skewMs });
    ({ as, resource } = fixture);
    // The client's loopback redirect (RFC 8252): the test plays the browser and reads the code
    // from the redirect itself, so nothing has to listen there.
    redirect = `http://127.0.0.1:${await freePort()}/callback`;
  });

  after(() => fixture?.close());

  test('the user refuses the consent: the client gets access_denied at its redirect, no token, and stays refused', T, async () => {
    const provider = new MemoryOAuthProvider(redirect, LOGIN_CLIENT);
    const first = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
    await assert.rejects(new Client({ name: 'oauth-login-test', version: '1.0.0' }).connect(first), UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl;
    assert.ok(authorizationUrl !== undefined, 'the SDK sent the user to the authorization server');
    const back = new URL(await as.completeLogin(authorizationUrl.href, { subject: 'mallory', consent: 'deny' }));
    assert.equal(`${back.origin}${back.pathname}`, redirect);
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('code'), null);
    assert.equal(back.searchParams.get('state'), provider.states.at(-1));
    await first.close();
    assert.equal(provider.tokens(), undefined, 'no token');

    // Without a token the next connection is refused again and asks for a login again.
    provider.authorizationUrl = undefined;
    await assert.rejects(
      new Client({ name: 'oauth-login-test', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider })),
      UnauthorizedError,
    );
    assert.ok(provider.authorizationUrl !== undefined, 'a new login is asked for');
  });

  test('refused, then discovery, registration and the login, then served as the user who logged in; the token expires and is refreshed', T, async () => {
    const provider = new MemoryOAuthProvider(redirect, LOGIN_CLIENT);
    const requests: string[] = [];
    const recordingFetch = (url: string | URL, init?: RequestInit): Promise<Response> => {
      requests.push(`${init?.method ?? 'GET'} ${String(url)}`);
      return fetch(url, init);
    };
    // Read through a function: an assertion on `provider.saved` must not narrow later reads.
    const savedTokens = (): OAuthTokens | undefined => provider.saved;
    const transport = () => new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider, fetch: recordingFetch });

    // 1. No token: the gateway refuses, the SDK discovers and registers, and sends the user to log in.
    as.setAccessTokenTtl(60);
    const first = transport();
    const refused = new Client({ name: 'oauth-login-test', version: '1.0.0' });
    await assert.rejects(refused.connect(first), UnauthorizedError);

    const prm = `${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`;
    const asked = requests.map((line) => line.split('?')[0] ?? line);
    assert.ok(asked.includes(`GET ${prm}`), `the SDK read the metadata named by resource_metadata (${prm}); it asked: ${asked.join(', ')}`);
    assert.ok(
      asked.some((line) => line.startsWith(`GET ${as.issuer}/.well-known/`)),
      `the SDK read the authorization server's metadata; it asked: ${asked.join(', ')}`,
    );
    assert.ok(asked.includes(`POST ${as.registrationEndpoint}`), `the SDK registered itself (RFC 7591); it asked: ${asked.join(', ')}`);
    assert.ok(
      asked.indexOf(`GET ${prm}`) < asked.indexOf(`POST ${as.registrationEndpoint}`),
      'the metadata is read before the registration',
    );
    assert.equal(typeof provider.client?.client_id, 'string', 'the registration gave a client id');
    assert.equal(savedTokens(), undefined, 'no token yet');

    const authorizationUrl = provider.authorizationUrl;
    assert.ok(authorizationUrl !== undefined, 'the SDK sent the user to the authorization server');
    assert.equal(`${authorizationUrl.origin}${authorizationUrl.pathname}`, as.authorizationEndpoint);
    const params = authorizationUrl.searchParams;
    assert.equal(params.get('resource'), resource, 'the authorization request names the gateway as its resource (RFC 8707)');
    assert.equal(params.get('code_challenge_method'), 'S256');
    assert.ok((params.get('code_challenge') ?? '').length >= 43, 'a PKCE challenge');
    assert.equal(params.get('response_type'), 'code');
    assert.equal(params.get('client_id'), provider.client?.client_id);
    assert.equal(params.get('redirect_uri'), redirect);
    assert.match(params.get('scope') ?? '', /(^| )mcp:read( |$)/, 'the scope the challenge named is asked for');

    // 2. The user logs in and consents in the browser; the client gets the code at its redirect.
    const back = new URL(await as.completeLogin(authorizationUrl.href, { subject: 'alice' }));
    assert.equal(`${back.origin}${back.pathname}`, redirect);
    assert.equal(back.searchParams.get('error'), null, `no error at the redirect: ${back.searchParams.get('error_description') ?? ''}`);
    assert.equal(back.searchParams.get('state'), provider.states.at(-1), 'the state comes back unchanged');
    const code = back.searchParams.get('code');
    assert.ok(code !== null && code !== '', 'an authorization code');
    await first.finishAuth(code);
    await first.close();

    const tokens = savedTokens();
    assert.ok(tokens !== undefined, 'the code was exchanged for tokens');
    assert.equal(typeof tokens.refresh_token, 'string', 'with a refresh token');
    const claims = decodeJwt(tokens.access_token);
    assert.ok(
      claims.aud === resource || (Array.isArray(claims.aud) && claims.aud.includes(resource)),
      'the access token is bound to the gateway (its audience is the resource)',
    );
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.iss, as.issuer);

    // 3. Reconnected with the token: served, and the tools see who logged in.
    const client = new Client({ name: 'oauth-login-test', version: '1.0.0' });
    await client.connect(transport());
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((tool) => tool.name),
        ['whoami'],
      );
      const identity = await whoamiOf(client);
      assert.equal(identity.id, 'alice');
      assert.equal(identity.method, 'oauth');
      assert.equal(identity.issuer, as.issuer);
      assert.equal(identity.clientId, provider.client?.client_id);
      assert.ok(Array.isArray(identity.scopes) && identity.scopes.includes('mcp:read'));

      // 4. The access token expires (the gateway's clock moves past it and the clock tolerance):
      // the next call is refused with 401 and the SDK uses its refresh token, without a new login.
      const loginUrl = provider.authorizationUrl;
      const expiry = claims.exp;
      assert.ok(typeof expiry === 'number', 'the access token has an expiry');
      skewMs = (expiry + 120) * 1000 - Date.now();
      // The refreshed token must outlive the moved clock: issued with a longer lifetime.
      as.setAccessTokenTtl(3600);
      requests.length = 0;
      const again = await whoamiOf(client);
      assert.equal(again.id, 'alice', 'still alice, in the same session');
      assert.equal(again.clientId, provider.client?.client_id);
      assert.ok(requests.includes(`POST ${as.tokenEndpoint}`), `the SDK refreshed at the token endpoint; it asked: ${requests.join(', ')}`);
      assert.equal(provider.authorizationUrl, loginUrl, 'no new login was asked for');
      const refreshed = savedTokens();
      assert.ok(refreshed !== undefined && refreshed.access_token !== tokens.access_token, 'a new access token');
      const fresh = decodeJwt(refreshed.access_token);
      assert.ok(fresh.aud === resource || (Array.isArray(fresh.aud) && fresh.aud.includes(resource)), 'the refreshed token is bound to the gateway too');
      assert.equal(fresh.sub, 'alice');
    } finally {
      await client.close();
    }
    assert.deepEqual(as.serverErrors, []);
  });
});

// The test authorization server (oidc-provider on loopback) does what the OAuth tests rely on:
// discovery, JWT access tokens bound to a resource, DCR, code + PKCE driven as a user would,
// refresh, introspection and revocation, key rotation, and silence.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { createPkce, startAuthorizationServer, type AuthorizationServer } from './authorization-server.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const REDIRECT = 'http://127.0.0.1:9/callback';

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  assert.equal(response.status, 200, url);
  return (await response.json()) as Record<string, unknown>;
}

async function kids(server: AuthorizationServer): Promise<string[]> {
  const jwks = (await getJson(server.jwksUri)) as { keys: { kid: string }[] };
  return jwks.keys.map((key) => key.kid);
}

describe('the test authorization server, started', () => {
  test('writes nothing to the console (oidc-provider notices and the runtime warning are dropped)', async () => {
    const written: unknown[][] = [];
    const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };
    const record = (...args: unknown[]): void => void written.push(args);
    Object.assign(console, { log: record, info: record, warn: record, error: record, debug: record });
    try {
      const server = await startAuthorizationServer();
      try {
        await server.token({ resource: RESOURCE, scope: 'mcp:read' });
        await fetch(`${server.issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.arrayBuffer());
      } finally {
        await server.close();
      }
    } finally {
      Object.assign(console, saved);
    }
    assert.deepEqual(written, []);
  });
});

describe('the test authorization server', () => {
  let server: AuthorizationServer;
  const confidential = { clientId: 'confidential-app', clientSecret: 'a-secret-long-enough-for-tests-0123456789' };
  const opaque = { clientId: 'opaque-app', clientSecret: 'another-secret-long-enough-for-tests-0123' };

  before(async () => {
    server = await startAuthorizationServer({
      clients: [
        {
          client_id: confidential.clientId,
          client_secret: confidential.clientSecret,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: [REDIRECT],
        },
        {
          client_id: opaque.clientId,
          client_secret: opaque.clientSecret,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
        },
      ],
      accessTokenFormat: (_resource, clientId) => (clientId === opaque.clientId ? 'opaque' : 'jwt'),
      accountClaims: (subject) => ({ email: `${subject}@example.test`, groups: ['staff'] }),
    });
  });
  after(async () => {
    await server.close();
  });

  test('listens on loopback and serves RFC 8414 and OpenID discovery metadata naming every endpoint', async () => {
    assert.match(server.issuer, /^http:\/\/127\.0\.0\.1:\d+$/);
    const oauth = await getJson(`${server.issuer}/.well-known/oauth-authorization-server`);
    const openid = await getJson(`${server.issuer}/.well-known/openid-configuration`);
    assert.deepEqual(oauth, openid);
    assert.equal(oauth['issuer'], server.issuer);
    assert.equal(oauth['authorization_endpoint'], server.authorizationEndpoint);
    assert.equal(oauth['token_endpoint'], server.tokenEndpoint);
    assert.equal(oauth['jwks_uri'], server.jwksUri);
    assert.equal(oauth['registration_endpoint'], server.registrationEndpoint);
    assert.equal(oauth['introspection_endpoint'], server.introspectionEndpoint);
    assert.equal(oauth['revocation_endpoint'], server.revocationEndpoint);
    assert.deepEqual(oauth['code_challenge_methods_supported'], ['S256']);
    for (const grant of ['authorization_code', 'refresh_token', 'client_credentials']) {
      assert.ok((oauth['grant_types_supported'] as string[]).includes(grant), grant);
    }
    assert.ok((oauth['scopes_supported'] as string[]).includes('mcp:read'));
  });

  test('a client_credentials token is an RFC 9068 JWT for the resource, verified against the JWKS', async () => {
    const token = await server.token({ resource: RESOURCE, scope: 'mcp:read mcp:write' });
    const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(server.jwksUri)), {
      issuer: server.issuer,
      audience: RESOURCE,
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    assert.equal(protectedHeader.kid, server.currentKid());
    assert.equal(payload['scope'], 'mcp:read mcp:write');
    assert.equal(payload['client_id'], server.machineClient.clientId);
    assert.equal(typeof payload.exp, 'number');
  });

  test('a scope the resource does not allow is not granted', async () => {
    const token = await server.token({ resource: RESOURCE, scope: 'mcp:read unknown:scope' });
    assert.equal(decodeJwt(token)['scope'], 'mcp:read');
  });

  test('setAccessTokenTtl shortens the tokens issued from then on', async () => {
    server.setAccessTokenTtl(2);
    try {
      const payload = decodeJwt(await server.token({ resource: RESOURCE }));
      assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 2);
    } finally {
      server.setAccessTokenTtl(300);
    }
  });

  test('Dynamic Client Registration registers a public client (no secret)', async () => {
    const registered = await server.registerClient({
      client_name: 'a public client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(typeof registered.client_id, 'string');
    assert.equal(registered['client_secret'], undefined);
    assert.equal(registered['token_endpoint_auth_method'], 'none');
  });

  test('authorization code + PKCE, driven as a user would, gives tokens for that user; the refresh token works', async () => {
    const { client_id: clientId } = await server.registerClient({
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const pkce = createPkce();
    const url = server.authorizationUrl({ clientId, redirectUri: REDIRECT, resource: RESOURCE, scope: 'mcp:read', state: 'st-1', codeChallenge: pkce.challenge });
    const back = new URL(await server.completeLogin(url, { subject: 'alice' }));
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'st-1');
    assert.equal(back.searchParams.get('iss'), server.issuer);
    const code = back.searchParams.get('code');
    assert.ok(code);

    const client = { clientId };
    const tokens = await server.exchangeCode(client, { code, verifier: pkce.verifier, redirectUri: REDIRECT, resource: RESOURCE });
    const jwks = createRemoteJWKSet(new URL(server.jwksUri));
    const first = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer, audience: RESOURCE, typ: 'at+jwt' });
    assert.equal(first.payload.sub, 'alice');
    assert.equal(first.payload['client_id'], clientId);
    assert.equal(first.payload['scope'], 'mcp:read');
    assert.equal(first.payload['email'], 'alice@example.test');
    assert.deepEqual(first.payload['groups'], ['staff']);
    assert.ok(tokens.refresh_token);

    const refreshed = await server.refresh(client, { refreshToken: tokens.refresh_token, resource: RESOURCE });
    const second = await jwtVerify(refreshed.access_token, jwks, { issuer: server.issuer, audience: RESOURCE, typ: 'at+jwt' });
    assert.equal(second.payload.sub, 'alice');
    assert.notEqual(second.payload.jti, first.payload.jti);
  });

  test('PKCE is required: an authorization request without a code challenge is refused', async () => {
    const url = new URL(server.authorizationUrl({ clientId: confidential.clientId, redirectUri: REDIRECT, resource: RESOURCE, codeChallenge: 'x' }));
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const back = new URL(await server.completeLogin(url.href, { subject: 'alice' }));
    assert.equal(back.searchParams.get('error'), 'invalid_request');
  });

  test('a wrong PKCE verifier is refused at the token endpoint', async () => {
    const pkce = createPkce();
    const url = server.authorizationUrl({ clientId: confidential.clientId, redirectUri: REDIRECT, resource: RESOURCE, scope: 'mcp:read', codeChallenge: pkce.challenge });
    const code = new URL(await server.completeLogin(url, { subject: 'bob' })).searchParams.get('code');
    assert.ok(code);
    await assert.rejects(
      server.exchangeCode(confidential, { code, verifier: createPkce().verifier, redirectUri: REDIRECT, resource: RESOURCE }),
      /invalid_grant/,
    );
  });

  test('a user who denies consent sends the client access_denied', async () => {
    const pkce = createPkce();
    const url = server.authorizationUrl({ clientId: confidential.clientId, redirectUri: REDIRECT, resource: RESOURCE, scope: 'mcp:read', state: 'st-2', codeChallenge: pkce.challenge });
    const back = new URL(await server.completeLogin(url, { subject: 'carol', consent: 'deny' }));
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'st-2');
  });

  test('completeLogin with deliver loads the final redirect, as the browser would', async () => {
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const listener = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('done');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const port = (listener.address() as { port: number }).port;
      const redirectUri = `http://127.0.0.1:${port}/callback`;
      const { client_id: clientId } = await server.registerClient({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' });
      const pkce = createPkce();
      const url = server.authorizationUrl({ clientId, redirectUri, resource: RESOURCE, state: 'st-3', codeChallenge: pkce.challenge });
      const final = await server.completeLogin(url, { subject: 'dave', deliver: true });
      assert.ok(new URL(final).searchParams.get('code'), final);
      assert.equal(seen.length, 1);
      assert.equal(`http://127.0.0.1:${port}${seen[0] ?? ''}`, final);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  test('introspection says an opaque token is active, and inactive once revoked', async () => {
    const token = await server.token({ client: opaque, resource: RESOURCE, scope: 'mcp:read' });
    assert.equal(token.split('.').length, 1, 'opaque, not a JWT');
    const active = await server.introspect(token);
    assert.equal(active['active'], true);
    assert.equal(active['client_id'], opaque.clientId);
    assert.equal(active['scope'], 'mcp:read');
    assert.equal(active['aud'], RESOURCE);
    assert.equal(active['iss'], server.issuer);
    await server.revoke(token);
    assert.deepEqual(await server.introspect(token), { active: false });
  });

  test('revokeGrant ends a login: its refresh token no longer works', async () => {
    const pkce = createPkce();
    const url = server.authorizationUrl({ clientId: confidential.clientId, redirectUri: REDIRECT, resource: RESOURCE, scope: 'mcp:read', codeChallenge: pkce.challenge });
    const code = new URL(await server.completeLogin(url, { subject: 'erin' })).searchParams.get('code');
    assert.ok(code);
    const tokens = await server.exchangeCode(confidential, { code, verifier: pkce.verifier, redirectUri: REDIRECT, resource: RESOURCE });
    assert.ok(tokens.refresh_token);
    assert.equal((await server.introspect(tokens.refresh_token))['active'], true);
    await server.revokeGrant(tokens.refresh_token);
    assert.deepEqual(await server.introspect(tokens.refresh_token), { active: false });
    await assert.rejects(server.refresh(confidential, { refreshToken: tokens.refresh_token }), /invalid_grant/);
  });

  test('rotateKeys signs new tokens with a new key published in the JWKS; old keys kept or dropped', async () => {
    const before = decodeProtectedHeader(await server.token({ resource: RESOURCE })).kid;
    assert.ok(before);
    const kid = await server.rotateKeys();
    assert.notEqual(kid, before);
    assert.equal(server.currentKid(), kid);
    const token = await server.token({ resource: RESOURCE });
    assert.equal(decodeProtectedHeader(token).kid, kid);
    assert.deepEqual((await kids(server)).sort(), [before, kid].sort());
    await jwtVerify(token, createRemoteJWKSet(new URL(server.jwksUri)), { issuer: server.issuer, audience: RESOURCE });

    const only = await server.rotateKeys({ keepOld: false });
    assert.deepEqual(await kids(server), [only]);
    assert.equal(decodeProtectedHeader(await server.token({ resource: RESOURCE })).kid, only);
  });

  test('the registered clients and logins survive a key rotation', async () => {
    await server.rotateKeys();
        const { client_id: clientId } = await server.registerClient({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    await server.rotateKeys();
    const pkce = createPkce();
    const url = server.authorizationUrl({ clientId, redirectUri: REDIRECT, resource: RESOURCE, codeChallenge: pkce.challenge });
    const back = new URL(await server.completeLogin(url, { subject: 'frank' }));
    const code = back.searchParams.get('code');
    assert.ok(code, back.href);
    const tokens = await server.exchangeCode({ clientId }, { code, verifier: pkce.verifier, redirectUri: REDIRECT, resource: RESOURCE });
    assert.equal(decodeProtectedHeader(tokens.access_token).kid, server.currentKid());
    assert.equal(decodeJwt(tokens.access_token)['scope'], 'mcp:read mcp:write mcp:admin', 'no scope asked: the default scope');
  });

  test('no server error was met along the way', () => {
    assert.deepEqual(server.serverErrors.map((e) => e.message), []);
  });
});

describe('the test authorization server, as the official SDK client sees it', () => {
  let server: AuthorizationServer;
  before(async () => {
    server = await startAuthorizationServer();
  });
  after(async () => {
    await server.close();
  });

  test("the SDK's discovery, registration, authorization and token functions accept it", async () => {
    const sdk = await import('@modelcontextprotocol/sdk/client/auth.js');
    const metadata = await sdk.discoverAuthorizationServerMetadata(server.issuer);
    assert.ok(metadata);
    assert.equal(metadata.issuer, server.issuer);
    const clientInformation = await sdk.registerClient(server.issuer, {
      metadata,
      clientMetadata: {
        client_name: 'sdk client',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    });
    const resource = new URL(RESOURCE);
    const { authorizationUrl, codeVerifier } = await sdk.startAuthorization(server.issuer, {
      metadata,
      clientInformation,
      redirectUrl: REDIRECT,
      scope: 'mcp:read',
      state: 'sdk-state',
      resource,
    });
    const back = new URL(await server.completeLogin(authorizationUrl.href, { subject: 'grace' }));
    assert.equal(back.searchParams.get('state'), 'sdk-state');
    const code = back.searchParams.get('code');
    assert.ok(code, back.href);
    const tokens = await sdk.exchangeAuthorization(server.issuer, {
      metadata,
      clientInformation,
      authorizationCode: code,
      codeVerifier,
      redirectUri: REDIRECT,
      resource,
    });
    const jwks = createRemoteJWKSet(new URL(server.jwksUri));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer, audience: RESOURCE, typ: 'at+jwt' });
    assert.equal(payload.sub, 'grace');
    assert.ok(tokens.refresh_token);
    const refreshed = await sdk.refreshAuthorization(server.issuer, { metadata, clientInformation, refreshToken: tokens.refresh_token, resource });
    assert.equal((await jwtVerify(refreshed.access_token, jwks, { issuer: server.issuer, audience: RESOURCE })).payload.sub, 'grace');
  });
});

describe('the test authorization server, limited to known resources', () => {
  let server: AuthorizationServer;
  before(async () => {
    server = await startAuthorizationServer({ resources: [RESOURCE], scopes: ['tools:read'] });
  });
  after(async () => {
    await server.close();
  });

  test('issues tokens for a listed resource, with its scopes', async () => {
    assert.equal(decodeJwt(await server.token({ resource: RESOURCE, scope: 'tools:read' }))['scope'], 'tools:read');
  });

  test('refuses a resource it does not know with invalid_target', async () => {
    await assert.rejects(server.token({ resource: 'http://127.0.0.1:9/other' }), /invalid_target/);
  });

  test('without a resource, a token is opaque and has no audience (only good for userinfo)', async () => {
    const token = await server.token();
    assert.equal(token.split('.').length, 1);
    const answer = await server.introspect(token);
    assert.equal(answer['active'], true);
    assert.equal(answer['aud'], undefined);
  });
});

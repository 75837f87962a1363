import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/helpers/authorization-server.js';
import { FetchPolicyError } from '../fetch-policy.js';
import { authorizationUrl } from './authorization-request.js';
import { obtainClient, type ClientRegistration } from './client-registration.js';
import { discoverAuthorization, type DiscoveredAuthorization } from './discovery.js';
import { OAuthClientError } from './oauth-client-error.js';
import { createPkce } from './pkce.js';
import { clientCredentials, exchangeCode, exchangeToken, refreshTokens } from './token-grants.js';

const fetchOptions = { timeoutMs: 10_000 };
const SERVER_URL = new URL('http://127.0.0.1:9/mcp');
const REDIRECT_URI = 'http://127.0.0.1:45679/callback';

function isCode(code: OAuthClientError['code'], oauthError?: string) {
  return (error: unknown): boolean =>
    error instanceof OAuthClientError && error.code === code && (oauthError === undefined || error.oauthError === oauthError);
}

describe('token grants against the test authorization server (oidc-provider)', () => {
  let as: AuthorizationServer;
  let d: DiscoveredAuthorization;
  let publicClient: ClientRegistration;

  before(async () => {
    as = await startAuthorizationServer();
    d = await discoverAuthorization(SERVER_URL, undefined, { fetch: fetchOptions, authorizationServer: as.issuer });
    publicClient = await obtainClient(d, { clientName: 'mcp-chain test', redirectUri: REDIRECT_URI, grant: 'authorization_code', fetch: fetchOptions });
  });
  after(() => as.close());

  /** A login as `subject`, up to the redirect back: its parameters, the verifier and the state. */
  async function login(subject: string, consent: 'approve' | 'deny' = 'approve', scope?: string) {
    const { verifier, challenge } = createPkce();
    const state = randomBytes(16).toString('base64url');
    const url = authorizationUrl(d, publicClient, { redirectUri: REDIRECT_URI, challenge, state, scope });
    const redirect = new URL(await as.completeLogin(url.href, { subject, consent }));
    return { params: redirect.searchParams, verifier, state };
  }

  test('the authorization code grant: a Bearer token for the resource, with a refresh token', async () => {
    const { params, verifier, state } = await login('alice', 'approve', 'mcp:read mcp:write');
    const tokens = await exchangeCode(
      d,
      publicClient,
      { code: params.get('code') ?? '', verifier, redirectUri: REDIRECT_URI, callbackParams: params, state },
      fetchOptions,
      () => 1_000_000,
    );
    assert.equal(tokens.tokenType, 'Bearer');
    assert.ok(tokens.refreshToken !== undefined);
    assert.equal(tokens.expiresAt, 1_000_000 + 300_000);
    assert.equal(tokens.scope, 'mcp:read mcp:write');
    const claims = decodeJwt(tokens.accessToken);
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.aud, 'http://127.0.0.1:9/mcp', 'the token is bound to the resource (RFC 8707)');
  });

  test('a redirect with another state is refused, and the message holds no code', async () => {
    const { params, verifier } = await login('bob');
    const code = params.get('code') ?? '';
    await assert.rejects(
      exchangeCode(d, publicClient, { code, verifier, redirectUri: REDIRECT_URI, callbackParams: params, state: 'not-the-state' }, fetchOptions),
      (error: unknown) => isCode('state')(error) && error instanceof Error && !error.message.includes(code),
    );
  });

  test('a redirect from another issuer (iss, RFC 9207) is refused', async () => {
    const { params, verifier, state } = await login('bob');
    params.set('iss', 'https://evil.example.com');
    await assert.rejects(
      exchangeCode(d, publicClient, { code: params.get('code') ?? '', verifier, redirectUri: REDIRECT_URI, callbackParams: params, state }, fetchOptions),
      isCode('state'),
    );
  });

  test('a denied consent is OAuthClientError("denied")', async () => {
    const { params, verifier, state } = await login('carol', 'deny');
    assert.equal(params.get('error'), 'access_denied');
    await assert.rejects(
      exchangeCode(d, publicClient, { code: '', verifier, redirectUri: REDIRECT_URI, callbackParams: params, state }, fetchOptions),
      isCode('denied', 'access_denied'),
    );
  });

  test('a wrong PKCE verifier is refused by the server (invalid_grant)', async () => {
    const { params, state } = await login('dave');
    await assert.rejects(
      exchangeCode(
        d,
        publicClient,
        { code: params.get('code') ?? '', verifier: createPkce().verifier, redirectUri: REDIRECT_URI, callbackParams: params, state },
        fetchOptions,
      ),
      isCode('invalid_grant', 'invalid_grant'),
    );
  });

  test('refresh: new tokens for the resource; a revoked grant is OAuthClientError("invalid_grant")', async () => {
    const { params, verifier, state } = await login('erin');
    const first = await exchangeCode(d, publicClient, { code: params.get('code') ?? '', verifier, redirectUri: REDIRECT_URI, callbackParams: params, state }, fetchOptions);
    const refreshToken = first.refreshToken ?? assert.fail('no refresh token');
    const second = await refreshTokens(d, publicClient, { refreshToken }, fetchOptions, () => 5_000);
    assert.notEqual(second.accessToken, first.accessToken);
    assert.equal(second.expiresAt, 5_000 + 300_000);
    assert.equal(decodeJwt(second.accessToken).aud, 'http://127.0.0.1:9/mcp');
    const current = second.refreshToken ?? refreshToken;
    await as.revokeGrant(current);
    await assert.rejects(refreshTokens(d, publicClient, { refreshToken: current }, fetchOptions), isCode('invalid_grant', 'invalid_grant'));
  });

  test('client credentials: a pre-registered confidential client gets a token for the resource and scope', async () => {
    const machine: ClientRegistration = {
      clientId: as.machineClient.clientId,
      clientSecret: as.machineClient.clientSecret,
      tokenEndpointAuthMethod: 'client_secret_basic',
      method: 'preregistered',
    };
    const tokens = await clientCredentials(d, machine, { scope: 'mcp:read' }, fetchOptions);
    assert.equal(tokens.tokenType, 'Bearer');
    assert.equal(tokens.scope, 'mcp:read');
    assert.equal(tokens.refreshToken, undefined);
    const claims = decodeJwt(tokens.accessToken);
    assert.equal(claims.aud, 'http://127.0.0.1:9/mcp');
    assert.equal(claims['client_id'], as.machineClient.clientId);
  });

  test('client credentials with a wrong secret: a grant error that does not hold the secret', async () => {
    const secret = 'wrong-secret-value-123';
    await assert.rejects(
      clientCredentials(d, { clientId: as.machineClient.clientId, clientSecret: secret, tokenEndpointAuthMethod: 'client_secret_post', method: 'preregistered' }, {}, fetchOptions),
      (error: unknown) => isCode('grant', 'invalid_client')(error) && error instanceof Error && !error.message.includes(secret),
    );
  });

  test("token exchange (RFC 8693): a user's token for one of the same subject for another resource", async () => {
    const { params, verifier, state } = await login('frank');
    const front = await exchangeCode(d, publicClient, { code: params.get('code') ?? '', verifier, redirectUri: REDIRECT_URI, callbackParams: params, state }, fetchOptions);
    const exchanger: ClientRegistration = {
      clientId: as.tokenExchangeClient.clientId,
      clientSecret: as.tokenExchangeClient.clientSecret,
      tokenEndpointAuthMethod: 'client_secret_basic',
      method: 'preregistered',
    };
    const tokens = await exchangeToken(d.server, exchanger, { subjectToken: front.accessToken, resource: 'http://127.0.0.1:9/other', scope: 'mcp:read' }, fetchOptions);
    assert.equal(tokens.tokenType, 'Bearer');
    const claims = decodeJwt(tokens.accessToken);
    assert.equal(claims.sub, 'frank');
    assert.equal(claims.aud, 'http://127.0.0.1:9/other');
    assert.deepEqual(as.tokenExchanges.at(-1), {
      clientId: as.tokenExchangeClient.clientId,
      subject: 'frank',
      resource: 'http://127.0.0.1:9/other',
      audience: undefined,
      scope: 'mcp:read',
    });
    // The token endpoint alone is enough (no discovery).
    const again = await exchangeToken(
      { issuer: as.issuer, token_endpoint: as.tokenEndpoint },
      exchanger,
      { subjectToken: front.accessToken, resource: 'http://127.0.0.1:9/third', audience: 'third-api' },
      fetchOptions,
    );
    assert.equal(decodeJwt(again.accessToken).aud, 'third-api');
    // A subject token the server did not issue is refused.
    await assert.rejects(
      exchangeToken(d.server, exchanger, { subjectToken: 'forged', resource: 'http://127.0.0.1:9/other' }, fetchOptions),
      isCode('invalid_grant', 'invalid_grant'),
    );
  });
});

describe('token grants: answers the client does not accept', () => {
  let server: Server;
  let base = '';
  let answer = '';
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client: ClientRegistration = { clientId: 'c', clientSecret: 's', tokenEndpointAuthMethod: 'client_secret_basic', method: 'preregistered' };

  test('a token type other than Bearer is OAuthClientError("unsupported")', async () => {
    const d: DiscoveredAuthorization = { resource: 'https://mcp.example.com', server: { issuer: base, token_endpoint: `${base}/token` } };
    for (const tokenType of ['DPoP', 'mac']) {
      answer = JSON.stringify({ access_token: 'abc', token_type: tokenType, expires_in: 60 });
      await assert.rejects(clientCredentials(d, client, {}, fetchOptions), isCode('unsupported'));
    }
  });

  test('a token endpoint the fetch policy refuses is a grant error', async () => {
    const d: DiscoveredAuthorization = {
      resource: 'https://mcp.example.com',
      server: { issuer: 'https://auth.example.com', token_endpoint: 'https://169.254.169.254/token' },
    };
    await assert.rejects(
      clientCredentials(d, client, {}, fetchOptions),
      (error: unknown) => isCode('grant')(error) && error instanceof Error && error.cause instanceof FetchPolicyError,
    );
  });
});

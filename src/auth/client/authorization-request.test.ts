import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authorizationUrl } from './authorization-request.js';
import type { ClientRegistration } from './client-registration.js';
import type { DiscoveredAuthorization } from './discovery.js';
import { OAuthClientError } from './oauth-client-error.js';

const client: ClientRegistration = { clientId: 'client-1', tokenEndpointAuthMethod: 'none', method: 'dcr' };

function discovered(endpoint: string | undefined, scope?: string): DiscoveredAuthorization {
  return {
    resource: 'https://mcp.example.com/mcp',
    server: { issuer: 'https://auth.example.com', ...(endpoint === undefined ? {} : { authorization_endpoint: endpoint }) },
    ...(scope === undefined ? {} : { scope }),
  };
}

describe('authorizationUrl', () => {
  test('the code flow with PKCE S256, state, scope and the resource indicator', () => {
    const url = authorizationUrl(discovered('https://auth.example.com/authorize?tenant=a', 'files:read'), client, {
      redirectUri: 'http://127.0.0.1:3456/callback',
      challenge: 'the-challenge',
      state: 'the-state',
    });
    assert.equal(url.origin + url.pathname, 'https://auth.example.com/authorize');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      tenant: 'a',
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: 'http://127.0.0.1:3456/callback',
      code_challenge: 'the-challenge',
      code_challenge_method: 'S256',
      state: 'the-state',
      scope: 'files:read',
      resource: 'https://mcp.example.com/mcp',
    });
  });

  test('an explicit scope replaces the discovered one; no scope at all leaves the parameter out', () => {
    const o = { redirectUri: 'http://127.0.0.1:1/callback', challenge: 'c', state: 's' };
    assert.equal(authorizationUrl(discovered('https://a.example/auth', 'x'), client, { ...o, scope: 'y z' }).searchParams.get('scope'), 'y z');
    assert.equal(authorizationUrl(discovered('https://a.example/auth'), client, o).searchParams.has('scope'), false);
  });

  test('an authorization endpoint that is missing, plain http elsewhere than loopback, or link-local is refused', () => {
    const o = { redirectUri: 'http://127.0.0.1:1/callback', challenge: 'c', state: 's' };
    const isDiscovery = (error: unknown): boolean => error instanceof OAuthClientError && error.code === 'discovery';
    assert.throws(() => authorizationUrl(discovered(undefined), client, o), isDiscovery);
    assert.throws(() => authorizationUrl(discovered('http://auth.example.com/authorize'), client, o), isDiscovery);
    assert.throws(() => authorizationUrl(discovered('https://169.254.169.254/authorize'), client, o), isDiscovery);
    assert.equal(authorizationUrl(discovered('http://127.0.0.1:9/auth'), client, o).protocol, 'http:');
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/helpers/authorization-server.js';
import { obtainClient } from './client-registration.js';
import { discoverAuthorization, type DiscoveredAuthorization } from './discovery.js';
import { OAuthClientError } from './oauth-client-error.js';

const fetchOptions = { timeoutMs: 5_000 };

function discovered(server: Record<string, unknown>): DiscoveredAuthorization {
  return {
    resource: 'https://mcp.example.com/mcp',
    server: { issuer: 'https://auth.example.com', code_challenge_methods_supported: ['S256'], ...server },
  };
}

function isRegistrationError(pattern?: RegExp) {
  return (error: unknown): boolean =>
    error instanceof OAuthClientError && error.code === 'registration' && (pattern === undefined || pattern.test(error.message));
}

describe('obtainClient (MCP 2025-11-25, Client Registration Approaches)', () => {
  test('a pre-registered client comes first, even where the server offers more', async () => {
    const d = discovered({ client_id_metadata_document_supported: true, registration_endpoint: 'https://auth.example.com/reg' });
    const client = await obtainClient(d, {
      preregistered: { clientId: 'mine', clientSecret: 's3cret' },
      clientMetadataUrl: 'https://gateway.example.com/client.json',
      clientName: 'mcp-chain',
      redirectUri: 'http://127.0.0.1:1234/callback',
      grant: 'authorization_code',
      fetch: fetchOptions,
    });
    assert.deepEqual(client, {
      clientId: 'mine',
      clientSecret: 's3cret',
      tokenEndpointAuthMethod: 'client_secret_basic',
      redirectUri: 'http://127.0.0.1:1234/callback',
      method: 'preregistered',
    });
  });

  test('a pre-registered client without a secret is public; a declared secret method without a secret is an error', async () => {
    const base = { clientName: 'mcp-chain', grant: 'authorization_code' as const, fetch: fetchOptions };
    assert.equal((await obtainClient(discovered({}), { ...base, preregistered: { clientId: 'pub' } })).tokenEndpointAuthMethod, 'none');
    await assert.rejects(
      obtainClient(discovered({}), { ...base, preregistered: { clientId: 'x', tokenEndpointAuthMethod: 'client_secret_post' } }),
      isRegistrationError(/no clientSecret/),
    );
  });

  test('then the Client ID Metadata Document, when the server supports it and a URL is configured', async () => {
    const d = discovered({ client_id_metadata_document_supported: true, registration_endpoint: 'https://auth.example.com/reg' });
    const client = await obtainClient(d, {
      clientMetadataUrl: 'https://gateway.example.com/oauth/client.json',
      clientName: 'mcp-chain',
      redirectUri: 'http://127.0.0.1:1234/callback',
      grant: 'authorization_code',
      fetch: fetchOptions,
    });
    assert.deepEqual(client, {
      clientId: 'https://gateway.example.com/oauth/client.json',
      tokenEndpointAuthMethod: 'none',
      redirectUri: 'http://127.0.0.1:1234/callback',
      method: 'cimd',
    });
  });

  test('a Client ID Metadata Document URL must be https with a path', async () => {
    const d = discovered({ client_id_metadata_document_supported: true });
    for (const url of ['http://gateway.example.com/client.json', 'https://gateway.example.com/', 'not a url']) {
      await assert.rejects(
        obtainClient(d, { clientMetadataUrl: url, clientName: 'mcp-chain', grant: 'authorization_code', fetch: fetchOptions }),
        isRegistrationError(),
      );
    }
  });

  test('nothing to register with: an error telling the user to configure oauth.client', async () => {
    await assert.rejects(
      obtainClient(discovered({}), { clientName: 'mcp-chain', redirectUri: 'http://127.0.0.1:1/callback', grant: 'authorization_code', fetch: fetchOptions }),
      isRegistrationError(/configure oauth\.client/),
    );
    // A metadata URL is not used where the server does not advertise support.
    await assert.rejects(
      obtainClient(discovered({}), {
        clientMetadataUrl: 'https://gateway.example.com/client.json',
        clientName: 'mcp-chain',
        grant: 'authorization_code',
        fetch: fetchOptions,
      }),
      isRegistrationError(/configure oauth\.client/),
    );
  });

  test('a token exchange needs a pre-registered client', async () => {
    await assert.rejects(
      obtainClient(discovered({ registration_endpoint: 'https://auth.example.com/reg' }), { clientName: 'mcp-chain', grant: 'token_exchange', fetch: fetchOptions }),
      isRegistrationError(/tokenExchange/),
    );
  });

  test('a registration endpoint the fetch policy refuses is a registration error', async () => {
    await assert.rejects(
      obtainClient(discovered({ registration_endpoint: 'https://169.254.169.254/reg' }), {
        clientName: 'mcp-chain',
        redirectUri: 'http://127.0.0.1:1/callback',
        grant: 'authorization_code',
        fetch: fetchOptions,
      }),
      isRegistrationError(),
    );
  });
});

describe('obtainClient: Dynamic Client Registration against the test authorization server', () => {
  let as: AuthorizationServer;
  let d: DiscoveredAuthorization;
  before(async () => {
    as = await startAuthorizationServer();
    d = await discoverAuthorization(new URL('http://127.0.0.1:1/mcp'), undefined, { fetch: fetchOptions, authorizationServer: as.issuer });
  });
  after(() => as.close());

  test('for a login: a public native client with the loopback redirect URI', async () => {
    const client = await obtainClient(d, {
      clientName: 'mcp-chain test',
      redirectUri: 'http://127.0.0.1:45678/callback',
      grant: 'authorization_code',
      scope: 'mcp:read',
      fetch: fetchOptions,
    });
    assert.equal(client.method, 'dcr');
    assert.equal(client.tokenEndpointAuthMethod, 'none');
    assert.equal(client.clientSecret, undefined);
    assert.equal(client.redirectUri, 'http://127.0.0.1:45678/callback');
    assert.ok(client.clientId.length > 0);
  });

  test('for client_credentials: a confidential client that can get a token', async () => {
    const client = await obtainClient(d, { clientName: 'mcp-chain machine', grant: 'client_credentials', fetch: fetchOptions });
    assert.equal(client.method, 'dcr');
    assert.equal(client.tokenEndpointAuthMethod, 'client_secret_basic');
    assert.ok(client.clientSecret !== undefined && client.clientSecret.length > 0);
    const token = await as.token({ client: { clientId: client.clientId, clientSecret: client.clientSecret }, resource: 'http://127.0.0.1:1/mcp' });
    assert.ok(token.length > 0);
  });
});

describe('obtainClient: a registration endpoint that refuses', () => {
  let server: Server;
  let base = '';
  before(async () => {
    server = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_client_metadata","error_description":"no"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('the OAuth error is kept in oauthError', async () => {
    await assert.rejects(
      obtainClient(discovered({ issuer: base, registration_endpoint: `${base}/reg` }), {
        clientName: 'mcp-chain',
        redirectUri: 'http://127.0.0.1:1/callback',
        grant: 'authorization_code',
        fetch: fetchOptions,
      }),
      (error: unknown) => error instanceof OAuthClientError && error.code === 'registration' && error.oauthError === 'invalid_client_metadata',
    );
  });
});

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/helpers/authorization-server.js';
import { FetchPolicyError } from '../fetch-policy.js';
import {
  authorizationServerMetadataUrls,
  canonicalResourceUrl,
  discoverAuthorization,
  protectedResourceMetadataUrls,
} from './discovery.js';
import { OAuthClientError } from './oauth-client-error.js';

/** A tiny HTTP fixture: fixed answers per path, every request path recorded. */
class Fixture {
  readonly routes = new Map<string, { status: number; body: string }>();
  readonly requests: string[] = [];
  private server: Server | undefined;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.requests.push(path);
      const route = this.routes.get(path);
      if (route === undefined) res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      else res.writeHead(route.status, { 'content-type': 'application/json' }).end(route.body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  json(path: string, body: unknown, status = 200): void {
    this.routes.set(path, { status, body: JSON.stringify(body) });
  }

  reset(): void {
    this.routes.clear();
    this.requests.length = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }
}

function asMetadata(issuer: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    code_challenge_methods_supported: ['S256'],
    ...extra,
  };
}

const fetchOptions = { timeoutMs: 5_000 };

function isCode(code: OAuthClientError['code']) {
  return (error: unknown): boolean => error instanceof OAuthClientError && error.code === code;
}

describe('well-known URLs (MCP 2025-11-25, Authorization Server Discovery)', () => {
  test('protected resource metadata: path-inserted, then root', () => {
    assert.deepEqual(
      protectedResourceMetadataUrls(new URL('https://example.com/public/mcp')).map((u) => u.href),
      ['https://example.com/.well-known/oauth-protected-resource/public/mcp', 'https://example.com/.well-known/oauth-protected-resource'],
    );
    assert.deepEqual(protectedResourceMetadataUrls(new URL('https://example.com/')).map((u) => u.href), [
      'https://example.com/.well-known/oauth-protected-resource',
    ]);
  });

  test('authorization server metadata of an issuer with a path: three URLs in order', () => {
    assert.deepEqual(
      authorizationServerMetadataUrls(new URL('https://auth.example.com/tenant1')).map((u) => u.href),
      [
        'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
        'https://auth.example.com/.well-known/openid-configuration/tenant1',
        'https://auth.example.com/tenant1/.well-known/openid-configuration',
      ],
    );
  });

  test('authorization server metadata of an issuer without a path: two URLs in order', () => {
    assert.deepEqual(authorizationServerMetadataUrls(new URL('https://auth.example.com')).map((u) => u.href), [
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
  });

  test('canonical server URI: lowercase scheme and host, no fragment or query, no trailing slash on an origin', () => {
    assert.equal(canonicalResourceUrl('HTTPS://MCP.Example.com/'), 'https://mcp.example.com');
    assert.equal(canonicalResourceUrl('https://mcp.example.com:8443/server/mcp?x=1#frag'), 'https://mcp.example.com:8443/server/mcp');
  });
});

describe('discoverAuthorization against a fixture', () => {
  const fixture = new Fixture();
  before(() => fixture.start());
  after(() => fixture.close());
  beforeEach(() => fixture.reset());

  test("the challenge's resource_metadata is used, and no well-known URL is asked", async () => {
    fixture.json('/custom/prm', { resource: `${fixture.base}/mcp`, authorization_servers: [fixture.base], scopes_supported: ['a', 'b'] });
    fixture.json('/.well-known/oauth-authorization-server', asMetadata(fixture.base));
    const found = await discoverAuthorization(
      new URL(`${fixture.base}/mcp`),
      { scheme: 'Bearer', resourceMetadata: `${fixture.base}/custom/prm`, scope: 'files:read' },
      { fetch: fetchOptions },
    );
    assert.deepEqual(fixture.requests, ['/custom/prm', '/.well-known/oauth-authorization-server']);
    assert.equal(found.resource, `${fixture.base}/mcp`);
    assert.equal(found.server.issuer, fixture.base);
    assert.equal(found.server.token_endpoint, `${fixture.base}/token`);
    assert.equal(found.scope, 'files:read', "the challenge's scope wins over scopes_supported");
  });

  test('without a challenge: path-inserted well-known first, then the root; scope from scopes_supported', async () => {
    fixture.json('/.well-known/oauth-protected-resource', { resource: `${fixture.base}/public/mcp`, authorization_servers: [fixture.base], scopes_supported: ['a', 'b'] });
    fixture.json('/.well-known/oauth-authorization-server', asMetadata(fixture.base));
    const found = await discoverAuthorization(new URL(`${fixture.base}/public/mcp`), undefined, { fetch: fetchOptions });
    assert.deepEqual(fixture.requests, [
      '/.well-known/oauth-protected-resource/public/mcp',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
    ]);
    assert.equal(found.scope, 'a b');
    assert.equal(found.resourceMetadata?.resource, `${fixture.base}/public/mcp`);
  });

  test('the path-inserted metadata, when there, is the one used', async () => {
    fixture.json('/.well-known/oauth-protected-resource/mcp', { resource: `${fixture.base}/mcp`, authorization_servers: [fixture.base] });
    fixture.json('/.well-known/oauth-authorization-server', asMetadata(fixture.base));
    const found = await discoverAuthorization(new URL(`${fixture.base}/mcp`), undefined, { fetch: fetchOptions });
    assert.deepEqual(fixture.requests, ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']);
    assert.equal(found.scope, undefined, 'no scope when neither the challenge nor the metadata names one');
  });

  test("an issuer with a path: RFC 8414 inserted, OpenID inserted, OpenID appended, in that order", async () => {
    const issuer = `${fixture.base}/tenant1`;
    fixture.json('/.well-known/oauth-protected-resource', { resource: fixture.base, authorization_servers: [issuer] });
    fixture.json('/tenant1/.well-known/openid-configuration', asMetadata(issuer));
    const found = await discoverAuthorization(new URL(`${fixture.base}/`), undefined, { fetch: fetchOptions });
    assert.deepEqual(fixture.requests, [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server/tenant1',
      '/.well-known/openid-configuration/tenant1',
      '/tenant1/.well-known/openid-configuration',
    ]);
    assert.equal(found.server.issuer, issuer);
    assert.equal(found.resource, fixture.base);
  });

  test('an issuer without a path: OpenID discovery after RFC 8414', async () => {
    fixture.json('/.well-known/oauth-protected-resource', { resource: fixture.base, authorization_servers: [fixture.base] });
    fixture.json('/.well-known/openid-configuration', asMetadata(fixture.base));
    await discoverAuthorization(new URL(fixture.base), undefined, { fetch: fetchOptions });
    assert.deepEqual(fixture.requests.slice(1), ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
  });

  test('a server without protected resource metadata (2025-03-26): the authorization server is its origin', async () => {
    fixture.json('/.well-known/oauth-authorization-server', asMetadata(fixture.base));
    const found = await discoverAuthorization(new URL(`${fixture.base}/mcp`), undefined, { fetch: fetchOptions });
    assert.equal(found.server.issuer, fixture.base);
    assert.equal(found.resource, `${fixture.base}/mcp`);
    assert.equal(found.resourceMetadata, undefined);
  });

  test('options.authorizationServer skips the protected resource metadata; options.resource replaces the resource', async () => {
    fixture.json('/.well-known/oauth-authorization-server', asMetadata(fixture.base));
    const found = await discoverAuthorization(new URL(`${fixture.base}/mcp`), undefined, {
      fetch: fetchOptions,
      authorizationServer: fixture.base,
      resource: 'https://api.example.com/',
    });
    assert.deepEqual(fixture.requests, ['/.well-known/oauth-authorization-server']);
    assert.equal(found.resource, 'https://api.example.com/');
  });

  test('metadata whose issuer is not the one asked for is refused', async () => {
    fixture.json('/.well-known/oauth-protected-resource', { resource: fixture.base, authorization_servers: [fixture.base] });
    fixture.json('/.well-known/oauth-authorization-server', asMetadata('https://evil.example.com'));
    await assert.rejects(discoverAuthorization(new URL(fixture.base), undefined, { fetch: fetchOptions }), (error: unknown) => {
      assert.ok(error instanceof OAuthClientError);
      assert.equal(error.code, 'discovery');
      assert.match(error.message, /issuer/);
      return true;
    });
  });

  test('protected resource metadata for another resource is refused (RFC 9728 section 3.3)', async () => {
    fixture.json('/prm', { resource: 'https://other.example.com/mcp', authorization_servers: [fixture.base] });
    await assert.rejects(
      discoverAuthorization(new URL(`${fixture.base}/mcp`), { scheme: 'Bearer', resourceMetadata: `${fixture.base}/prm` }, { fetch: fetchOptions }),
      isCode('discovery'),
    );
    fixture.json('/prm', { resource: `${fixture.base}/other`, authorization_servers: [fixture.base] });
    await assert.rejects(
      discoverAuthorization(new URL(`${fixture.base}/mcp`), { scheme: 'Bearer', resourceMetadata: `${fixture.base}/prm` }, { fetch: fetchOptions }),
      isCode('discovery'),
    );
  });

  test('protected resource metadata for the same origin with a path prefix of the server is accepted (as the MCP SDKs do)', async () => {
    fixture.json('/.well-known/oauth-protected-resource', { resource: `${fixture.base}/`, authorization_servers: [fixture.base] });
    fixture.json('/.well-known/oauth-authorization-server', asMetadata(fixture.base));
    const found = await discoverAuthorization(new URL(`${fixture.base}/api/mcp`), undefined, { fetch: fetchOptions });
    assert.equal(found.resource, `${fixture.base}/`, "the resource indicator is the metadata's resource");
    fixture.json('/prm', { resource: 'not a url', authorization_servers: [fixture.base] });
    await assert.rejects(
      discoverAuthorization(new URL(`${fixture.base}/mcp`), { scheme: 'Bearer', resourceMetadata: `${fixture.base}/prm` }, { fetch: fetchOptions }),
      isCode('discovery'),
    );
  });

  test('protected resource metadata naming no authorization server is refused', async () => {
    fixture.json('/.well-known/oauth-protected-resource', { resource: fixture.base, authorization_servers: [] });
    await assert.rejects(discoverAuthorization(new URL(fixture.base), undefined, { fetch: fetchOptions }), isCode('discovery'));
  });

  test('an authorization server without PKCE S256 is refused (code_challenge_methods_supported)', async () => {
    fixture.json('/.well-known/oauth-authorization-server', asMetadata(fixture.base, { code_challenge_methods_supported: ['plain'] }));
    await assert.rejects(
      discoverAuthorization(new URL(fixture.base), undefined, { fetch: fetchOptions, authorizationServer: fixture.base }),
      isCode('unsupported'),
    );
    fixture.json('/.well-known/oauth-authorization-server', asMetadata(fixture.base, { code_challenge_methods_supported: undefined }));
    await assert.rejects(
      discoverAuthorization(new URL(fixture.base), undefined, { fetch: fetchOptions, authorizationServer: fixture.base }),
      isCode('unsupported'),
    );
  });

  test('no authorization server metadata anywhere: a discovery error', async () => {
    await assert.rejects(discoverAuthorization(new URL(fixture.base), undefined, { fetch: fetchOptions }), isCode('discovery'));
  });

  test('a server error on a well-known URL is an error, not a reason to try the next', async () => {
    fixture.json('/.well-known/oauth-protected-resource/mcp', { error: 'boom' }, 500);
    await assert.rejects(discoverAuthorization(new URL(`${fixture.base}/mcp`), undefined, { fetch: fetchOptions }), isCode('discovery'));
    assert.deepEqual(fixture.requests, ['/.well-known/oauth-protected-resource/mcp']);
  });

  test('oversized metadata is refused', async () => {
    fixture.json('/.well-known/oauth-protected-resource', { resource: fixture.base, authorization_servers: [fixture.base], pad: 'x'.repeat(3_000) });
    await assert.rejects(
      discoverAuthorization(new URL(fixture.base), undefined, { fetch: { ...fetchOptions, maxBytes: 2_000 } }),
      (error: unknown) => error instanceof OAuthClientError && error.code === 'discovery' && /larger than 2000 bytes/.test(error.message),
    );
  });

  test('URLs learned from the network go through the fetch policy: no plain http elsewhere, no link-local', async () => {
    const policy = (error: unknown): boolean => error instanceof OAuthClientError && error.code === 'discovery' && error.cause instanceof FetchPolicyError;
    await assert.rejects(
      discoverAuthorization(new URL(`${fixture.base}/mcp`), { scheme: 'Bearer', resourceMetadata: 'http://example.com/prm' }, { fetch: fetchOptions }),
      policy,
    );
    await assert.rejects(
      discoverAuthorization(
        new URL(`${fixture.base}/mcp`),
        { scheme: 'Bearer', resourceMetadata: 'https://169.254.169.254/latest/meta-data/' },
        { fetch: fetchOptions },
      ),
      policy,
    );
    fixture.json('/.well-known/oauth-protected-resource', { resource: fixture.base, authorization_servers: ['https://[fe80::1]/'] });
    await assert.rejects(discoverAuthorization(new URL(fixture.base), undefined, { fetch: fetchOptions }), policy);
  });
});

describe('discoverAuthorization against the test authorization server (oidc-provider)', () => {
  let as: AuthorizationServer;
  const fixture = new Fixture();
  before(async () => {
    as = await startAuthorizationServer();
    await fixture.start();
  });
  after(async () => {
    await fixture.close();
    await as.close();
  });

  test('finds the endpoints and PKCE S256 through the protected resource metadata', async () => {
    fixture.json('/.well-known/oauth-protected-resource/mcp', { resource: `${fixture.base}/mcp`, authorization_servers: [as.issuer], scopes_supported: ['mcp:read'] });
    const found = await discoverAuthorization(new URL(`${fixture.base}/mcp`), undefined, { fetch: fetchOptions });
    assert.equal(found.server.issuer, as.issuer);
    assert.equal(found.server.token_endpoint, as.tokenEndpoint);
    assert.equal(found.server.authorization_endpoint, as.authorizationEndpoint);
    assert.equal(found.server.registration_endpoint, as.registrationEndpoint);
    assert.ok(found.server.code_challenge_methods_supported?.includes('S256'));
    assert.equal(found.scope, 'mcp:read');
    assert.equal(found.resource, `${fixture.base}/mcp`);
  });
});

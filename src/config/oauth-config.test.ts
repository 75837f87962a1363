// `http.oauth` in a config file: the HTTP front as an OAuth resource server. Validated like the
// rest (every problem at its path), `${VAR}` resolved in its values, defaults applied, and its
// secret (the introspection client secret) never shown by `mcp-chain validate`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeConfig } from '../cli/describe-config.js';
import { configErrorOf, tempDir, write } from './_test/config-files.js';
import { CONFIG_SCHEMA } from './config-schema.js';
import type { OAuthFrontInput } from './define-config.js';
import type { GatewayConfig, OAuthFrontConfig } from './gateway-config.js';
import { loadConfig } from './load-config.js';

const dir = tempDir();
let count = 0;

function file(oauth: unknown, http: object = {}): string {
  count += 1;
  return write(dir, `config-${count}.json`, { mcpServers: { a: { command: 'a' } }, http: { port: 9000, ...http, oauth } });
}

async function problems(oauth: unknown, env: Record<string, string> = {}): Promise<string[]> {
  const error = await configErrorOf(loadConfig(file(oauth), { env }));
  return error.problems.map((p) => `${p.path}: ${p.message}`);
}

function oauthOf(config: GatewayConfig): OAuthFrontConfig {
  assert.equal(config.front.kind, 'http');
  if (config.front.kind !== 'http' || config.front.oauth === undefined) throw new Error('expected http.oauth');
  return config.front.oauth;
}

const jwt = { resource: 'https://mcp.example.com/mcp', issuer: 'https://login.example.com', jwksUri: 'https://login.example.com/jwks' };

/** Every key of OAuthFrontInput, listed: the compiler fails when one is missing or one too many. */
const OAUTH_INPUT_KEYS: Record<keyof OAuthFrontInput, true> = {
  resource: true, issuer: true, authorizationServers: true, jwksUri: true, introspection: true, audience: true, requiredScopes: true,
  scopesSupported: true, claims: true, resourceName: true, algorithms: true, clockToleranceSec: true,
};

describe('http.oauth in a config file', () => {
  test('OAuthFrontInput (the TypeScript config type) has exactly the keys the schema reads', () => {
    const shape = CONFIG_SCHEMA.shape.http.unwrap().shape.oauth.unwrap().shape;
    assert.deepEqual(Object.keys(OAUTH_INPUT_KEYS).sort(), Object.keys(shape).sort());
  });

  test('JWT access tokens: the audience defaults to the resource, the authorization servers to the issuer', async () => {
    const oauth = oauthOf(await loadConfig(file(jwt), { env: {} }));
    assert.deepEqual(oauth, {
      resource: 'https://mcp.example.com/mcp',
      issuer: 'https://login.example.com',
      authorizationServers: ['https://login.example.com'],
      audience: ['https://mcp.example.com/mcp'],
      tokens: { kind: 'jwt', jwksUri: 'https://login.example.com/jwks' },
    });
  });

  test('${VAR} is resolved in its URLs, client id and secret; the other keys are taken as written', async () => {
    const config = await loadConfig(
      file({
        resource: 'https://${HOST}/mcp',
        issuer: '${ISSUER}',
        introspection: { endpoint: '${ISSUER}/introspect', clientId: '${CLIENT}', clientSecret: '${SECRET}', clientAuth: 'client_secret_post', cacheMs: 0 },
        audience: ['${HOST}', 'https://other.example.com'],
        authorizationServers: ['${ISSUER}', 'https://backup.example.com'],
        requiredScopes: ['mcp'],
        scopesSupported: ['mcp', 'mcp:admin'],
        claims: ['email', 'groups'],
        resourceName: 'ACME gateway',
        clockToleranceSec: 10,
      }),
      { env: { HOST: 'mcp.example.com', ISSUER: 'https://login.example.com', CLIENT: 'gateway', SECRET: 's3cr3t-value' } },
    );
    assert.deepEqual(oauthOf(config), {
      resource: 'https://mcp.example.com/mcp',
      issuer: 'https://login.example.com',
      authorizationServers: ['https://login.example.com', 'https://backup.example.com'],
      audience: ['mcp.example.com', 'https://other.example.com'],
      tokens: { kind: 'introspection', endpoint: 'https://login.example.com/introspect', clientId: 'gateway', clientSecret: 's3cr3t-value', clientAuth: 'client_secret_post', cacheMs: 0 },
      requiredScopes: ['mcp'],
      scopesSupported: ['mcp', 'mcp:admin'],
      claims: ['email', 'groups'],
      resourceName: 'ACME gateway',
      clockToleranceSec: 10,
    });
  });

  test('an unset variable is a problem at its place', async () => {
    assert.deepEqual(await problems({ resource: jwt.resource, issuer: jwt.issuer, introspection: { endpoint: 'https://login.example.com/i', clientId: 'gw', clientSecret: '${SECRET}' } }), [
      'http.oauth.introspection.clientSecret: uses ${SECRET}, which is not set',
    ]);
  });

  test('neither or both of jwksUri and introspection: a problem at http.oauth', async () => {
    assert.deepEqual(await problems({ resource: jwt.resource, issuer: jwt.issuer }), [
      'http.oauth: expected "jwksUri" (JWT access tokens, checked against the issuer\'s keys) or "introspection" (opaque tokens)',
    ]);
    assert.deepEqual(await problems({ ...jwt, introspection: { endpoint: 'https://login.example.com/i', clientId: 'gw', clientSecret: 'x' } }), [
      'http.oauth: give one of "jwksUri" and "introspection", not both',
    ]);
  });

  test('wrong types and missing keys: problems with their paths', async () => {
    const found = await problems({ resource: 42, jwksUri: jwt.jwksUri, requiredScopes: 'mcp', clockToleranceSec: -1, introspection: { endpoint: 'https://x.example.com' } });
    const paths = found.map((line) => line.slice(0, line.indexOf(':')));
    for (const path of ['http.oauth.resource', 'http.oauth.issuer', 'http.oauth.requiredScopes', 'http.oauth.clockToleranceSec', 'http.oauth.introspection.clientId', 'http.oauth.introspection.clientSecret']) {
      assert.ok(paths.includes(path), `${path} in ${JSON.stringify(found)}`);
    }
    assert.ok((await problems({ ...jwt, colour: 'blue' })).some((line) => line.startsWith('http.oauth') && line.includes('colour')));
  });

  test('bad URLs: not absolute http(s), a fragment in the resource, a fetched URL outside the fetch policy', async () => {
    assert.deepEqual(
      await problems({
        resource: 'mcp.example.com/mcp#x',
        issuer: 'ftp://login.example.com',
        jwksUri: 'http://login.example.com/jwks',
      }),
      [
        'http.oauth.resource: expected an absolute http:// or https:// URL',
        'http.oauth.issuer: expected an absolute http:// or https:// URL',
        'http.oauth.jwksUri: http://login.example.com/jwks: plain http is allowed only to loopback; use https',
      ],
    );
    assert.deepEqual(await problems({ ...jwt, resource: 'https://mcp.example.com/mcp#frag' }), ['http.oauth.resource: a resource identifier has no fragment (#...)']);
    assert.deepEqual(await problems({ resource: jwt.resource, issuer: jwt.issuer, introspection: { endpoint: 'http://169.254.169.254/introspect', clientId: 'gw', clientSecret: 'x' } }), [
      'http.oauth.introspection.endpoint: http://169.254.169.254/introspect: plain http is allowed only to loopback; use https',
    ]);
    // Plain http to loopback is allowed (a local authorization server).
    const local = oauthOf(await loadConfig(file({ resource: 'http://127.0.0.1:9000/mcp', issuer: 'http://127.0.0.1:4000', jwksUri: 'http://127.0.0.1:4000/jwks' }), { env: {} }));
    assert.equal(local.tokens.kind, 'jwt');
  });

  test('none and HS* are refused among the algorithms; algorithms apply to JWTs only', async () => {
    assert.deepEqual(await problems({ ...jwt, algorithms: ['RS256', 'none', 'HS256'] }), [
      'http.oauth.algorithms[1]: none is never accepted: only asymmetric algorithms (RS*, PS*, ES*, EdDSA)',
      'http.oauth.algorithms[2]: HS256 is never accepted: only asymmetric algorithms (RS*, PS*, ES*, EdDSA)',
    ]);
    assert.deepEqual(await problems({ resource: jwt.resource, issuer: jwt.issuer, algorithms: ['RS256'], introspection: { endpoint: 'https://login.example.com/i', clientId: 'gw', clientSecret: 'x' } }), [
      'http.oauth.algorithms: applies to JWT access tokens ("jwksUri") only',
    ]);
  });

  test('validate shows the resource, the issuer and how tokens are checked, never the client secret', async () => {
    const path = file(
      { resource: jwt.resource, issuer: jwt.issuer, introspection: { endpoint: 'https://login.example.com/introspect', clientId: 'gateway', clientSecret: '${SECRET}' }, requiredScopes: ['mcp'] },
      { host: '0.0.0.0' },
    );
    const text = describeConfig(await loadConfig(path, { env: { SECRET: 's3cr3t-value' } }), { secrets: new Map([['SECRET', 's3cr3t-value']]) });
    assert.ok(!text.includes('s3cr3t-value'), text);
    assert.match(text, /^front: Streamable HTTP at http:\/\/0\.0\.0\.0:9000\/mcp; OAuth access tokens accepted$/m);
    assert.match(
      text,
      /^oauth: resource https:\/\/mcp\.example\.com\/mcp; issuer https:\/\/login\.example\.com; opaque tokens by introspection at https:\/\/login\.example\.com\/introspect as client gateway; scopes required: mcp$/m,
    );
    const jwtText = describeConfig(await loadConfig(file({ ...jwt, audience: 'api://mcp', algorithms: ['ES256'] }, { tokens: ['t0ken-1'] }), { env: {} }));
    assert.match(jwtText, /; tokens: token-1; OAuth access tokens accepted$/m);
    assert.match(jwtText, /^oauth: resource https:\/\/mcp\.example\.com\/mcp; issuer https:\/\/login\.example\.com; audience api:\/\/mcp; JWT access tokens, keys at https:\/\/login\.example\.com\/jwks \(ES256\)$/m);
  });
});

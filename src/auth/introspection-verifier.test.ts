import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LogFields, Logger } from '../log/logger.js';
import { introspectionVerifier, type IntrospectionVerifierOptions } from './introspection-verifier.js';
import { TokenRefusal, type TokenVerifier } from './token-verifier.js';

const RESOURCE = 'https://gateway.example.com/mcp';
const ISSUER = 'https://issuer.example.com';
const CLIENT_ID = 'gateway client';
const CLIENT_SECRET = 's3cret:with/odd chars';
const T0 = 1_800_000_000_000;

/** A logger that keeps every line, for asserting what was (not) written. */
function capturingLogger(lines: string[]): Logger {
  const write = (message: string, fields?: LogFields): void => {
    lines.push(`${message} ${JSON.stringify(fields ?? {})}`);
  };
  const logger: Logger = { error: write, warn: write, info: write, debug: write, child: () => logger };
  return logger;
}

async function refusal(promise: Promise<unknown>): Promise<TokenRefusal> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TokenRefusal, `expected a TokenRefusal, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a refusal, the token was accepted');
}

describe('introspectionVerifier', () => {
  let server: Server;
  let base: string;
  /** What the fake authorization server answers per token, and how often each was asked. */
  const answers = new Map<string, Record<string, unknown>>();
  const asked = new Map<string, number>();
  const held: ServerResponse[] = [];
  let clock = T0;
  let logLines: string[] = [];

  const active = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    active: true,
    sub: 'alice',
    client_id: 'client-1',
    scope: 'tools:read tools:call',
    aud: RESOURCE,
    iss: ISSUER,
    exp: Math.floor(clock / 1000) + 3600,
    ...extra,
  });

  const verifier = (path = '/introspect', options: Partial<IntrospectionVerifierOptions> = {}): TokenVerifier =>
    introspectionVerifier({
      endpoint: `${base}${path}`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      audience: RESOURCE,
      issuer: ISSUER,
      now: () => clock,
      logger: capturingLogger(logLines),
      ...options,
    });

  /** The fake endpoint's client authentication: Basic, or the form's fields. */
  function authenticated(req: IncomingMessage, form: URLSearchParams): boolean {
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID).replace(/%20/g, '+')}:${encodeURIComponent(CLIENT_SECRET).replace(/%20/g, '+')}`).toString('base64')}`;
    if (req.url === '/introspect-post') return req.headers.authorization === undefined && form.get('client_id') === CLIENT_ID && form.get('client_secret') === CLIENT_SECRET;
    return req.headers.authorization === basic && !form.has('client_secret');
  }

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const token = form.get('token') ?? '';
        asked.set(token, (asked.get(token) ?? 0) + 1);
        if (req.method !== 'POST' || form.get('token_type_hint') !== 'access_token') return void res.writeHead(400).end();
        if (!authenticated(req, form)) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
        if (req.url === '/slow') return void held.push(res);
        if (req.url === '/big') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...active(), pad: 'x'.repeat(100_000) }));
        if (req.url === '/broken') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"active":"yes"}');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers.get(token) ?? { active: false }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  beforeEach(() => {
    clock = T0;
    logLines = [];
  });

  after(async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('an active token gives its subject, client, scopes, expiry and claims (client_secret_basic)', async () => {
    answers.set('tok-active', active({ tenant: 'acme' }));
    const verified = await verifier().verify('tok-active');
    assert.equal(verified.subject, 'alice');
    assert.equal(verified.clientId, 'client-1');
    assert.deepEqual(verified.scopes, ['tools:read', 'tools:call']);
    assert.equal(verified.expiresAt, (Math.floor(T0 / 1000) + 3600) * 1000);
    assert.equal(verified.claims.tenant, 'acme');
  });

  test('client_secret_post sends the credentials in the form instead', async () => {
    answers.set('tok-post', active());
    assert.equal((await verifier('/introspect-post', { clientAuth: 'client_secret_post' }).verify('tok-post')).subject, 'alice');
  });

  test('wrong client credentials are the verifier failing (503), not the token', async () => {
    answers.set('tok-creds', active());
    const wrong = verifier('/introspect', { clientSecret: 'nope' });
    await assert.rejects(wrong.verify('tok-creds'), (e: unknown) => e instanceof Error && !(e instanceof TokenRefusal) && /401/.test(e.message));
  });

  test('an inactive token is refused, and a token revoked at the server is refused once the cache lapses', async () => {
    answers.set('tok-inactive', { active: false });
    const v = verifier();
    const inactive = await refusal(v.verify('tok-inactive'));
    assert.equal(inactive.error, 'invalid_token');
    assert.match(inactive.message, /revoked or inactive/);

    answers.set('tok-revoked', active());
    await v.verify('tok-revoked');
    answers.set('tok-revoked', { active: false });
    clock += 30_000;
    assert.equal((await refusal(v.verify('tok-revoked'))).error, 'invalid_token');
  });

  test('a token for another resource, from another issuer, expired or without a subject is refused', async () => {
    const v = verifier();
    answers.set('tok-aud', active({ aud: 'https://other.example.com/mcp' }));
    assert.match((await refusal(v.verify('tok-aud'))).message, /another resource/);
    answers.set('tok-aud-array', active({ aud: ['https://other.example.com', RESOURCE] }));
    await v.verify('tok-aud-array');
    answers.set('tok-no-aud', active({ aud: undefined }));
    assert.match((await refusal(v.verify('tok-no-aud'))).message, /another resource/);
    answers.set('tok-iss', active({ iss: 'https://evil.example.com' }));
    assert.match((await refusal(v.verify('tok-iss'))).message, /another issuer/);
    answers.set('tok-exp', active({ exp: Math.floor(T0 / 1000) - 120 }));
    assert.match((await refusal(v.verify('tok-exp'))).message, /expired/);
    answers.set('tok-nosub', active({ sub: undefined }));
    assert.match((await refusal(v.verify('tok-nosub'))).message, /no subject/);
  });

  test('a missing scope is insufficient_scope naming it', async () => {
    answers.set('tok-scope', active({ scope: 'tools:call' }));
    const refused = await refusal(verifier('/introspect', { requiredScopes: ['tools:read'] }).verify('tok-scope'));
    assert.equal(refused.error, 'insufficient_scope');
    assert.deepEqual(refused.scopes, ['tools:read']);
  });

  test('an answer is reused within cacheMs, then asked again', async () => {
    answers.set('tok-cache', active());
    const v = verifier();
    await v.verify('tok-cache');
    clock += 29_000;
    await v.verify('tok-cache');
    assert.equal(asked.get('tok-cache'), 1);
    clock += 1_000;
    await v.verify('tok-cache');
    assert.equal(asked.get('tok-cache'), 2);
  });

  test('an answer is never reused past the token expiry', async () => {
    answers.set('tok-short', active({ exp: Math.floor(T0 / 1000) + 5 }));
    const v = verifier('/introspect', { cacheMs: 60_000 });
    await v.verify('tok-short');
    clock += 4_000;
    await v.verify('tok-short');
    assert.equal(asked.get('tok-short'), 1);
    clock += 1_000;
    answers.set('tok-short', { active: false });
    assert.equal((await refusal(v.verify('tok-short'))).error, 'invalid_token');
    assert.equal(asked.get('tok-short'), 2);
  });

  test('concurrent checks of one token share one request', async () => {
    answers.set('tok-flight', active());
    const v = verifier();
    const results = await Promise.all(Array.from({ length: 10 }, () => v.verify('tok-flight')));
    assert.ok(results.every((r) => r.subject === 'alice'));
    assert.equal(asked.get('tok-flight'), 1);
  });

  test('an oversize, slow or malformed answer is the verifier failing, not cached', async () => {
    const big = verifier('/big', { maxBytes: 4096 });
    await assert.rejects(big.verify('tok-big'), (e: unknown) => e instanceof Error && !(e instanceof TokenRefusal) && /larger than/.test(e.message));
    const slow = verifier('/slow', { timeoutMs: 100 });
    await assert.rejects(slow.verify('tok-slow'), (e: unknown) => e instanceof Error && !(e instanceof TokenRefusal) && /within 100 ms/.test(e.message));
    const broken = verifier('/broken');
    await assert.rejects(broken.verify('tok-broken'), (e: unknown) => e instanceof Error && !(e instanceof TokenRefusal) && /active/.test(e.message));
    await assert.rejects(broken.verify('tok-broken'));
    assert.equal(asked.get('tok-broken'), 2);
  });

  test('an endpoint outside the fetch policy is refused at construction', () => {
    assert.throws(() => verifier('', { endpoint: 'http://issuer.example.com/introspect' }), /https/);
    assert.throws(() => verifier('', { endpoint: 'https://169.254.169.254/introspect' }), /metadata/);
  });

  test('neither the token nor the client secret appears in any error or log line', async () => {
    const secretToken = 'opaque-SECRET-token-value-123';
    const errors: string[] = [];
    const collect = async (v: TokenVerifier): Promise<void> => {
      try {
        await v.verify(secretToken);
      } catch (error) {
        errors.push(error instanceof Error ? `${error.name} ${error.message} ${String(error.stack)}` : String(error));
      }
    };
    answers.set(secretToken, { active: false });
    await collect(verifier());
    await collect(verifier('/big', { maxBytes: 1024 }));
    await collect(verifier('/slow', { timeoutMs: 50 }));
    await collect(verifier('/introspect', { clientSecret: 'wrong-secret' }));
    assert.equal(errors.length, 4);
    assert.ok(logLines.length >= 3);
    for (const text of [...errors, ...logLines]) {
      assert.ok(!text.includes(secretToken), text);
      assert.ok(!text.includes(CLIENT_SECRET), text);
      assert.ok(!text.includes('wrong-secret'), text);
    }
  });
});

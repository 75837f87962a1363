import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { jwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js';
import { TokenRefusal, type TokenVerifier } from './token-verifier.js';

const ISSUER = 'https://issuer.example.com';
const RESOURCE = 'https://gateway.example.com/mcp';

interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly jwk: JWK;
}

async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

const nowSec = (): number => Math.floor(Date.now() / 1000);

async function sign(
  key: SigningKey,
  claims: Record<string, unknown> = {},
  header: { alg?: string; typ?: string; kid?: string } = {},
): Promise<string> {
  return new SignJWT({ sub: 'alice', client_id: 'client-1', scope: 'tools:read tools:call', ...claims })
    .setProtectedHeader({ alg: header.alg ?? key.jwk.alg ?? 'RS256', kid: header.kid ?? key.kid, typ: header.typ ?? 'at+jwt' })
    .setIssuer(typeof claims.iss === 'string' ? claims.iss : ISSUER)
    .setAudience((claims.aud as string | undefined) ?? RESOURCE)
    .setIssuedAt()
    .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : nowSec() + 300)
    .sign(key.privateKey);
}

/** Resolves to the refusal, failing when the promise resolves or rejects with something else. */
async function refusal(promise: Promise<unknown>): Promise<TokenRefusal> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TokenRefusal, `expected a TokenRefusal, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a refusal, the token was accepted');
}

describe('jwtVerifier', () => {
  let server: Server;
  let base: string;
  /** The keys each JWKS path serves, and how often it was fetched. */
  const jwks = new Map<string, JWK[]>();
  const fetches = new Map<string, number>();
  let keyA: SigningKey;
  let keyB: SigningKey;
  let keyEc: SigningKey;
  let main: TokenVerifier;

  const verifier = (path: string, options: Partial<JwtVerifierOptions> = {}): TokenVerifier =>
    jwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri: `${base}${path}`, ...options });

  before(async () => {
    [keyA, keyB, keyEc] = await Promise.all([signingKey('key-a'), signingKey('key-b'), signingKey('key-ec', 'ES256')]);
    jwks.set('/main', [keyA.jwk, keyEc.jwk]);
    jwks.set('/rotating', [keyA.jwk]);
    jwks.set('/flood', [keyA.jwk]);
    jwks.set('/flood-cold', [keyA.jwk]);
    server = createServer((req, res) => {
      const path = req.url ?? '';
      const keys = jwks.get(path);
      fetches.set(path, (fetches.get(path) ?? 0) + 1);
      if (keys === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    main = verifier('/main', { requiredScopes: ['tools:read'] });
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('a valid token gives its subject, client, scopes, expiry and claims', async () => {
    const exp = nowSec() + 300;
    const verified = await main.verify(await sign(keyA, { exp, tenant: 'acme' }));
    assert.equal(verified.subject, 'alice');
    assert.equal(verified.clientId, 'client-1');
    assert.deepEqual(verified.scopes, ['tools:read', 'tools:call']);
    assert.equal(verified.expiresAt, exp * 1000);
    assert.equal(verified.claims.tenant, 'acme');
  });

  test('an ES256 token and azp as the client id are accepted', async () => {
    const verified = await main.verify(await sign(keyEc, { client_id: undefined, azp: 'client-2' }));
    assert.equal(verified.clientId, 'client-2');
  });

  test('typ JWT is accepted by default; requireAtJwtType demands at+jwt', async () => {
    const token = await sign(keyA, {}, { typ: 'JWT' });
    await main.verify(token);
    const strict = verifier('/main', { requireAtJwtType: true });
    const refused = await refusal(strict.verify(token));
    assert.equal(refused.error, 'invalid_token');
    await strict.verify(await sign(keyA, {}, { typ: 'application/at+jwt' }));
    assert.equal((await refusal(main.verify(await sign(keyA, {}, { typ: 'id+jwt' })))).error, 'invalid_token');
  });

  test('scp as an array gives the scopes', async () => {
    const verified = await main.verify(await sign(keyA, { scope: undefined, scp: ['tools:read', 'prompts:get'] }));
    assert.deepEqual(verified.scopes, ['tools:read', 'prompts:get']);
  });

  test('an expired token is refused', async () => {
    const refused = await refusal(main.verify(await sign(keyA, { exp: nowSec() - 120 })));
    assert.equal(refused.error, 'invalid_token');
    assert.match(refused.message, /expired/);
  });

  test('a token not yet valid is refused', async () => {
    const refused = await refusal(main.verify(await sign(keyA, { nbf: nowSec() + 120 })));
    assert.equal(refused.error, 'invalid_token');
    assert.match(refused.message, /not yet valid/);
  });

  test('a token expired or not yet valid by less than the clock tolerance is accepted', async () => {
    await main.verify(await sign(keyA, { exp: nowSec() - 10 }));
    await main.verify(await sign(keyA, { nbf: nowSec() + 10 }));
  });

  test('a token for another resource is refused', async () => {
    const refused = await refusal(main.verify(await sign(keyA, { aud: 'https://other.example.com/mcp' })));
    assert.equal(refused.error, 'invalid_token');
    assert.match(refused.message, /another resource/);
  });

  test('a token from another issuer is refused', async () => {
    const refused = await refusal(main.verify(await sign(keyA, { iss: 'https://evil.example.com' })));
    assert.equal(refused.error, 'invalid_token');
    assert.match(refused.message, /another issuer/);
  });

  test('a token whose payload was changed after signing is refused', async () => {
    const [header, , signature] = (await sign(keyA)).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'admin', iss: ISSUER, aud: RESOURCE, exp: nowSec() + 300, scope: 'tools:read' })).toString('base64url');
    const refused = await refusal(main.verify(`${header}.${forged}.${signature}`));
    assert.equal(refused.error, 'invalid_token');
    assert.match(refused.message, /signature/);
  });

  test('an unsigned token (alg none) is refused', async () => {
    const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${part({ alg: 'none', typ: 'at+jwt' })}.${part({ sub: 'alice', iss: ISSUER, aud: RESOURCE, exp: nowSec() + 300, scope: 'tools:read' })}.`;
    const refused = await refusal(main.verify(token));
    assert.equal(refused.error, 'invalid_token');
  });

  test('an HS256 token signed with the public key as the HMAC secret is refused', async () => {
    const pem = await exportSPKI(keyA.publicKey);
    const token = await new SignJWT({ sub: 'alice', scope: 'tools:read' })
      .setProtectedHeader({ alg: 'HS256', kid: keyA.kid, typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setExpirationTime(nowSec() + 300)
      .sign(new TextEncoder().encode(pem));
    const refused = await refusal(main.verify(token));
    assert.equal(refused.error, 'invalid_token');
    assert.match(refused.message, /algorithm/);
  });

  test('none and HS* can never be configured', () => {
    assert.throws(() => verifier('/main', { algorithms: ['RS256', 'HS256'] }), /HS256/);
    assert.throws(() => verifier('/main', { algorithms: ['none'] }), /none/);
  });

  test('a token without a required scope is refused as insufficient_scope, naming the scope', async () => {
    const refused = await refusal(main.verify(await sign(keyA, { scope: 'tools:call' })));
    assert.equal(refused.error, 'insufficient_scope');
    assert.deepEqual(refused.scopes, ['tools:read']);
    assert.match(refused.message, /tools:read/);
  });

  test('a token without an expiry is refused', async () => {
    const token = await new SignJWT({ sub: 'alice', scope: 'tools:read' })
      .setProtectedHeader({ alg: 'RS256', kid: keyA.kid, typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .sign(keyA.privateKey);
    const refused = await refusal(main.verify(token));
    assert.equal(refused.error, 'invalid_token');
    assert.match(refused.message, /exp/);
  });

  test('a token without a subject, or malformed, is refused', async () => {
    assert.equal((await refusal(main.verify(await sign(keyA, { sub: undefined })))).error, 'invalid_token');
    assert.equal((await refusal(main.verify('not.a.jwt'))).error, 'invalid_token');
    assert.equal((await refusal(main.verify('x'.repeat(20_000)))).error, 'invalid_token');
  });

  test('an unknown kid is refused; once the issuer rotates to the new key, its tokens are accepted', async () => {
    const rotating = verifier('/rotating', { jwksCooldownMs: 0 });
    await rotating.verify(await sign(keyA));
    const newToken = await sign(keyB);
    const refused = await refusal(rotating.verify(newToken));
    assert.equal(refused.error, 'invalid_token');
    assert.match(refused.message, /no key/);
    jwks.set('/rotating', [keyB.jwk]);
    const verified = await rotating.verify(newToken);
    assert.equal(verified.subject, 'alice');
  });

  test('a flood of unknown kids fetches the JWKS at most once per cooldown', async () => {
    const flood = verifier('/flood', { jwksCooldownMs: 60_000 });
    await flood.verify(await sign(keyA));
    assert.equal(fetches.get('/flood'), 1);
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => sign(keyB, {}, { kid: `made-up-${i}` })));
    const refusals = await Promise.all(tokens.map((t) => refusal(flood.verify(t))));
    assert.ok(refusals.every((r) => r.error === 'invalid_token'));
    assert.equal(fetches.get('/flood'), 1);

    const cold = verifier('/flood-cold', { jwksCooldownMs: 60_000 });
    await Promise.all(tokens.map((t) => refusal(cold.verify(t))));
    assert.equal(fetches.get('/flood-cold'), 1);
  });

  test('a JWKS that cannot be fetched is a plain error (503), not a refusal, and never shows the token', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = jwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri: `http://127.0.0.1:${port}/jwks` });
    const token = await sign(keyA);
    await assert.rejects(down.verify(token), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.ok(!(error instanceof TokenRefusal));
      assert.match(error.message, /could not be fetched/);
      assert.ok(!error.message.includes(token));
      return true;
    });
    const missing = verifier('/no-such-jwks', { jwksRetryAfterFailureMs: 60_000 });
    for (let i = 0; i < 5; i++) {
      await assert.rejects(missing.verify(token), (error: unknown) => error instanceof Error && !(error instanceof TokenRefusal) && /404/.test(error.message));
    }
    assert.equal(fetches.get('/no-such-jwks'), 1, 'a failing JWKS is not asked again before the retry delay');
  });

  test('a jwksUri outside the fetch policy is refused at construction', () => {
    assert.throws(() => jwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri: 'http://issuer.example.com/jwks' }), /https/);
    assert.throws(() => jwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri: 'https://169.254.169.254/jwks' }), /metadata/);
  });

  test('a static JWKS works offline', async () => {
    const offline = jwtVerifier({ issuer: ISSUER, audience: [RESOURCE, 'https://alias.example.com'], jwks: { keys: [keyA.jwk] } });
    assert.equal((await offline.verify(await sign(keyA))).subject, 'alice');
    assert.equal((await refusal(offline.verify(await sign(keyB)))).error, 'invalid_token');
  });

  test('no refusal message contains the token', async () => {
    const tokens = [await sign(keyA, { exp: nowSec() - 120 }), await sign(keyA, { aud: 'https://x.example.com' }), await sign(keyB, {}, { kid: 'zzz' })];
    for (const token of tokens) {
      const refused = await refusal(main.verify(token));
      assert.ok(!refused.message.includes(token));
      for (const part of token.split('.')) assert.ok(!refused.message.includes(part));
    }
  });
});

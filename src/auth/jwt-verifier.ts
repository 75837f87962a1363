/**
 * @module
 * JWT access tokens (RFC 9068) checked with `jose`: the signature against the issuer's JWKS, the
 * issuer, the audience (this gateway's resource identifier, RFC 8707), `exp`/`nbf` with a small
 * clock tolerance, an allow-list of asymmetric algorithms, the `typ` header, and the scopes a
 * request needs. The JWKS is fetched through the OAuth fetch policy, cached, and fetched again on
 * an unknown `kid` at most once per cooldown, so a flood of made-up key ids cannot hammer the issuer.
 */
import type * as JoseModule from 'jose';
import type { FetchImplementation, JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from 'jose';
import { fetchBounded } from './bounded-fetch.js';
import { checkUrlShape, describeUrl, type HostLookup } from './fetch-policy.js';
import { missingScopes, scopesFromClaims } from './scopes.js';
import { TokenRefusal, type TokenVerifier, type VerifiedToken } from './token-verifier.js';

/** The asymmetric algorithms accepted by default. `none` and every HMAC (`HS*`) are never accepted. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** The default clock tolerance for `exp` and `nbf`, in seconds: small, as the spec asks. */
export const DEFAULT_CLOCK_TOLERANCE_SEC = 30;

/** How JWT access tokens are checked. */
export interface JwtVerifierOptions {
  /** The issuer (`iss`), matched exactly. */
  readonly issuer: string;
  /** This gateway's resource identifier(s) (RFC 8707); the token's `aud` must contain one. */
  readonly audience: string | readonly string[];
  /** Where the issuer's keys are: checked with the OAuth fetch policy now, fetched on first use. */
  readonly jwksUri?: string;
  /** The keys themselves (tests, offline use); exactly one of `jwksUri` and `jwks`. */
  readonly jwks?: JSONWebKeySet;
  /** Accepted algorithms; default `DEFAULT_JWT_ALGORITHMS`. `none` and `HS*` are refused here at construction. */
  readonly algorithms?: readonly string[];
  /** Tolerance for `exp` and `nbf`, in seconds; default 30. */
  readonly clockToleranceSec?: number;
  /** Scopes every token must carry (missing → `insufficient_scope`). */
  readonly requiredScopes?: readonly string[];
  /** Demand `typ: at+jwt` (RFC 9068). Default `false`: `at+jwt`, `JWT` or no `typ` are accepted. */
  readonly requireAtJwtType?: boolean;
  /** After a JWKS fetch, no other for this long, whatever `kid` comes (ms); default 30 s. */
  readonly jwksCooldownMs?: number;
  /** A fetched JWKS is used for this long before it is fetched again (ms); default 10 min. */
  readonly jwksCacheMaxAgeMs?: number;
  /** One JWKS fetch's deadline (ms); default 5 s. */
  readonly jwksTimeoutMs?: number;
  /** The largest JWKS read (bytes); default 256 KiB. */
  readonly jwksMaxBytes?: number;
  /**
   * After a failed JWKS fetch (unreachable, error status, too large), no other for this long (ms):
   * every check meanwhile fails at once (503) instead of asking a failing issuer again; default 5 s.
   */
  readonly jwksRetryAfterFailureMs?: number;
  /** The largest token looked at (bytes); default 16 KiB. */
  readonly maxTokenBytes?: number;
  /** Plain `http:` to a loopback `jwksUri` (tests); default `true`. */
  readonly allowHttpLoopback?: boolean;
  /** The resolver for the JWKS host (tests); default the system resolver. */
  readonly lookup?: HostLookup;
  /** The clock (tests); default `Date.now`. */
  readonly now?: () => number;
}

const forbiddenAlgorithm = /^(none|HS\d+)$/i;

type Jose = typeof JoseModule;
let jose: Promise<Jose> | undefined;

/** jose, loaded on the first token checked: a gateway without OAuth never loads it. */
function loadJose(): Promise<Jose> {
  return (jose ??= import('jose'));
}

/** `typ` as RFC 9068 §4 compares it: case-insensitive, `application/` optional. */
function normalType(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

/**
 * A fetch for jose that goes through the fetch policy and its bounds, and after a failure does not
 * ask again for `jwksRetryAfterFailureMs` (jose's own cooldown counts from successful fetches only).
 */
function policyFetch(options: JwtVerifierOptions): FetchImplementation {
  const retryAfterMs = options.jwksRetryAfterFailureMs ?? 5000;
  let lastFailure: { readonly at: number; readonly error: unknown } | undefined;
  const fetchOnce: FetchImplementation = async (url, init) => {
    const headers: Record<string, string> = {};
    init.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const response = await fetchBounded(
      url,
      { method: 'GET', headers, redirect: 'manual', signal: init.signal },
      {
        timeoutMs: options.jwksTimeoutMs ?? 5000,
        maxBytes: options.jwksMaxBytes ?? 256 * 1024,
        ...(options.allowHttpLoopback !== undefined ? { allowHttpLoopback: options.allowHttpLoopback } : {}),
        ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
      },
    );
    const empty = response.status === 204 || response.status === 304 || response.status < 200;
    return new Response(empty ? null : response.body, { status: response.status < 200 ? 502 : response.status, headers: response.headers });
  };
  return async (url, init) => {
    if (lastFailure !== undefined && Date.now() - lastFailure.at < retryAfterMs) throw lastFailure.error;
    try {
      const response = await fetchOnce(url, init);
      if (response.status !== 200) throw new Error(`the JWKS endpoint answered HTTP ${response.status}`);
      lastFailure = undefined;
      return response;
    } catch (error) {
      lastFailure = { at: Date.now(), error };
      throw error;
    }
  };
}

/** The reason a jose error gives, for a token refusal; `undefined` when the fault is not the token's. */
function refusalReason(error: unknown, errors: Jose['errors']): string | undefined {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
        return 'the token is not yet valid';
      case 'iss':
        return 'the token is from another issuer';
      case 'aud':
        return 'the token is for another resource';
      default:
        return `the token's ${error.claim} claim is invalid`;
    }
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key of the issuer matches the token';
  if (error instanceof errors.JWKSMultipleMatchingKeys) return 'no single key of the issuer matches the token';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token algorithm is not allowed';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'the token is malformed';
  if (error instanceof errors.JOSENotSupported) return 'the token uses an unsupported algorithm or key';
  return undefined;
}

/**
 * A `TokenVerifier` for JWT access tokens. Every fault of the token is a `TokenRefusal`
 * (`invalid_token`, or `insufficient_scope` naming the missing scopes) whose description never
 * contains the token; a JWKS that cannot be fetched is a plain `Error` (the front answers 503).
 * Throws at construction on a bad configuration (no key source, a refused `jwksUri`, `none` or
 * `HS*` among the algorithms).
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
  const refused = algorithms.filter((alg) => forbiddenAlgorithm.test(alg));
  if (refused.length > 0) throw new Error(`jwtVerifier: algorithms ${refused.join(', ')} are never accepted (only asymmetric ones are)`);
  if (algorithms.length === 0) throw new Error('jwtVerifier: algorithms must name at least one algorithm');
  if ((options.jwksUri === undefined) === (options.jwks === undefined)) {
    throw new Error('jwtVerifier: give exactly one of jwksUri and jwks');
  }
  const audience = typeof options.audience === 'string' ? options.audience : [...options.audience];
  if (audience.length === 0) throw new Error('jwtVerifier: audience must name this resource');
  const clockTolerance = options.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
  const maxTokenBytes = options.maxTokenBytes ?? 16 * 1024;
  const requiredScopes = options.requiredScopes ?? [];
  const now = options.now ?? Date.now;

  const url =
    options.jwksUri === undefined ? undefined : checkUrlShape(options.jwksUri, options.allowHttpLoopback === undefined ? {} : { allowHttpLoopback: options.allowHttpLoopback });
  const jwksWhere = url === undefined ? 'the JWKS' : describeUrl(url);
  /** The key set, made with jose once it is loaded. */
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keysOf = (j: Jose): JWTVerifyGetKey =>
    url === undefined
      ? j.createLocalJWKSet(options.jwks as JSONWebKeySet)
      : j.createRemoteJWKSet(url, {
          timeoutDuration: options.jwksTimeoutMs ?? 5000,
          cooldownDuration: options.jwksCooldownMs ?? 30_000,
          cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
          [j.customFetch]: policyFetch(options),
        });

  return {
    async verify(token: string): Promise<VerifiedToken> {
      if (token === '' || Buffer.byteLength(token) > maxTokenBytes) throw new TokenRefusal('invalid_token', 'the token is malformed');
      let payload: JWTPayload;
      let typ: string | undefined;
      const j = await loadJose();
      const getKey = await (keys ??= Promise.resolve(keysOf(j)));
      try {
        const result = await j.jwtVerify(token, getKey, {
          issuer: options.issuer,
          audience,
          algorithms,
          clockTolerance,
          requiredClaims: ['sub', 'exp'],
          currentDate: new Date(now()),
        });
        payload = result.payload;
        typ = result.protectedHeader.typ;
      } catch (error) {
        const reason = refusalReason(error, j.errors);
        if (reason !== undefined) throw new TokenRefusal('invalid_token', reason);
        const detail = error instanceof Error ? error.message : String(error);
        throw new Error(`the issuer's keys (${jwksWhere}) could not be fetched: ${detail}`, { cause: error });
      }
      if (options.requireAtJwtType === true ? typ === undefined || normalType(typ) !== 'at+jwt' : typ !== undefined && !['at+jwt', 'jwt'].includes(normalType(typ))) {
        throw new TokenRefusal('invalid_token', 'the token is not an access token (typ)');
      }
      if (typeof payload.sub !== 'string' || payload.sub === '') throw new TokenRefusal('invalid_token', 'the token has no subject');
      const claims: Record<string, unknown> = { ...payload };
      const scopes = scopesFromClaims(claims);
      const missing = missingScopes(scopes, requiredScopes);
      if (missing.length > 0) throw new TokenRefusal('insufficient_scope', `the token lacks scope ${missing.join(' ')}`, missing);
      const clientId = typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : undefined;
      return {
        subject: payload.sub,
        clientId,
        scopes,
        expiresAt: typeof payload.exp === 'number' ? payload.exp * 1000 : undefined,
        claims,
      };
    },
  };
}

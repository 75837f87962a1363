/**
 * @module
 * Opaque access tokens checked by token introspection (RFC 7662): the token is posted to the
 * authorization server's introspection endpoint with this gateway's client credentials, and the
 * answer says whether it is active, for whom, for which audience and until when. Answers are cached
 * briefly (never past the token's `exp`), keyed by a SHA-256 of the token, never the token itself;
 * concurrent checks of one token share one request.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import { fetchJson } from './bounded-fetch.js';
import { checkUrlShape, describeUrl, type HostLookup } from './fetch-policy.js';
import { missingScopes, scopesFromClaims } from './scopes.js';
import { TokenRefusal, type TokenVerifier, type VerifiedToken } from './token-verifier.js';
import { TtlLruCache } from './ttl-lru-cache.js';

/** How opaque tokens are introspected. */
export interface IntrospectionVerifierOptions {
  /** The introspection endpoint (RFC 7662 §2), under the OAuth fetch policy. */
  readonly endpoint: string;
  /** This gateway's client id at the authorization server. */
  readonly clientId: string;
  /** Its client secret. Never logged. */
  readonly clientSecret: string;
  /** How the client authenticates: HTTP Basic (default) or in the form body. */
  readonly clientAuth?: 'client_secret_basic' | 'client_secret_post';
  /**
   * This gateway's resource identifier(s) (RFC 8707): when given, the answer's `aud` (a string or
   * an array) must contain one, and an answer without `aud` is refused. The MCP spec requires
   * tokens bound to this resource: configure it unless the authorization server binds otherwise.
   */
  readonly audience?: string | readonly string[];
  /** When given, the answer's `iss` must equal it. */
  readonly issuer?: string;
  /** Scopes every token must carry (missing → `insufficient_scope`). */
  readonly requiredScopes?: readonly string[];
  /** Tolerance for `exp` and `nbf` in the answer, in seconds; default 30. */
  readonly clockToleranceSec?: number;
  /** How long an answer is reused (ms), never past the token's `exp`; default 30 s; 0 turns the cache off. */
  readonly cacheMs?: number;
  /** How many answers are kept at most (least recently used go first); default 1000. */
  readonly cacheMaxEntries?: number;
  /** One introspection request's deadline (ms); default 5 s. */
  readonly timeoutMs?: number;
  /** The largest answer read (bytes); default 64 KiB. */
  readonly maxBytes?: number;
  /** The largest token looked at (bytes); default 16 KiB. */
  readonly maxTokenBytes?: number;
  /** Plain `http:` to a loopback endpoint (tests); default `true`. */
  readonly allowHttpLoopback?: boolean;
  /** The resolver for the endpoint's host (tests). */
  readonly lookup?: HostLookup;
  /** Where failures of the endpoint are told (never with the token or the secret). */
  readonly logger?: Logger;
  /** The clock (ms; tests); default `Date.now`. */
  readonly now?: () => number;
}

/** What is cached per token: what it grants, or why it is refused. */
type Outcome = { readonly ok: true; readonly token: VerifiedToken } | { readonly ok: false; readonly refusal: TokenRefusal };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 6749 §2.3.1: each part form-urlencoded, then Basic. */
function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/**
 * A `TokenVerifier` for opaque tokens by introspection. An inactive, expired, foreign or malformed
 * token is a `TokenRefusal` (`invalid_token`); missing scopes are `insufficient_scope`; an endpoint
 * that fails (unreachable, slow, too large, not JSON, an error status) is a plain `Error` (503),
 * never cached. Throws at construction when the endpoint is outside the fetch policy.
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  const endpoint = checkUrlShape(options.endpoint, options.allowHttpLoopback === undefined ? {} : { allowHttpLoopback: options.allowHttpLoopback });
  const where = describeUrl(endpoint);
  const now = options.now ?? Date.now;
  const cacheMs = options.cacheMs ?? 30_000;
  const toleranceMs = (options.clockToleranceSec ?? 30) * 1000;
  const maxTokenBytes = options.maxTokenBytes ?? 16 * 1024;
  const requiredScopes = options.requiredScopes ?? [];
  const audiences = options.audience === undefined ? undefined : typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  const cache = new TtlLruCache<Outcome>(options.cacheMaxEntries ?? 1000, now);
  const inFlight = new Map<string, Promise<Outcome>>();
  const limits = {
    timeoutMs: options.timeoutMs ?? 5000,
    maxBytes: options.maxBytes ?? 64 * 1024,
    ...(options.allowHttpLoopback !== undefined ? { allowHttpLoopback: options.allowHttpLoopback } : {}),
    ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
  };

  const refuse = (description: string): Outcome => ({ ok: false, refusal: new TokenRefusal('invalid_token', description) });

  /** The answer judged: what it grants, or why not, and until when that holds. */
  function judge(answer: unknown): { outcome: Outcome; until: number } {
    const at = now();
    const until = at + cacheMs;
    if (!isRecord(answer) || typeof answer.active !== 'boolean') {
      throw new Error(`the introspection endpoint ${where} answered without a boolean "active"`);
    }
    if (!answer.active) return { outcome: refuse('the token is revoked or inactive'), until };
    const exp = typeof answer.exp === 'number' ? answer.exp * 1000 : undefined;
    if (exp !== undefined && exp + toleranceMs <= at) return { outcome: refuse('the token has expired'), until };
    if (typeof answer.nbf === 'number' && answer.nbf * 1000 - toleranceMs > at) {
      return { outcome: refuse('the token is not yet valid'), until: Math.min(until, answer.nbf * 1000 - toleranceMs) };
    }
    if (options.issuer !== undefined && answer.iss !== options.issuer) return { outcome: refuse('the token is from another issuer'), until };
    if (audiences !== undefined) {
      const aud = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
      if (!aud.some((a) => typeof a === 'string' && audiences.includes(a))) return { outcome: refuse('the token is for another resource'), until };
    }
    const subject = typeof answer.sub === 'string' && answer.sub !== '' ? answer.sub : typeof answer.username === 'string' && answer.username !== '' ? answer.username : undefined;
    if (subject === undefined) return { outcome: refuse('the token has no subject'), until };
    const token: VerifiedToken = {
      subject,
      clientId: typeof answer.client_id === 'string' ? answer.client_id : undefined,
      scopes: scopesFromClaims(answer),
      expiresAt: exp,
      claims: { ...answer },
    };
    return { outcome: { ok: true, token }, until: exp === undefined ? until : Math.min(until, exp) };
  }

  async function introspect(token: string, key: string): Promise<Outcome> {
    const form = new URLSearchParams({ token, token_type_hint: 'access_token' });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (options.clientAuth === 'client_secret_post') {
      form.set('client_id', options.clientId);
      form.set('client_secret', options.clientSecret);
    } else {
      headers.authorization = basicAuthorization(options.clientId, options.clientSecret);
    }
    let answer: unknown;
    try {
      answer = (await fetchJson(endpoint, { method: 'POST', headers, body: form.toString() }, limits)).body;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      options.logger?.warn('token introspection failed', { endpoint: where, error: detail });
      throw new Error(`token introspection failed: ${detail}`);
    }
    const { outcome, until } = judge(answer);
    if (cacheMs > 0) cache.set(key, outcome, until);
    return outcome;
  }

  return {
    async verify(token: string): Promise<VerifiedToken> {
      if (token === '' || Buffer.byteLength(token) > maxTokenBytes) throw new TokenRefusal('invalid_token', 'the token is malformed');
      const key = createHash('sha256').update(token).digest('base64url');
      let outcome = cache.get(key);
      if (outcome === undefined) {
        let pending = inFlight.get(key);
        if (pending === undefined) {
          pending = introspect(token, key).finally(() => inFlight.delete(key));
          inFlight.set(key, pending);
        }
        outcome = await pending;
      }
      if (!outcome.ok) throw new TokenRefusal(outcome.refusal.error, outcome.refusal.message);
      const missing = missingScopes(outcome.token.scopes, requiredScopes);
      if (missing.length > 0) throw new TokenRefusal('insufficient_scope', `the token lacks scope ${missing.join(' ')}`, missing);
      return outcome.token;
    },
  };
}

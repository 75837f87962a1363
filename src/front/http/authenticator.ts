import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../errors/http-error.js';
import type { Identity } from '../../core/session-info.js';

export interface AuthOptions {
  /** The credentials accepted, each with the name of the identity it grants (never logged: the secret). */
  tokens: ReadonlyArray<{ readonly id: string; readonly token: string }>;
  /** A header that may carry the token as an API key, besides `Authorization: Bearer`. Default `x-api-key`. */
  apiKeyHeader?: string;
  /** The realm in `WWW-Authenticate`. Default `mcp-chain`. */
  realm?: string;
}

/** Checks a request's credentials: who it is (at once, or once a token is verified), or throws 401/403. */
export type Authenticator = (req: IncomingMessage) => Identity | Promise<Identity>;

/**
 * Static bearer tokens or API keys. Every presented secret is compared with every configured one
 * in constant time (over SHA-256 digests, so lengths do not leak either).
 */
export function authenticator(options: AuthOptions): Authenticator {
  if (options.tokens.length === 0) throw new Error('authentication needs at least one token');
  const realm = options.realm ?? 'mcp-chain';
  const find = staticTokens(options);
  return (req) => {
    const presented = presentedCredential(req, options.apiKeyHeader, (description) => unauthorized(realm, 'invalid_request', description));
    if (presented === undefined) throw unauthorized(realm, undefined, 'authentication required');
    const id = find(presented.secret);
    if (id === undefined) throw unauthorized(realm, 'invalid_token', 'the token is not valid');
    return { id, method: presented.method };
  };
}

/** A secret a request presents, and how: `Authorization: Bearer` or the API-key header. */
export interface PresentedCredential {
  readonly secret: string;
  readonly method: 'bearer' | 'api-key';
}

/** The credential of `req`, if any; a malformed `Authorization` header is `malformed(description)` thrown. */
export function presentedCredential(req: IncomingMessage, apiKeyHeader = 'x-api-key', malformed: (description: string) => Error): PresentedCredential | undefined {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw malformed('the Authorization header must be "Bearer <token>"');
    return { secret: match[1], method: 'bearer' };
  }
  const apiKey = req.headers[apiKeyHeader.toLowerCase()];
  return typeof apiKey === 'string' ? { secret: apiKey, method: 'api-key' } : undefined;
}

/**
 * The configured static tokens as a lookup: the id of the one `secret` is, or undefined. Every
 * configured token is compared in constant time (over SHA-256 digests, so lengths do not leak).
 */
export function staticTokens(options: AuthOptions): (secret: string) => string | undefined {
  const known = options.tokens.map(({ id, token }) => {
    if (token === '') throw new Error(`the token of ${id} is empty`);
    return { id, digest: digest(token) };
  });
  return (secret) => {
    const candidate = digest(secret);
    let match: string | undefined;
    for (const entry of known) {
      if (timingSafeEqual(entry.digest, candidate) && match === undefined) match = entry.id;
    }
    return match;
  };
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

function unauthorized(realm: string, error: string | undefined, description: string): HttpError {
  const challenge = error === undefined
    ? `Bearer realm="${realm}"`
    : `Bearer realm="${realm}", error="${error}", error_description="${description}"`;
  return new HttpError(401, `Unauthorized: ${description}`, { headers: { 'www-authenticate': challenge } });
}

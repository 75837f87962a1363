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

/** Checks a request's credentials; resolves to who it is, or throws 401. */
export type Authenticator = (req: IncomingMessage) => Identity;

/**
 * Static bearer tokens or API keys. Every presented secret is compared with every configured one
 * in constant time (over SHA-256 digests, so lengths do not leak either).
 */
export function authenticator(options: AuthOptions): Authenticator {
  if (options.tokens.length === 0) throw new Error('authentication needs at least one token');
  const realm = options.realm ?? 'mcp-chain';
  const apiKeyHeader = (options.apiKeyHeader ?? 'x-api-key').toLowerCase();
  const known = options.tokens.map(({ id, token }) => {
    if (token === '') throw new Error(`the token of ${id} is empty`);
    return { id, digest: digest(token) };
  });
  return (req) => {
    const authorization = req.headers.authorization;
    const apiKey = req.headers[apiKeyHeader];
    let presented: string | undefined;
    let method = 'bearer';
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match?.[1]) throw unauthorized(realm, 'invalid_request', 'the Authorization header must be "Bearer <token>"');
      presented = match[1];
    } else if (typeof apiKey === 'string') {
      presented = apiKey;
      method = 'api-key';
    }
    if (presented === undefined) throw unauthorized(realm, undefined, 'authentication required');
    const candidate = digest(presented);
    let match: string | undefined;
    for (const entry of known) {
      if (timingSafeEqual(entry.digest, candidate) && match === undefined) match = entry.id;
    }
    if (match === undefined) throw unauthorized(realm, 'invalid_token', 'the token is not valid');
    return { id: match, method };
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

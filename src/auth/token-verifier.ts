/**
 * @module
 * The contract of OAuth access-token checking on the HTTP front (the gateway as a resource
 * server, MCP authorization spec 2025-11-25 and RFC 9728): a verifier turns a bearer token into
 * what it grants, or refuses it with the reason the `WWW-Authenticate` challenge gives.
 */

/** What a valid access token grants. */
export interface VerifiedToken {
  /** `sub`: who the token stands for. */
  readonly subject: string;
  /** `client_id` (or `azp`): the OAuth client it was issued to, when the token says. */
  readonly clientId?: string | undefined;
  /** Its scopes (`scope`, space-separated, or `scp`), in the order given. */
  readonly scopes: readonly string[];
  /** When it expires, ms since the epoch, when it says. */
  readonly expiresAt?: number | undefined;
  /** Its claims (JWT payload, or the introspection response), for chosen ones to reach the identity. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * Why a token is refused, as RFC 6750 §3.1 names it: `invalid_token` (401: expired, not yet valid,
 * for another audience or issuer, bad signature, unknown key, revoked, malformed) or
 * `insufficient_scope` (403, with the scope that is needed).
 */
export class TokenRefusal extends Error {
  override name = 'TokenRefusal';
  readonly error: 'invalid_token' | 'insufficient_scope';
  /** For `insufficient_scope`: the scopes the request needs. */
  readonly scopes: readonly string[];

  constructor(error: 'invalid_token' | 'insufficient_scope', description: string, scopes: readonly string[] = []) {
    super(description);
    this.error = error;
    this.scopes = scopes;
  }
}

/**
 * Checks a bearer token: resolves to what it grants, or rejects with a `TokenRefusal`. Any other
 * rejection (the authorization server unreachable) is the verifier's own failure, answered 503
 * rather than blamed on the token. Neither ever carries the token in its message.
 *
 * Implementations: `jwtVerifier` (JWT access tokens against the issuer's JWKS) and
 * `introspectionVerifier` (opaque tokens, RFC 7662).
 */
export interface TokenVerifier {
  verify(token: string): Promise<VerifiedToken>;
}

/**
 * @module
 * The HTTP front as an OAuth 2.1 resource server (MCP authorization, 2025-11-25): its Protected
 * Resource Metadata (RFC 9728) and an authenticator that accepts the access tokens a
 * `TokenVerifier` accepts, beside the static tokens, with the challenges of RFC 6750 §3 that point
 * clients at the metadata.
 */
import type { IncomingMessage } from 'node:http';
import { rememberSubjectToken } from '../../auth/subject-token.js';
import { TokenRefusal, type TokenVerifier, type VerifiedToken } from '../../auth/token-verifier.js';
import type { Identity } from '../../core/session-info.js';
import { HttpError } from '../../errors/http-error.js';
import { presentedCredential, staticTokens, type AuthOptions, type Authenticator } from './authenticator.js';

export interface OAuthResourceOptions {
  /**
   * This gateway's resource identifier (RFC 8707, RFC 9728): its canonical public URL, such as
   * `https://mcp.example.com/mcp`. Tokens must have been minted for it (their audience).
   */
  readonly resource: string;
  /** The issuers of the authorization servers clients get tokens from. */
  readonly authorizationServers: readonly string[];
  /** Checks the tokens (JWTs against the issuer's keys, or introspection). */
  readonly verifier: TokenVerifier;
  /** Scopes every request needs: a token without one of them is refused with 403 `insufficient_scope`. */
  readonly requiredScopes?: readonly string[];
  /** `scopes_supported` in the metadata. Default: `requiredScopes`. */
  readonly scopesSupported?: readonly string[];
  /** Claims of the token copied into the session's identity (`ctx.session.identity.claims`). */
  readonly claims?: readonly string[];
  /** `resource_name` in the metadata. */
  readonly resourceName?: string;
}

/** RFC 9728 §3: the well-known path of the metadata, before the resource's own path. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** The Protected Resource Metadata document (RFC 9728 §2). */
export function protectedResourceMetadata(options: OAuthResourceOptions): Record<string, unknown> {
  const scopes = options.scopesSupported ?? options.requiredScopes;
  return {
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ['header'],
    ...(scopes === undefined || scopes.length === 0 ? {} : { scopes_supported: [...scopes] }),
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
  };
}

/**
 * Where the metadata is served, as paths of this front: the path-suffixed form RFC 9728 §3.1
 * gives for the resource (`/.well-known/oauth-protected-resource/mcp`) and the root form clients
 * fall back to.
 */
export function metadataPaths(resource: string): readonly string[] {
  const path = new URL(resource).pathname.replace(/\/+$/, '');
  return path === '' ? [PROTECTED_RESOURCE_PATH] : [`${PROTECTED_RESOURCE_PATH}${path}`, PROTECTED_RESOURCE_PATH];
}

/** The public URL of the metadata, for `resource_metadata` in challenges. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${metadataPaths(resource)[0] ?? PROTECTED_RESOURCE_PATH}`;
}

/**
 * An authenticator for the HTTP front: a static token (when `staticAuth` has some) is accepted
 * as today; any other bearer token must pass the verifier and carry `requiredScopes`.
 * - No credential: 401 `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`.
 * - A refused token: 401 with `error="invalid_token"` and a description that never holds the token.
 * - A token without a needed scope: 403 with `error="insufficient_scope"` and the scope needed.
 * - A verifier that cannot tell (the authorization server unreachable): 503, not the token's fault.
 * The identity is the token's subject, issuer, client, scopes and chosen claims; a session stays
 * bound to its issuer and subject. The token itself is remembered beside it (`subjectTokenOf`), for
 * a token exchange only; a static token's identity has none.
 */
export function oauthAuthenticator(options: OAuthResourceOptions, staticAuth?: AuthOptions): Authenticator {
  const metadata = metadataUrl(options.resource);
  const required = options.requiredScopes ?? [];
  const findStatic = staticAuth !== undefined && staticAuth.tokens.length > 0 ? staticTokens(staticAuth) : undefined;
  const challenge = (params: Record<string, string>): Record<string, string> => ({ 'www-authenticate': bearerChallenge(metadata, params) });
  const scopeParam = required.length > 0 ? { scope: required.join(' ') } : {};
  const unauthorized = (description: string, error?: string): HttpError =>
    new HttpError(401, `Unauthorized: ${description}`, { headers: challenge({ ...(error === undefined ? {} : { error, error_description: description }), ...scopeParam }) });

  return async (req: IncomingMessage): Promise<Identity> => {
    const presented = presentedCredential(req, staticAuth?.apiKeyHeader, (description) => unauthorized(description, 'invalid_request'));
    if (presented === undefined) throw unauthorized('authentication required');
    const staticId = findStatic?.(presented.secret);
    if (staticId !== undefined) return { id: staticId, method: presented.method };
    if (presented.method !== 'bearer') throw unauthorized('the API key is not valid', 'invalid_token');
    let token: VerifiedToken;
    try {
      token = await options.verifier.verify(presented.secret);
    } catch (error) {
      if (error instanceof TokenRefusal) {
        if (error.error === 'insufficient_scope') throw insufficientScope(error.scopes.length > 0 ? error.scopes : required, challenge);
        throw unauthorized(error.message, 'invalid_token');
      }
      throw new HttpError(503, 'Service Unavailable: the access token cannot be checked now', { headers: { 'retry-after': '5' } });
    }
    const missing = required.filter((scope) => !token.scopes.includes(scope));
    if (missing.length > 0) throw insufficientScope(required, challenge);
    const identity = identityOf(token, options.claims ?? []);
    // Kept aside (not a property: logs and the audit record never see it) for a token exchange.
    rememberSubjectToken(identity, presented.secret);
    return identity;
  };
}

/**
 * The step-up challenge (2025-11-25 authorization, "Scope Challenge Handling") for a call the
 * session's token has too few scopes for (`requireScopes`' -32004): the `WWW-Authenticate` value of
 * a 403 `insufficient_scope` whose `scope` is the scopes the token holds and those the call needs
 * (the spec's recommended approach: a client that re-authorizes with it loses nothing it had).
 */
export function scopeChallenge(options: OAuthResourceOptions): (needed: readonly string[], held: readonly string[]) => string {
  const metadata = metadataUrl(options.resource);
  return (needed, held) => {
    const lacking = needed.filter((scope) => !held.includes(scope));
    const description = `the token lacks a needed scope (${(lacking.length > 0 ? lacking : needed).join(' ')})`;
    return bearerChallenge(metadata, { error: 'insufficient_scope', error_description: description, scope: [...new Set([...held, ...needed])].join(' ') });
  };
}

/** `Bearer resource_metadata="…", key="value", …` with the values quoted (RFC 6750 §3). */
function bearerChallenge(metadata: string, params: Record<string, string>): string {
  return `Bearer ${Object.entries({ resource_metadata: metadata, ...params })
    .map(([key, value]) => `${key}="${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)
    .join(', ')}`;
}

function insufficientScope(scopes: readonly string[], challenge: (params: Record<string, string>) => Record<string, string>): HttpError {
  const description = `the token lacks a needed scope (${scopes.join(' ')})`;
  return new HttpError(403, `Forbidden: ${description}`, {
    headers: challenge({ error: 'insufficient_scope', error_description: description, scope: scopes.join(' ') }),
  });
}

function identityOf(token: VerifiedToken, claims: readonly string[]): Identity {
  const picked = Object.fromEntries(claims.filter((name) => Object.hasOwn(token.claims, name)).map((name) => [name, token.claims[name]]));
  const issuer = token.claims.iss;
  return {
    id: token.subject,
    method: 'oauth',
    ...(typeof issuer === 'string' ? { issuer } : {}),
    ...(token.clientId === undefined ? {} : { clientId: token.clientId }),
    scopes: token.scopes,
    ...(claims.length === 0 ? {} : { claims: picked }),
  };
}

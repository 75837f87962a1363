/**
 * @module
 * The authorization request a person's browser is sent with (OAuth 2.1 section 4.1.1): the code
 * flow with PKCE S256 and the resource indicator, as MCP 2025-11-25 requires (basic/authorization,
 * "Authorization Flow Steps", "Resource Parameter Implementation", "Authorization Code Protection").
 */
import { checkUrlShape, FetchPolicyError } from '../fetch-policy.js';
import type { ClientRegistration } from './client-registration.js';
import type { DiscoveredAuthorization } from './discovery.js';
import { OAuthClientError } from './oauth-client-error.js';

/**
 * The authorization URL: the server's `authorization_endpoint` with `response_type=code`,
 * `client_id`, `redirect_uri`, `code_challenge` + `code_challenge_method=S256`, `state`, `scope`
 * (`o.scope`, else the discovered one; omitted when there is none) and `resource` (RFC 8707, the
 * discovered resource: MUST be in authorization requests). The endpoint must be https (plain
 * http only to loopback), else an `OAuthClientError('discovery')`.
 */
export function authorizationUrl(
  d: DiscoveredAuthorization,
  client: ClientRegistration,
  o: { redirectUri: string; challenge: string; state: string; scope?: string | undefined },
): URL {
  const endpoint = d.server.authorization_endpoint;
  if (typeof endpoint !== 'string') {
    throw new OAuthClientError('discovery', `the authorization server ${d.server.issuer} has no authorization_endpoint`);
  }
  let url: URL;
  try {
    url = checkUrlShape(endpoint);
  } catch (error) {
    if (error instanceof FetchPolicyError) {
      throw new OAuthClientError('discovery', `the authorization endpoint is not acceptable: ${error.message}`, { cause: error });
    }
    throw error;
  }
  const params = url.searchParams;
  params.set('response_type', 'code');
  params.set('client_id', client.clientId);
  params.set('redirect_uri', o.redirectUri);
  params.set('code_challenge', o.challenge);
  params.set('code_challenge_method', 'S256');
  params.set('state', o.state);
  const scope = o.scope ?? d.scope;
  if (scope !== undefined && scope !== '') params.set('scope', scope);
  params.set('resource', d.resource);
  return url;
}

/**
 * @module
 * The grants the gateway uses at a token endpoint, through oauth4webapi (requests and answer
 * validation) over the bounded fetch. Every request carries the resource indicator (RFC 8707;
 * MCP 2025-11-25, basic/authorization "Resource Parameter Implementation": MUST be in token
 * requests). Tokens come back as a `TokenSet`; only Bearer tokens are accepted.
 */
import {
  AuthorizationResponseError,
  authorizationCodeGrantRequest,
  ClientSecretBasic,
  ClientSecretPost,
  clientCredentialsGrantRequest,
  genericTokenEndpointRequest,
  None,
  OperationProcessingError,
  processAuthorizationCodeResponse,
  processClientCredentialsResponse,
  processGenericTokenEndpointResponse,
  processRefreshTokenResponse,
  refreshTokenGrantRequest,
  ResponseBodyError,
  UnsupportedOperationError,
  validateAuthResponse,
  WWWAuthenticateChallengeError,
  type Client,
  type ClientAuth,
  type TokenEndpointResponse,
} from 'oauth4webapi';
import { BoundedFetchError } from '../bounded-fetch.js';
import { describeUrl, FetchPolicyError } from '../fetch-policy.js';
import type { ClientRegistration } from './client-registration.js';
import type { AuthorizationServerMetadata, DiscoveredAuthorization } from './discovery.js';
import { OAuthClientError } from './oauth-client-error.js';
import { oauthHttpOptions, type OAuthFetchOptions } from './oauth-fetch.js';
import type { TokenSet } from './token-set.js';

/** RFC 8693 grant type. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 8693 token type of an access token (the default subject and requested token type). */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

function clientOf(registration: ClientRegistration): { client: Client; auth: ClientAuth } {
  const client: Client = { client_id: registration.clientId, token_endpoint_auth_method: registration.tokenEndpointAuthMethod };
  const secret = registration.clientSecret;
  switch (registration.tokenEndpointAuthMethod) {
    case 'none':
      return { client, auth: None() };
    case 'client_secret_basic':
    case 'client_secret_post':
      if (secret === undefined) {
        throw new OAuthClientError('grant', `the client authenticates with ${registration.tokenEndpointAuthMethod} but has no secret`);
      }
      return { client, auth: registration.tokenEndpointAuthMethod === 'client_secret_basic' ? ClientSecretBasic(secret) : ClientSecretPost(secret) };
  }
}

function where(server: AuthorizationServerMetadata): string {
  try {
    return describeUrl(new URL(server.token_endpoint ?? server.issuer));
  } catch {
    return 'the token endpoint';
  }
}

/** A short, secret-free description from the server (it is the server's text, bounded). */
function description(text: string | undefined): string {
  if (text === undefined || text === '') return '';
  const clean = [...text.slice(0, 200)].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c)).join('');
  return ` (${clean})`;
}

/** Any failure of a grant, as an `OAuthClientError`; messages hold no token, code or secret. */
function grantError(error: unknown, what: string, server: AuthorizationServerMetadata): OAuthClientError {
  if (error instanceof OAuthClientError) return error;
  const at = where(server);
  if (error instanceof ResponseBodyError) {
    const code = error.error === 'invalid_grant' ? 'invalid_grant' : 'grant';
    return new OAuthClientError(code, `${at} refused the ${what}: ${error.error}${description(error.error_description)}`, {
      oauthError: error.error,
      cause: error,
    });
  }
  if (error instanceof WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    const oauthError = challenge?.parameters.error;
    return new OAuthClientError('grant', `${at} refused the ${what}: HTTP ${error.status}${oauthError === undefined ? '' : ` ${oauthError}`}`, {
      ...(oauthError === undefined ? {} : { oauthError }),
      cause: error,
    });
  }
  if (error instanceof UnsupportedOperationError) {
    return new OAuthClientError('unsupported', `the ${what} at ${at}: ${error.message}`, { cause: error });
  }
  if (error instanceof FetchPolicyError || error instanceof BoundedFetchError || error instanceof OperationProcessingError) {
    return new OAuthClientError('grant', `the ${what} at ${at} failed: ${error.message}`, { cause: error });
  }
  return new OAuthClientError('grant', `the ${what} at ${at} failed: ${error instanceof Error ? error.name : 'unknown error'}`, { cause: error });
}

function tokenSetOf(answer: TokenEndpointResponse, now: number, requestedScope: string | undefined, previousRefreshToken?: string): TokenSet {
  if (answer.token_type !== 'bearer') {
    throw new OAuthClientError('unsupported', `the token endpoint issued a ${answer.token_type} token; only Bearer tokens are supported`);
  }
  const refreshToken = answer.refresh_token ?? previousRefreshToken;
  const scope = answer.scope ?? requestedScope;
  return {
    accessToken: answer.access_token,
    tokenType: 'Bearer',
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(typeof answer.expires_in === 'number' ? { expiresAt: now + answer.expires_in * 1000 } : {}),
    ...(scope === undefined ? {} : { scope }),
  };
}

async function run<T>(what: string, server: AuthorizationServerMetadata, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw grantError(error, what, server);
  }
}

/**
 * The authorization code grant (OAuth 2.1 section 4.1.3) after a login: first the redirect's
 * parameters are validated (oauth4webapi `validateAuthResponse`: `state` must be ours, `iss` the
 * server's where it sends one (RFC 9207); an `error` in them is `denied` for `access_denied`, else
 * `grant`), then the code is exchanged with the PKCE verifier, the redirect URI and the resource.
 * Errors: `OAuthClientError` (`state`, `denied`, `grant`, `invalid_grant`, `unsupported`).
 */
export async function exchangeCode(
  d: DiscoveredAuthorization,
  client: ClientRegistration,
  o: { code?: string | undefined; verifier: string; redirectUri: string; callbackParams: URLSearchParams; state: string },
  fetch: OAuthFetchOptions,
  now: () => number = Date.now,
): Promise<TokenSet> {
  const { client: c, auth } = clientOf(client);
  let params: URLSearchParams;
  try {
    params = validateAuthResponse(d.server, c, o.callbackParams, o.state);
  } catch (error) {
    if (error instanceof AuthorizationResponseError) {
      const denied = error.error === 'access_denied';
      throw new OAuthClientError(denied ? 'denied' : 'grant', `the authorization was ${denied ? 'denied' : 'refused'}: ${error.error}${description(error.error_description)}`, {
        oauthError: error.error,
        cause: error,
      });
    }
    throw new OAuthClientError('state', `the authorization response does not belong to this login: ${error instanceof Error ? error.message : 'invalid'}`, {
      cause: error,
    });
  }
  if (o.code !== undefined && params.get('code') !== o.code) {
    throw new OAuthClientError('state', 'the authorization response does not hold the code given');
  }
  return run('authorization code grant', d.server, async () => {
    const response = await authorizationCodeGrantRequest(d.server, c, auth, params, o.redirectUri, o.verifier, {
      additionalParameters: { resource: d.resource },
      ...oauthHttpOptions(fetch, d.server.token_endpoint),
    });
    return tokenSetOf(await processAuthorizationCodeResponse(d.server, c, response), now(), undefined);
  });
}

/**
 * The refresh token grant (OAuth 2.1 section 4.3), with the resource. A refresh token the server
 * no longer honours (`invalid_grant`) is `OAuthClientError('invalid_grant')`: the login is gone.
 * When the answer carries no new refresh token, the one used is kept (RFC 6749 section 6).
 */
export async function refreshTokens(
  d: DiscoveredAuthorization,
  client: ClientRegistration,
  o: { refreshToken: string; scope?: string | undefined },
  fetch: OAuthFetchOptions,
  now: () => number = Date.now,
): Promise<TokenSet> {
  const { client: c, auth } = clientOf(client);
  return run('refresh token grant', d.server, async () => {
    const response = await refreshTokenGrantRequest(d.server, c, auth, o.refreshToken, {
      additionalParameters: { resource: d.resource, ...(o.scope === undefined ? {} : { scope: o.scope }) },
      ...oauthHttpOptions(fetch, d.server.token_endpoint),
    });
    return tokenSetOf(await processRefreshTokenResponse(d.server, c, response), now(), o.scope, o.refreshToken);
  });
}

/** The client credentials grant (OAuth 2.1 section 4.2), with the resource and the scope. */
export async function clientCredentials(
  d: DiscoveredAuthorization,
  client: ClientRegistration,
  o: { scope?: string | undefined },
  fetch: OAuthFetchOptions,
  now: () => number = Date.now,
): Promise<TokenSet> {
  const { client: c, auth } = clientOf(client);
  return run('client credentials grant', d.server, async () => {
    const response = await clientCredentialsGrantRequest(
      d.server,
      c,
      auth,
      { resource: d.resource, ...(o.scope === undefined ? {} : { scope: o.scope }) },
      oauthHttpOptions(fetch, d.server.token_endpoint),
    );
    return tokenSetOf(await processClientCredentialsResponse(d.server, c, response), now(), o.scope);
  });
}

/**
 * RFC 8693 token exchange at `tokenEndpoint`'s `token_endpoint` (the identity provider of the
 * front): the user's token (`subjectToken`, of `subjectTokenType`, default an access token) for
 * one for `resource` (and `audience`, `scope`, `requestedTokenType` when given).
 */
export async function exchangeToken(
  tokenEndpoint: AuthorizationServerMetadata,
  client: ClientRegistration,
  o: {
    subjectToken: string;
    subjectTokenType?: string | undefined;
    resource: string;
    audience?: string | undefined;
    scope?: string | undefined;
    requestedTokenType?: string | undefined;
  },
  fetch: OAuthFetchOptions,
  now: () => number = Date.now,
): Promise<TokenSet> {
  const { client: c, auth } = clientOf(client);
  const parameters: Record<string, string> = {
    subject_token: o.subjectToken,
    subject_token_type: o.subjectTokenType ?? ACCESS_TOKEN_TYPE,
    resource: o.resource,
    requested_token_type: o.requestedTokenType ?? ACCESS_TOKEN_TYPE,
  };
  if (o.audience !== undefined) parameters['audience'] = o.audience;
  if (o.scope !== undefined) parameters['scope'] = o.scope;
  return run('token exchange', tokenEndpoint, async () => {
    const response = await genericTokenEndpointRequest(
      tokenEndpoint,
      c,
      auth,
      TOKEN_EXCHANGE_GRANT,
      parameters,
      oauthHttpOptions(fetch, tokenEndpoint.token_endpoint),
    );
    return tokenSetOf(await processGenericTokenEndpointResponse(tokenEndpoint, c, response), now(), o.scope);
  });
}

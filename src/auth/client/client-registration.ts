/**
 * @module
 * The client the gateway is at an authorization server: MCP 2025-11-25, basic/authorization,
 * "Client Registration Approaches", in its priority order: a pre-registered client, then a Client
 * ID Metadata Document, then Dynamic Client Registration (RFC 7591), else the user is told to
 * configure one.
 */
import { dynamicClientRegistrationRequest, processDynamicClientRegistrationResponse, ResponseBodyError, type JsonValue } from 'oauth4webapi';
import { describeUrl } from '../fetch-policy.js';
import type { DiscoveredAuthorization } from './discovery.js';
import { OAuthClientError } from './oauth-client-error.js';
import { oauthHttpOptions, type OAuthFetchOptions } from './oauth-fetch.js';
import type { PreregisteredClient, UpstreamGrant } from './upstream-oauth-options.js';

/** How the gateway authenticates at a token endpoint. */
export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** A client of an authorization server, however it was had. `clientSecret` is a secret: never logged. */
export interface ClientRegistration {
  readonly clientId: string;
  readonly clientSecret?: string | undefined;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** The redirect URI registered (DCR) or configured; a login must use it. */
  readonly redirectUri?: string | undefined;
  readonly method: 'preregistered' | 'cimd' | 'dcr';
  /** When a dynamically registered secret expires, ms since the epoch (none: never). */
  readonly clientSecretExpiresAt?: number | undefined;
}

/** What `obtainClient` needs to know. */
export interface ObtainClientOptions {
  readonly preregistered?: PreregisteredClient | undefined;
  /** The https URL of this gateway's Client ID Metadata Document. */
  readonly clientMetadataUrl?: string | undefined;
  /** The name shown on the consent screen (DCR `client_name`). */
  readonly clientName: string;
  /** The loopback redirect URI of the login (authorization_code). */
  readonly redirectUri?: string | undefined;
  readonly grant: UpstreamGrant;
  /** The scope, registered with DCR when given. */
  readonly scope?: string | undefined;
  readonly fetch: OAuthFetchOptions;
}

const AUTH_METHODS: readonly string[] = ['none', 'client_secret_basic', 'client_secret_post'];

function fromPreregistered(client: PreregisteredClient, redirectUri: string | undefined): ClientRegistration {
  const tokenEndpointAuthMethod = client.tokenEndpointAuthMethod ?? (client.clientSecret === undefined ? 'none' : 'client_secret_basic');
  if (tokenEndpointAuthMethod !== 'none' && client.clientSecret === undefined) {
    throw new OAuthClientError('registration', `the configured client authenticates with ${tokenEndpointAuthMethod} but has no clientSecret`);
  }
  return {
    clientId: client.clientId,
    ...(client.clientSecret === undefined ? {} : { clientSecret: client.clientSecret }),
    tokenEndpointAuthMethod,
    ...(redirectUri === undefined ? {} : { redirectUri }),
    method: 'preregistered',
  };
}

/**
 * A Client ID Metadata Document URL must be https with a path (MCP 2025-11-25, "Client ID Metadata
 * Documents", Implementation Requirements for MCP clients).
 */
function checkClientMetadataUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthClientError('registration', 'clientMetadataUrl is not a URL');
  }
  if (url.protocol !== 'https:' || url.pathname === '/' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new OAuthClientError('registration', `clientMetadataUrl ${describeUrl(url)} must be an https URL with a path, without fragment or credentials`);
  }
  return url.href;
}

function registrationMetadata(options: ObtainClientOptions): Record<string, JsonValue> {
  if (options.grant === 'client_credentials') {
    return {
      client_name: options.clientName,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      ...(options.scope === undefined ? {} : { scope: options.scope }),
    };
  }
  if (options.redirectUri === undefined) {
    throw new OAuthClientError('registration', 'Dynamic Client Registration for a login needs the redirect URI');
  }
  return {
    client_name: options.clientName,
    redirect_uris: [options.redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
    ...(options.scope === undefined ? {} : { scope: options.scope }),
  };
}

async function register(discovered: DiscoveredAuthorization, endpoint: string, options: ObtainClientOptions): Promise<ClientRegistration> {
  const metadata = registrationMetadata(options);
  const where = (() => {
    try {
      return describeUrl(new URL(endpoint));
    } catch {
      return 'the registration endpoint';
    }
  })();
  let answer: Awaited<ReturnType<typeof processDynamicClientRegistrationResponse>>;
  try {
    const response = await dynamicClientRegistrationRequest(discovered.server, metadata, oauthHttpOptions(options.fetch, endpoint));
    answer = await processDynamicClientRegistrationResponse(response);
  } catch (error) {
    if (error instanceof ResponseBodyError) {
      throw new OAuthClientError('registration', `${where} refused the registration: ${error.error}`, { oauthError: error.error, cause: error });
    }
    throw new OAuthClientError('registration', `registering at ${where} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const method = answer.token_endpoint_auth_method ?? metadata['token_endpoint_auth_method'];
  if (typeof method !== 'string' || !AUTH_METHODS.includes(method)) {
    throw new OAuthClientError('unsupported', `${where} registered a client that authenticates with ${String(method)}, which is not supported`);
  }
  const secret = typeof answer.client_secret === 'string' ? answer.client_secret : undefined;
  if (method !== 'none' && secret === undefined) {
    throw new OAuthClientError('registration', `${where} registered a confidential client without a client_secret`);
  }
  const expires = answer['client_secret_expires_at'];
  return {
    clientId: answer.client_id,
    ...(secret === undefined ? {} : { clientSecret: secret }),
    tokenEndpointAuthMethod: method as TokenEndpointAuthMethod,
    ...(options.redirectUri === undefined || options.grant === 'client_credentials' ? {} : { redirectUri: options.redirectUri }),
    method: 'dcr',
    ...(typeof expires === 'number' && expires > 0 ? { clientSecretExpiresAt: expires * 1000 } : {}),
  };
}

/**
 * The client to use with the discovered authorization server, in the order of MCP 2025-11-25
 * ("Client Registration Approaches"):
 *
 * 1. `preregistered` (the user's `oauth.client`), as it is;
 * 2. the Client ID Metadata Document: when the server advertises
 *    `client_id_metadata_document_supported` and `clientMetadataUrl` is configured (https with a
 *    path), the URL is the `client_id` (a public client; authorization_code only);
 * 3. Dynamic Client Registration (RFC 7591) at `registration_endpoint`: for a login a public
 *    native client (`token_endpoint_auth_method: none`, the loopback `redirectUri`); for
 *    client_credentials a confidential one;
 * 4. else an `OAuthClientError('registration')` asking the user to configure `oauth.client`.
 *
 * A token exchange (`grant: 'token_exchange'`) needs a pre-registered client.
 */
export async function obtainClient(discovered: DiscoveredAuthorization, options: ObtainClientOptions): Promise<ClientRegistration> {
  if (options.preregistered !== undefined) return fromPreregistered(options.preregistered, options.redirectUri);
  const issuer = (() => {
    try {
      return describeUrl(new URL(discovered.server.issuer));
    } catch {
      return 'the authorization server';
    }
  })();
  if (options.grant === 'token_exchange') {
    throw new OAuthClientError('registration', `a token exchange at ${issuer} needs a registered client: configure oauth.tokenExchange.clientId`);
  }
  if (options.grant === 'authorization_code' && options.clientMetadataUrl !== undefined && discovered.server.client_id_metadata_document_supported === true) {
    return {
      clientId: checkClientMetadataUrl(options.clientMetadataUrl),
      tokenEndpointAuthMethod: 'none',
      ...(options.redirectUri === undefined ? {} : { redirectUri: options.redirectUri }),
      method: 'cimd',
    };
  }
  const endpoint = discovered.server.registration_endpoint;
  if (typeof endpoint === 'string') return register(discovered, endpoint, options);
  throw new OAuthClientError(
    'registration',
    `${issuer} offers no way for mcp-chain to register (no Client ID Metadata Document support${
      options.clientMetadataUrl === undefined ? ' or no clientMetadataUrl configured' : ''
    }, no Dynamic Client Registration): register a client there and configure oauth.client (clientId, and clientSecret if it has one)`,
  );
}

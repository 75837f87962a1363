/**
 * @module
 * Where a remote MCP server's tokens come from: MCP 2025-11-25, basic/authorization,
 * "Authorization Server Discovery". The protected resource metadata (RFC 9728) names the
 * authorization server; its metadata (RFC 8414 / OpenID Connect Discovery) names the endpoints.
 * Every fetch goes through `oauthFetch` (the fetch policy, bounds, no redirects).
 */
import { processDiscoveryResponse, type AuthorizationServer, type ResourceServer } from 'oauth4webapi';
import { describeUrl } from '../fetch-policy.js';
import { OAuthClientError } from './oauth-client-error.js';
import { oauthFetch, type OAuthFetchOptions } from './oauth-fetch.js';
import type { BearerChallenge } from './www-authenticate.js';

/** RFC 9728 protected resource metadata (the fields used: `resource`, `authorization_servers`, `scopes_supported`). */
export interface ProtectedResourceMetadata extends ResourceServer {
  readonly resource: string;
}

/**
 * RFC 8414 authorization server metadata (as oauth4webapi reads it), with the Client ID Metadata
 * Document capability (MCP 2025-11-25, basic/authorization "Client ID Metadata Documents").
 */
export interface AuthorizationServerMetadata extends AuthorizationServer {
  readonly client_id_metadata_document_supported?: boolean;
}

/** What discovery found out about a server. */
export interface DiscoveredAuthorization {
  /** The resource indicator (RFC 8707) sent in authorization and token requests. */
  readonly resource: string;
  /** The protected resource metadata, when the server serves one. */
  readonly resourceMetadata?: ProtectedResourceMetadata | undefined;
  readonly server: AuthorizationServerMetadata;
  /** The scope to ask for (the challenge's, else the resource's `scopes_supported`), space-separated. */
  readonly scope?: string | undefined;
}

/**
 * The canonical URI of an MCP server (MCP 2025-11-25, basic/authorization "Canonical Server URI"):
 * scheme and host lowercased (URL does that), no fragment, no query, no trailing slash on a bare origin.
 */
export function canonicalResourceUrl(url: URL | string): string {
  const parsed = new URL(url);
  const path = parsed.pathname === '/' ? '' : parsed.pathname;
  return `${parsed.protocol}//${parsed.host}${path}`;
}

function withoutTrailingSlash(path: string): string {
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * Whether the metadata's `resource` is the server (RFC 9728 section 3.3: identical to the URL
 * the metadata was asked for). Also accepted, as the official MCP SDKs do: the same origin with a
 * path that is a prefix of the server's (`https://h` for `https://h/mcp`), which names the same
 * server and is what many deployments publish.
 */
function resourceMatches(resource: string, serverUrl: URL): boolean {
  let declared: URL;
  try {
    declared = new URL(resource);
  } catch {
    return false;
  }
  if (declared.hash !== '' || declared.origin !== serverUrl.origin) return false;
  const want = withoutTrailingSlash(serverUrl.pathname);
  const have = withoutTrailingSlash(declared.pathname);
  return have === want || want.startsWith(`${have}/`) || have === '';
}

/** The well-known URLs of the protected resource metadata, in the spec's order (path-inserted, then root). */
export function protectedResourceMetadataUrls(serverUrl: URL): URL[] {
  const path = withoutTrailingSlash(serverUrl.pathname);
  const urls = [];
  if (path !== '') urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl.origin));
  urls.push(new URL('/.well-known/oauth-protected-resource', serverUrl.origin));
  return urls;
}

/**
 * The metadata URLs of an issuer, in the order MCP 2025-11-25 ("Authorization Server Metadata
 * Discovery") prescribes: with a path, RFC 8414 path-inserted, OpenID path-inserted, OpenID
 * path-appended; without one, RFC 8414 then OpenID.
 */
export function authorizationServerMetadataUrls(issuer: URL): URL[] {
  const path = withoutTrailingSlash(issuer.pathname);
  if (path === '') {
    return [
      new URL('/.well-known/oauth-authorization-server', issuer.origin),
      new URL('/.well-known/openid-configuration', issuer.origin),
    ];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function get(url: URL, fetch: OAuthFetchOptions, what: string): Promise<Response> {
  try {
    return await oauthFetch(fetch)(url.href, { method: 'GET', headers: { accept: 'application/json' }, body: undefined, redirect: 'manual' });
  } catch (error) {
    throw new OAuthClientError('discovery', `${what}: ${message(error)}`, { cause: error });
  }
}

/** A "not here" answer: the next well-known URL is tried. */
function notHere(status: number): boolean {
  return status >= 400 && status < 500;
}

function describeResource(resource: string): string {
  try {
    return describeUrl(new URL(resource));
  } catch {
    return 'something that is not a URL';
  }
}

async function readResourceMetadata(response: Response, url: URL, serverUrl: URL): Promise<ProtectedResourceMetadata> {
  const where = describeUrl(url);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new OAuthClientError('discovery', `the protected resource metadata at ${where} is not JSON`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthClientError('discovery', `the protected resource metadata at ${where} is not a JSON object`);
  }
  const metadata = body as Record<string, unknown>;
  if (typeof metadata['resource'] !== 'string') {
    throw new OAuthClientError('discovery', `the protected resource metadata at ${where} has no "resource"`);
  }
  if (!resourceMatches(metadata['resource'], serverUrl)) {
    throw new OAuthClientError(
      'discovery',
      `the protected resource metadata at ${where} is for ${describeResource(metadata['resource'])}, not for ${describeUrl(serverUrl)} (RFC 9728 section 3.3)`,
    );
  }
  const servers = metadata['authorization_servers'];
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === 'string')) {
    throw new OAuthClientError('discovery', `the protected resource metadata at ${where} names no authorization server`);
  }
  const scopes = metadata['scopes_supported'];
  if (scopes !== undefined && (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string'))) {
    throw new OAuthClientError('discovery', `the protected resource metadata at ${where} has a malformed "scopes_supported"`);
  }
  return metadata as unknown as ProtectedResourceMetadata;
}

/**
 * The protected resource metadata: from the challenge's `resource_metadata` when there is one
 * (its failure is an error), else from the well-known URLs in order (a 4xx tries the next);
 * `undefined` when no well-known URL has one (a server of an older revision).
 */
async function findResourceMetadata(
  serverUrl: URL,
  challenge: BearerChallenge | undefined,
  fetch: OAuthFetchOptions,
): Promise<ProtectedResourceMetadata | undefined> {
  if (challenge?.resourceMetadata !== undefined) {
    let url: URL;
    try {
      url = new URL(challenge.resourceMetadata, serverUrl);
    } catch {
      throw new OAuthClientError('discovery', `the server's challenge names a resource_metadata that is not a URL`);
    }
    const response = await get(url, fetch, 'the protected resource metadata');
    if (response.status !== 200) {
      throw new OAuthClientError('discovery', `the protected resource metadata at ${describeUrl(url)}: HTTP ${response.status}`);
    }
    return readResourceMetadata(response, url, serverUrl);
  }
  for (const url of protectedResourceMetadataUrls(serverUrl)) {
    const response = await get(url, fetch, 'the protected resource metadata');
    if (response.status === 200) return readResourceMetadata(response, url, serverUrl);
    await response.body?.cancel();
    if (!notHere(response.status)) {
      throw new OAuthClientError('discovery', `the protected resource metadata at ${describeUrl(url)}: HTTP ${response.status}`);
    }
  }
  return undefined;
}

/**
 * An authorization server's metadata, from its well-known URLs in the spec's order; its `issuer`
 * must be the one asked for (RFC 8414 section 3.3), and it must offer PKCE S256 (MCP 2025-11-25,
 * "Authorization Code Protection": clients MUST refuse to proceed otherwise).
 */
export async function fetchAuthorizationServerMetadata(issuer: string, fetch: OAuthFetchOptions): Promise<AuthorizationServerMetadata> {
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    throw new OAuthClientError('discovery', 'the authorization server is not named by a URL');
  }
  if (issuerUrl.search !== '' || issuerUrl.hash !== '') {
    throw new OAuthClientError('discovery', `the issuer ${describeUrl(issuerUrl)} has a query or fragment (RFC 8414 section 2)`);
  }
  const tried: string[] = [];
  for (const url of authorizationServerMetadataUrls(issuerUrl)) {
    const response = await get(url, fetch, `the authorization server metadata of ${describeUrl(issuerUrl)}`);
    if (notHere(response.status)) {
      await response.body?.cancel();
      tried.push(`${url.pathname} (HTTP ${response.status})`);
      continue;
    }
    let metadata: AuthorizationServerMetadata;
    try {
      metadata = (await processDiscoveryResponse(issuerUrl, response)) as AuthorizationServerMetadata;
    } catch (error) {
      throw new OAuthClientError('discovery', `the authorization server metadata at ${describeUrl(url)} is not acceptable: ${message(error)}`, {
        cause: error,
      });
    }
    const methods = metadata.code_challenge_methods_supported;
    if (!Array.isArray(methods) || !methods.includes('S256')) {
      throw new OAuthClientError(
        'unsupported',
        `the authorization server ${describeUrl(issuerUrl)} does not offer PKCE with S256 (code_challenge_methods_supported): refusing to proceed`,
      );
    }
    return metadata;
  }
  throw new OAuthClientError('discovery', `no authorization server metadata for ${describeUrl(issuerUrl)} (tried ${tried.join(', ')})`);
}

/**
 * Discovers how to get tokens for the MCP server at `serverUrl`, after its 401 `challenge` (or
 * before any request, with none):
 *
 * 1. The protected resource metadata (MCP 2025-11-25, "Protected Resource Metadata Discovery
 *    Requirements"): at the challenge's `resource_metadata`, else at the well-known URI with the
 *    server's path inserted, then at the root. Its `resource` must be the server (RFC 9728
 *    section 3.3). The first of its `authorization_servers` is used (RFC 9728 section 7.6 leaves
 *    the choice to the client).
 * 2. Without one (a 2025-03-26 server), the authorization server is the server's origin.
 * 3. The authorization server's metadata (see `fetchAuthorizationServerMetadata`).
 * 4. The scope ("Scope Selection Strategy"): the challenge's `scope`, else `scopes_supported`.
 *
 * `options.authorizationServer` skips 1 and 2; `options.resource` replaces the resource
 * indicator (default: the metadata's `resource`, else the server's canonical URI).
 * Errors: `OAuthClientError` (`discovery`, or `unsupported` without PKCE S256).
 */
export async function discoverAuthorization(
  serverUrl: URL,
  challenge: BearerChallenge | undefined,
  options: { fetch: OAuthFetchOptions; authorizationServer?: string | undefined; resource?: string | undefined },
): Promise<DiscoveredAuthorization> {
  const resourceMetadata =
    options.authorizationServer === undefined ? await findResourceMetadata(serverUrl, challenge, options.fetch) : undefined;
  const issuer = options.authorizationServer ?? resourceMetadata?.authorization_servers?.[0] ?? serverUrl.origin;
  const server = await fetchAuthorizationServerMetadata(issuer, options.fetch);
  const scope = challenge?.scope ?? resourceMetadata?.scopes_supported?.join(' ');
  return {
    resource: options.resource ?? resourceMetadata?.resource ?? canonicalResourceUrl(serverUrl),
    resourceMetadata,
    server,
    scope: scope === '' ? undefined : scope,
  };
}

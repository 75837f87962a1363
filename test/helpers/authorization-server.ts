// A real OAuth 2.1 / OpenID authorization server for the tests, on loopback: `oidc-provider` (a
// certified OpenID provider), configured the way the MCP authorization spec expects one to be.
//
// - Discovery: RFC 8414 metadata at /.well-known/oauth-authorization-server and OpenID discovery
//   at /.well-known/openid-configuration (the same document), keys at `jwksUri`.
// - Access tokens for a resource (RFC 8707 `resource` parameter) are JWTs (RFC 9068, `typ: at+jwt`,
//   `aud` = the resource), or opaque tokens checked by introspection (RFC 7662) when
//   `accessTokenFormat` says so. oidc-provider does not store JWT access tokens, so only opaque
//   tokens (and refresh tokens) can be introspected or revoked. A token asked for without
//   `resource` is opaque and has no audience (oidc-provider keeps those for its userinfo endpoint).
// - Grants: client_credentials, authorization_code with PKCE S256 (required), refresh_token.
// - Open Dynamic Client Registration (RFC 7591) beside the clients given in the options.
// - Token exchange (RFC 8693, `urn:ietf:params:oauth:grant-type:token-exchange`) for
//   `tokenExchangeClient` (and clients given that grant type): the subject token must be one of this
//   server's own live access tokens (opaque: stored; JWT: signature, issuer, `typ`, expiry checked),
//   and the answer is an access token of the same subject for the `resource` asked for.
// - Login and consent without a browser: `completeLogin` follows an authorization URL the way a
//   user's browser does (redirects, cookies, the login form, the consent form) and returns the
//   redirect back to the client, with `code` and `state`.
// - `rotateKeys` swaps in a new signing key (keeping the old one in the JWKS, or not).
// - Quiet: oidc-provider's notices (console.info / console.warn) are dropped; errors are kept in
//   `serverErrors` for a failing test to show.
//
// Every HTTP exchange the helper makes itself has a deadline (AUTH_WAIT_MS).
import { createHash, generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type * as OidcProviderModule from 'oidc-provider';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Adapter, AdapterPayload, ClientMetadata, Configuration, JWK, KoaContextWithOIDC, Provider as ProviderInstance } from 'oidc-provider';
import { withDeadline } from '../../src/testing/with-deadline.js';

/** How long one HTTP exchange of the helper may take before it fails. */
export const AUTH_WAIT_MS = 15_000;

/** The scopes every resource allows unless the options say otherwise. */
export const DEFAULT_SCOPES: readonly string[] = ['mcp:read', 'mcp:write', 'mcp:admin'];

export type AccessTokenFormat = 'jwt' | 'opaque';

export interface AuthorizationServerOptions {
  /** Scopes a resource allows (and a client may ask for). Default {@link DEFAULT_SCOPES}. */
  scopes?: readonly string[];
  /** The scope of an authorization request that names none. Default: every scope in `scopes`. */
  defaultScope?: string;
  /** When given, only these resource indicators are accepted (others: `invalid_target`). */
  resources?: readonly string[];
  /** Access-token format, for every token or per resource and client. Default `'jwt'`. */
  accessTokenFormat?: AccessTokenFormat | ((resource: string, clientId: string) => AccessTokenFormat);
  /** Access-token lifetime in seconds (a positive integer). Default 300. See `setAccessTokenTtl`. */
  accessTokenTtl?: number;
  /** Refresh-token lifetime in seconds. Default 3600. */
  refreshTokenTtl?: number;
  /** Clients registered from the start (metadata as in RFC 7591, with `client_id`). */
  clients?: readonly ClientMetadata[];
  /** Extra claims put in a user's access tokens (JWT payload, or introspection answer). */
  accountClaims?: (subject: string) => Record<string, unknown>;
  /** JWS algorithm of the signing keys. Default `'RS256'`. */
  signingAlg?: 'RS256' | 'ES256';
}

/** A client's credentials, as the helper's token calls take them. */
export interface ClientCredentials {
  clientId: string;
  clientSecret?: string | undefined;
}

/** A token endpoint answer (RFC 6749 section 5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
  [key: string]: unknown;
}

/** RFC 8693 grant type of a token exchange. */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 8693 token type of an access token. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** A token exchange the server granted (for tests to check what was asked). */
export interface TokenExchangeRecord {
  clientId: string;
  /** The subject of the subject token, and of the token issued. */
  subject: string;
  resource: string;
  audience: string | undefined;
  scope: string | undefined;
}

/** A PKCE pair (RFC 7636, S256). */
export interface Pkce {
  verifier: string;
  challenge: string;
}

export interface AuthorizationUrlOptions {
  clientId: string;
  redirectUri: string;
  resource?: string | undefined;
  scope?: string | undefined;
  state?: string | undefined;
  codeChallenge: string;
}

export interface CompleteLoginOptions {
  /** Who logs in: becomes the `sub` of the tokens. */
  subject: string;
  /** `'deny'` refuses the consent: the client gets `error=access_denied`. Default `'approve'`. */
  consent?: 'approve' | 'deny';
  /** Also load the final redirect URL, as the browser would (e.g. mcp-chain's loopback listener). */
  deliver?: boolean;
}

export interface RotateKeysOptions {
  /** Keep the old key in the JWKS (tokens it signed stay verifiable). Default true. */
  keepOld?: boolean;
}

export interface AuthorizationServer {
  /** `http://127.0.0.1:<port>` */
  readonly issuer: string;
  readonly jwksUri: string;
  readonly tokenEndpoint: string;
  readonly authorizationEndpoint: string;
  readonly registrationEndpoint: string;
  readonly introspectionEndpoint: string;
  readonly revocationEndpoint: string;
  /** A confidential client with the client_credentials grant, the default of `token`. */
  readonly machineClient: Required<ClientCredentials>;
  /** A confidential client a resource server uses to introspect tokens. */
  readonly introspectionClient: Required<ClientCredentials>;
  /** A confidential client allowed the token exchange grant (RFC 8693). */
  readonly tokenExchangeClient: Required<ClientCredentials>;
  /** Every token exchange granted, in order. */
  readonly tokenExchanges: TokenExchangeRecord[];
  /** Errors oidc-provider met while answering (it answers `server_error`); shown by failing tests. */
  readonly serverErrors: Error[];
  /** A client_credentials access token. */
  token(options?: { client?: ClientCredentials; scope?: string; resource?: string }): Promise<string>;
  /** POSTs a grant to the token endpoint; the whole answer. Fails on an error answer. */
  requestToken(client: ClientCredentials, params: Record<string, string>): Promise<TokenResponse>;
  /** Exchanges an authorization code (with its PKCE verifier) for tokens. */
  exchangeCode(client: ClientCredentials, options: { code: string; verifier: string; redirectUri: string; resource?: string }): Promise<TokenResponse>;
  /** Uses a refresh token. */
  refresh(client: ClientCredentials, options: { refreshToken: string; resource?: string; scope?: string }): Promise<TokenResponse>;
  /** The introspection answer (RFC 7662) for a token, asked as {@link introspectionClient}. */
  introspect(token: string): Promise<Record<string, unknown>>;
  /** Revokes one opaque access token or refresh token (a JWT access token is not stored: it cannot be). */
  revoke(token: string): Promise<void>;
  /** Revokes the whole grant a token belongs to: its refresh token and every access token from it. */
  revokeGrant(token: string): Promise<void>;
  /** Dynamic Client Registration (RFC 7591); the registration answer (with `client_id`, maybe `client_secret`). */
  registerClient(metadata: Record<string, unknown>): Promise<Record<string, unknown> & { client_id: string }>;
  /** An authorization request URL (code flow, PKCE S256). */
  authorizationUrl(options: AuthorizationUrlOptions): string;
  /** Drives an authorization URL as a user in a browser would; the final redirect to the client. */
  completeLogin(authorizationUrl: string, options: CompleteLoginOptions): Promise<string>;
  /** Adds a new signing key and signs with it from now on; its `kid`. */
  rotateKeys(options?: RotateKeysOptions): Promise<string>;
  /** The `kid` of the key that signs now. */
  currentKid(): string;
  /** Changes the lifetime of access tokens issued from now on (seconds). */
  setAccessTokenTtl(seconds: number): void;
  close(): Promise<void>;
}

/** A fresh PKCE verifier and its S256 challenge. */
export function createPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface Stored {
  payload: AdapterPayload;
  expiresAt: number | undefined;
}

/** oidc-provider's storage, in memory and per server (its own memory adapter is shared by the process). */
class Storage {
  readonly entries = new Map<string, Stored>();
  readonly grants = new Map<string, Set<string>>();
  readonly uids = new Map<string, string>();
  readonly userCodes = new Map<string, string>();

  adapter(name: string): Adapter {
    const key = (id: string): string => `${name}:${id}`;
    const read = (full: string | undefined): AdapterPayload | undefined => {
      if (full === undefined) return undefined;
      const stored = this.entries.get(full);
      if (stored === undefined) return undefined;
      if (stored.expiresAt !== undefined && stored.expiresAt <= Date.now()) {
        this.entries.delete(full);
        return undefined;
      }
      return stored.payload;
    };
    return {
      upsert: (id, payload, expiresIn) => {
        const full = key(id);
        this.entries.set(full, { payload, expiresAt: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000 });
        if (payload.grantId !== undefined) {
          const members = this.grants.get(payload.grantId) ?? new Set<string>();
          members.add(full);
          this.grants.set(payload.grantId, members);
        }
        if (payload.uid !== undefined && name === 'Session') this.uids.set(payload.uid, id);
        if (payload.userCode !== undefined) this.userCodes.set(payload.userCode, id);
        return Promise.resolve();
      },
      find: (id) => Promise.resolve(read(key(id))),
      findByUid: (uid) => {
        const id = this.uids.get(uid);
        return Promise.resolve(id === undefined ? undefined : read(key(id)));
      },
      findByUserCode: (userCode) => {
        const id = this.userCodes.get(userCode);
        return Promise.resolve(id === undefined ? undefined : read(key(id)));
      },
      consume: (id) => {
        const stored = this.entries.get(key(id));
        if (stored !== undefined) stored.payload.consumed = Math.floor(Date.now() / 1000);
        return Promise.resolve();
      },
      destroy: (id) => {
        this.entries.delete(key(id));
        return Promise.resolve();
      },
      revokeByGrantId: (grantId) => {
        for (const full of this.grants.get(grantId) ?? []) this.entries.delete(full);
        this.grants.delete(grantId);
        return Promise.resolve();
      },
    };
  }
}

interface SigningKey {
  kid: string;
  jwk: JWK;
}

const generateKeyPairAsync = promisify(generateKeyPair);

async function newSigningKey(alg: 'RS256' | 'ES256'): Promise<SigningKey> {
  const { privateKey } =
    alg === 'RS256' ? await generateKeyPairAsync('rsa', { modulusLength: 2048 }) : await generateKeyPairAsync('ec', { namedCurve: 'P-256' });
  const kid = randomUUID();
  return { kid, jwk: { ...(privateKey.export({ format: 'jwk' }) as JWK), kid, alg, use: 'sig' } };
}

type ProviderModule = typeof OidcProviderModule;

const quietPrefix = 'oidc-provider ';
let providerModule: Promise<ProviderModule> | undefined;

/** Runs `work` with oidc-provider's own notices (console.info / console.warn, "oidc-provider …") dropped. */
async function quietly<T>(work: () => Promise<T> | T): Promise<T> {
  const { info, warn } = console;
  const drop =
    (original: (...args: unknown[]) => void) =>
    (...args: unknown[]): void => {
      if (typeof args[0] === 'string' && args[0].includes(quietPrefix)) return;
      original(...args);
    };
  console.info = drop(info);
  console.warn = drop(warn);
  try {
    return await work();
  } finally {
    console.info = info;
    console.warn = warn;
  }
}

function loadProvider(): Promise<ProviderModule> {
  // Warns about the runtime on import (Node 20 is not an LTS it lists): dropped, it works here.
  providerModule ??= quietly(() => import('oidc-provider'));
  return providerModule;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function basic(client: ClientCredentials): Record<string, string> {
  if (client.clientSecret === undefined) return {};
  const encode = (s: string): string => encodeURIComponent(s);
  return { authorization: `Basic ${Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString('base64')}` };
}

function bounded(url: string, init: RequestInit, what: string): Promise<Response> {
  return withDeadline(fetch(url, { ...init, signal: AbortSignal.timeout(AUTH_WAIT_MS) }), { what, timeoutMs: AUTH_WAIT_MS });
}

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${what}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 300)}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(`${what}: not a JSON object`);
  return body as Record<string, unknown>;
}

/** A cookie jar good enough for one user agent talking to the authorization server. */
class CookieJar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string }>();

  store(response: Response, requestPath: string): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = requestPath.replace(/\/[^/]*$/, '') || '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=', 2);
        const lower = key.toLowerCase();
        if (lower === 'path') path = val;
        else if (lower === 'max-age' && Number(val) <= 0) expired = true;
        else if (lower === 'expires' && Date.parse(val) <= Date.now()) expired = true;
      }
      const id = `${name};${path}`;
      if (expired) this.cookies.delete(id);
      else this.cookies.set(id, { name, value, path });
    }
  }

  header(path: string): string | undefined {
    const matching = [...this.cookies.values()].filter(
      (c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
    );
    return matching.length === 0 ? undefined : matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }
}

/** Starts an authorization server on 127.0.0.1, on a free port. Close it in `after()`. */
export async function startAuthorizationServer(options: AuthorizationServerOptions = {}): Promise<AuthorizationServer> {
  const { Provider, errors } = await loadProvider();
  const scopes = [...(options.scopes ?? DEFAULT_SCOPES)];
  const alg = options.signingAlg ?? 'RS256';
  const defaultScope = options.defaultScope ?? scopes.join(' ');
  const state = { accessTokenTtl: options.accessTokenTtl ?? 300, refreshTokenTtl: options.refreshTokenTtl ?? 3600 };
  const storage = new Storage();
  const serverErrors: Error[] = [];
  const cookieKeys = [randomBytes(32).toString('base64url')];
  const machineClient = { clientId: 'mcp-chain-tests-machine', clientSecret: randomBytes(24).toString('base64url') };
  const introspectionClient = { clientId: 'mcp-chain-tests-resource-server', clientSecret: randomBytes(24).toString('base64url') };
  const tokenExchangeClient = { clientId: 'mcp-chain-tests-token-exchange', clientSecret: randomBytes(24).toString('base64url') };
  const tokenExchanges: TokenExchangeRecord[] = [];
  let keys: SigningKey[] = [await newSigningKey(alg)];

  const formatFor = (resource: string, clientId: string): AccessTokenFormat => {
    const format = options.accessTokenFormat ?? 'jwt';
    return typeof format === 'function' ? format(resource, clientId) : format;
  };

  const configuration = (): Configuration => ({
    adapter: (name: string) => storage.adapter(name),
    clients: [
      {
        client_id: machineClient.clientId,
        client_secret: machineClient.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: introspectionClient.clientId,
        client_secret: introspectionClient.clientSecret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: tokenExchangeClient.clientId,
        client_secret: tokenExchangeClient.clientSecret,
        grant_types: [TOKEN_EXCHANGE_GRANT_TYPE],
        response_types: [],
        redirect_uris: [],
      },
      ...(options.clients ?? []),
    ],
    jwks: { keys: keys.map((key) => key.jwk) },
    cookies: { keys: cookieKeys },
    scopes: ['openid', 'offline_access', ...scopes],
    claims: { openid: ['sub'] },
    findAccount: (_ctx: KoaContextWithOIDC, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    extraTokenClaims: (_ctx, token) => {
      const accountId = 'accountId' in token ? token.accountId : undefined;
      return accountId === undefined ? undefined : options.accountClaims?.(accountId);
    },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    clientBasedCORS: () => true,
    renderError: (ctx, out) => {
      ctx.type = 'application/json';
      ctx.body = out;
    },
    ttl: {
      AccessToken: () => state.accessTokenTtl,
      ClientCredentials: () => state.accessTokenTtl,
      RefreshToken: () => state.refreshTokenTtl,
      AuthorizationCode: 60,
      IdToken: 300,
      Interaction: 600,
      Session: 3600,
      Grant: () => state.refreshTokenTtl + 60,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: () => true },
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      registration: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => {
          if (options.resources !== undefined && !options.resources.includes(resource)) {
            throw new errors.InvalidTarget('unknown resource');
          }
          return {
            scope: scopes.join(' '),
            audience: resource,
            accessTokenTTL: state.accessTokenTtl,
            accessTokenFormat: formatFor(resource, client.clientId),
            jwt: { sign: { alg } },
          };
        },
      },
    },
  });

  let provider: ProviderInstance | undefined;
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;

  const interaction = async (req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> => {
    const current = provider;
    if (current === undefined) throw new Error('not started');
    const details = await current.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    const prompt = details.prompt.name;
    if (req.method === 'GET') {
      const fields =
        prompt === 'login'
          ? '<label>Subject <input name="subject" autocomplete="username"></label><button type="submit">Log in</button>'
          : '<button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny">Deny</button>';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(
        `<!doctype html><title>${escapeHtml(prompt)}</title><form method="post" action="/interaction/${escapeHtml(uid)}">` +
          `<input type="hidden" name="prompt" value="${escapeHtml(prompt)}">${fields}</form>`,
      );
      return;
    }
    const form = new URLSearchParams(await readBody(req));
    if (form.get('prompt') !== prompt) throw new Error(`the form answers ${form.get('prompt') ?? 'nothing'}, the prompt is ${prompt}`);
    if (prompt === 'login') {
      const subject = form.get('subject') ?? '';
      if (subject === '') throw new Error('no subject');
      await current.interactionFinished(req, res, { login: { accountId: subject } }, { mergeWithLastSubmission: false });
      return;
    }
    if (form.get('decision') !== 'approve') {
      await current.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the user denied the request' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const accountId = details.session?.accountId;
    const clientId = details.params['client_id'];
    if (accountId === undefined || typeof clientId !== 'string') throw new Error('consent without a login');
    const grant =
      details.grantId === undefined
        ? new current.Grant({ accountId, clientId })
        : ((await current.Grant.find(details.grantId)) ?? new current.Grant({ accountId, clientId }));
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims !== undefined) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, granted] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, granted.join(' '));
    }
    const grantId = await grant.save();
    await current.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const match = /^\/interaction\/([^/]+)$/.exec(path);
    if (match?.[1] !== undefined) {
      interaction(req, res, match[1]).catch((error: unknown) => {
        serverErrors.push(error instanceof Error ? error : new Error(String(error)));
        if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(`interaction failed: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    // An authorization request without `scope` (MCP clients omit it when no scope is advertised)
    // gets the default scope, as RFC 6749 section 3.3 lets a server do: oidc-provider would refuse it.
    if (path === '/auth' && req.method === 'GET' && defaultScope !== '') {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (!url.searchParams.has('scope')) {
        url.searchParams.set('scope', defaultScope);
        req.url = `${url.pathname}${url.search}`;
      }
    }
    // RFC 8414 metadata: the OpenID discovery document, which carries every field it needs.
    if (path === '/.well-known/oauth-authorization-server') req.url = '/.well-known/openid-configuration';
    if (handler === undefined) {
      res.writeHead(503).end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** The subject of one of this server's own live access tokens, or undefined. */
  const subjectOfToken = async (current: ProviderInstance, token: string): Promise<{ subject: string; scope: string | undefined } | undefined> => {
    const stored = (await current.AccessToken.find(token)) ?? (await current.ClientCredentials.find(token));
    if (stored !== undefined) {
      if (stored.isExpired) return undefined;
      const subject = 'accountId' in stored ? stored.accountId : stored.clientId;
      return subject === undefined ? undefined : { subject, scope: stored.scope };
    }
    if (token.split('.').length !== 3) return undefined;
    const jwks = createLocalJWKSet({
      keys: keys.map(({ jwk }) => {
        const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk as Record<string, unknown>;
        return publicJwk;
      }),
    });
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer, typ: 'at+jwt' });
      if (typeof payload.sub !== 'string') return undefined;
      return { subject: payload.sub, scope: typeof payload['scope'] === 'string' ? payload['scope'] : undefined };
    } catch {
      return undefined;
    }
  };

  type ExchangeParams = {
    subject_token?: string;
    subject_token_type?: string;
    resource?: string;
    audience?: string;
    scope?: string;
    requested_token_type?: string;
  };

  const registerTokenExchange = (provider: ProviderInstance): void => {
    provider.registerGrantType<ExchangeParams>(
      TOKEN_EXCHANGE_GRANT_TYPE,
      async (ctx) => {
        const { params, client } = ctx.oidc;
        if (params.subject_token === undefined || params.subject_token_type === undefined) {
          throw new errors.InvalidRequest('subject_token and subject_token_type are required');
        }
        if (params.subject_token_type !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest('unsupported subject_token_type');
        if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
          throw new errors.InvalidRequest('unsupported requested_token_type');
        }
        if (params.resource === undefined) throw new errors.InvalidTarget('a resource is required');
        const subject = await subjectOfToken(provider, params.subject_token);
        if (subject === undefined) throw new errors.InvalidGrant('the subject token is not an active access token of this server');
        if (options.resources !== undefined && !options.resources.includes(params.resource)) throw new errors.InvalidTarget('unknown resource');
        const resourceScopes = new Set(scopes);
        const asked = (params.scope ?? subject.scope ?? scopes.join(' ')).split(' ').filter((s) => resourceScopes.has(s));
        const scope = asked.length === 0 ? undefined : asked.join(' ');
        const grant = new provider.Grant({ accountId: subject.subject, clientId: client.clientId });
        if (scope !== undefined) grant.addResourceScope(params.resource, scope);
        const grantId = await grant.save();
        const token = new provider.AccessToken({
          client,
          accountId: subject.subject,
          grantId,
          gty: 'token_exchange',
          ...(scope === undefined ? {} : { scope }),
          resourceServer: new provider.ResourceServer(params.resource, {
            scope: scopes.join(' '),
            audience: params.audience ?? params.resource,
            accessTokenTTL: state.accessTokenTtl,
            accessTokenFormat: formatFor(params.resource, client.clientId),
            jwt: { sign: { alg } },
          }),
        });
        const value = await token.save();
        tokenExchanges.push({ clientId: client.clientId, subject: subject.subject, resource: params.resource, audience: params.audience, scope });
        ctx.body = {
          access_token: value,
          issued_token_type: ACCESS_TOKEN_TYPE,
          token_type: 'Bearer',
          expires_in: token.expiration,
          ...(scope === undefined ? {} : { scope }),
        };
      },
      ['subject_token', 'subject_token_type', 'resource', 'audience', 'scope', 'requested_token_type'],
    );
  };

  const install = (): Promise<void> =>
    quietly(() => {
      const next = new Provider(issuer, configuration());
      registerTokenExchange(next);
      next.silent = true;
      next.on('server_error', (_ctx: unknown, error: Error) => serverErrors.push(error));
      provider = next;
      const callback = next.callback();
      handler = (req, res) => void callback(req, res);
    });
  await install();

  const requestToken = async (client: ClientCredentials, params: Record<string, string>): Promise<TokenResponse> => {
    const body = new URLSearchParams(params);
    if (client.clientSecret === undefined) body.set('client_id', client.clientId);
    const response = await bounded(
      `${issuer}/token`,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic(client) }, body },
      `the token endpoint's answer to ${params['grant_type'] ?? 'a grant'}`,
    );
    const json = await readJson(response, `token request (${params['grant_type'] ?? '?'})`);
    if (typeof json['access_token'] !== 'string') throw new Error('token response without access_token');
    return json as TokenResponse;
  };

  const findStored = async (token: string) => {
    const current = provider;
    if (current === undefined) throw new Error('not started');
    return (
      (await current.AccessToken.find(token)) ??
      (await current.ClientCredentials.find(token)) ??
      (await current.RefreshToken.find(token))
    );
  };

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    tokenEndpoint: `${issuer}/token`,
    authorizationEndpoint: `${issuer}/auth`,
    registrationEndpoint: `${issuer}/reg`,
    introspectionEndpoint: `${issuer}/token/introspection`,
    revocationEndpoint: `${issuer}/token/revocation`,
    machineClient,
    introspectionClient,
    tokenExchangeClient,
    tokenExchanges,
    serverErrors,
    async token(opts = {}) {
      const params: Record<string, string> = { grant_type: 'client_credentials' };
      if (opts.scope !== undefined) params['scope'] = opts.scope;
      if (opts.resource !== undefined) params['resource'] = opts.resource;
      return (await requestToken(opts.client ?? machineClient, params)).access_token;
    },
    requestToken,
    exchangeCode(client, { code, verifier, redirectUri, resource }) {
      const params: Record<string, string> = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri };
      if (resource !== undefined) params['resource'] = resource;
      return requestToken(client, params);
    },
    refresh(client, { refreshToken, resource, scope }) {
      const params: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken };
      if (resource !== undefined) params['resource'] = resource;
      if (scope !== undefined) params['scope'] = scope;
      return requestToken(client, params);
    },
    async introspect(token) {
      const response = await bounded(
        `${issuer}/token/introspection`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...basic(introspectionClient) },
          body: new URLSearchParams({ token }),
        },
        'the introspection answer',
      );
      return readJson(response, 'introspection');
    },
    async revoke(token) {
      const stored = await findStored(token);
      if (stored === undefined) throw new Error('revoke: no such stored token (JWT access tokens are not stored; revoke its grant)');
      await stored.destroy();
    },
    async revokeGrant(token) {
      const stored = await findStored(token);
      const grantId = stored !== undefined && 'grantId' in stored ? stored.grantId : undefined;
      if (grantId === undefined) throw new Error('revokeGrant: the token has no stored grant');
      await storage.adapter('Grant').revokeByGrantId(grantId);
      await storage.adapter('Grant').destroy(grantId);
    },
    async registerClient(metadata) {
      const response = await bounded(
        `${issuer}/reg`,
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(metadata) },
        'the registration answer',
      );
      const json = await readJson(response, 'client registration');
      if (typeof json['client_id'] !== 'string') throw new Error('registration answer without client_id');
      return json as Record<string, unknown> & { client_id: string };
    },
    authorizationUrl({ clientId, redirectUri, resource, scope, state: st, codeChallenge }) {
      const url = new URL(`${issuer}/auth`);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('code_challenge', codeChallenge);
      url.searchParams.set('code_challenge_method', 'S256');
      if (scope !== undefined) url.searchParams.set('scope', scope);
      if (st !== undefined) url.searchParams.set('state', st);
      if (resource !== undefined) url.searchParams.set('resource', resource);
      return url.href;
    },
    async completeLogin(authorizationUrl, { subject, consent = 'approve', deliver = false }) {
      const jar = new CookieJar();
      const origin = new URL(issuer).origin;
      let url = new URL(authorizationUrl);
      let post: URLSearchParams | undefined;
      for (let step = 0; step < 20; step++) {
        if (url.origin !== origin) {
          if (deliver) await (await bounded(url.href, { redirect: 'manual' }, `the client's redirect endpoint ${url.origin}${url.pathname}`)).arrayBuffer();
          return url.href;
        }
        const cookie = jar.header(url.pathname);
        const headers: Record<string, string> = { accept: 'text/html' };
        if (cookie !== undefined) headers['cookie'] = cookie;
        if (post !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
        const response = await bounded(
          url.href,
          { method: post === undefined ? 'GET' : 'POST', headers, redirect: 'manual', ...(post === undefined ? {} : { body: post }) },
          `the authorization server's answer to ${post === undefined ? 'GET' : 'POST'} ${url.pathname}`,
        );
        jar.store(response, url.pathname);
        post = undefined;
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location !== null) {
          await response.arrayBuffer();
          url = new URL(location, url);
          continue;
        }
        const text = await response.text();
        const form = /<form method="post" action="([^"]+)">/.exec(text);
        const prompt = /name="prompt" value="([^"]+)"/.exec(text)?.[1];
        if (response.status !== 200 || form?.[1] === undefined || prompt === undefined) {
          throw new Error(`completeLogin: HTTP ${response.status} at ${url.pathname}: ${text.slice(0, 300)}`);
        }
        post = new URLSearchParams({ prompt });
        if (prompt === 'login') post.set('subject', subject);
        else post.set('decision', consent);
        url = new URL(form[1].replace(/&#47;/g, '/'), url);
      }
      throw new Error('completeLogin: more than 20 steps');
    },
    async rotateKeys({ keepOld = true } = {}) {
      const key = await newSigningKey(alg);
      keys = keepOld ? [key, ...keys] : [key];
      await install();
      return key.kid;
    },
    currentKid() {
      const first = keys[0];
      if (first === undefined) throw new Error('no key');
      return first.kid;
    },
    setAccessTokenTtl(seconds) {
      if (!Number.isSafeInteger(seconds) || seconds <= 0) throw new Error('the lifetime is a positive integer of seconds');
      state.accessTokenTtl = seconds;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
    },
  };
}

/**
 * @module
 * The gateway as an OAuth client of one remote server (MCP 2025-11-25, basic/authorization): the
 * `UpstreamAuth` an HTTP upstream asks for tokens, and the interactive login of `mcp-chain auth
 * login`. It puts the protocol pieces together (discovery, client registration, PKCE, the
 * authorization request, the redirect listener, the token grants) over the token store, per
 * principal: a memory cache of each principal's login, read from the store on a miss; a refresh
 * (one at a time per principal) when the token expires within a minute and when the server
 * refuses it; a login started in the background when a person must log in; the client-credentials
 * grant and token exchange for the grants without a person. Tokens are sent only to the server they
 * were obtained for, and nothing here logs a token, a code, a verifier or a secret.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../log/logger.js';
import { fetchBounded } from '../bounded-fetch.js';
import { subjectTokenOf } from '../subject-token.js';
import type { Principal, UpstreamAuth, UpstreamRefusal } from '../upstream-auth.js';
import { authorizationUrl } from './authorization-request.js';
import { obtainClient, type ClientRegistration } from './client-registration.js';
import { canonicalResourceUrl, discoverAuthorization, fetchAuthorizationServerMetadata, type AuthorizationServerMetadata, type DiscoveredAuthorization } from './discovery.js';
import { LoginRequiredError } from './login-required-error.js';
import { OAuthClientError } from './oauth-client-error.js';
import { oauthFetchLimits, type OAuthFetchOptions } from './oauth-fetch.js';
import { openBrowser } from './open-browser.js';
import { createPkce } from './pkce.js';
import { LOCAL_PRINCIPAL, MACHINE_PRINCIPAL } from './principal-of.js';
import { listenForRedirect, type RedirectListener } from './redirect-listener.js';
import { expectRedirect, routesRedirect } from './redirect-router.js';
import { clientCredentials, exchangeCode, exchangeToken, refreshTokens } from './token-grants.js';
import type { TokenSet } from './token-set.js';
import { defaultTokenStorePath, TokenStore, type StoredClient, type StoredLogin } from './token-store.js';
import type { UpstreamOAuthOptions } from './upstream-oauth-options.js';
import { parseBearerChallenge, type BearerChallenge } from './www-authenticate.js';

/** A token expiring within this long is refreshed before it is sent. */
export const REFRESH_MARGIN_MS = 60_000;

/** How long a login started in the background waits for the person, ms (5 minutes). */
export const LOGIN_TIMEOUT_MS = 300_000;

const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:0/callback';

export interface OAuthAuthorizerOptions {
  /** The server's name, in messages and the login command (a config key, or the URL's host). */
  readonly server: string;
  /** The server's MCP endpoint. */
  readonly serverUrl: URL;
  readonly oauth: UpstreamOAuthOptions;
  /** The token store. Default: `oauth.tokenStore`, else `defaultTokenStorePath(env)`. */
  readonly store?: TokenStore | undefined;
  /** Never receives a token, code, verifier or secret. */
  readonly log: Logger;
  /** For the default token store path. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Bounds and policy of every OAuth fetch. */
  readonly fetch?: OAuthFetchOptions | undefined;
  /** The clock (ms since the epoch) that decides when a token is about to expire. Default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** The command that logs in from a terminal, in messages. Default `mcp-chain auth login <server>`. */
  readonly loginCommand?: string | undefined;
  /** How long a login waits for the browser's redirect, ms. Default {@link LOGIN_TIMEOUT_MS}. */
  readonly loginTimeoutMs?: number | undefined;
}

export interface LoginOptions {
  /** Called with the authorization URL once the redirect listener is up (print it; the browser is opened besides, when there is a desktop). */
  readonly onUrl?: ((url: string) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Scopes to ask for instead of the configured or discovered ones. */
  readonly scope?: string | undefined;
}

/** One kept login, without its secrets. */
export interface LoginStatus {
  readonly principal: string;
  readonly issuer: string;
  readonly resource: string;
  readonly clientId: string;
  readonly scope: string | undefined;
  /** When the access token expires (ms since the epoch); undefined: unknown. */
  readonly expiresAt: number | undefined;
  readonly expired: boolean;
  /** It has a refresh token (it can be renewed without a person). */
  readonly refreshable: boolean;
  readonly obtainedAt: number;
}

/** What `status()` reports: the logins kept for the server. */
export interface AuthorizerStatus {
  readonly server: string;
  /** The server's canonical URL (the store's key). */
  readonly url: string;
  readonly tokenStore: string;
  readonly logins: readonly LoginStatus[];
}

/** An `UpstreamAuth` that is an OAuth client, with the interactive login and what `mcp-chain auth` shows. */
export interface OAuthAuthorizer extends UpstreamAuth {
  /** The store it keeps tokens in. */
  readonly store: TokenStore;
  /**
   * The whole login for `principal` (default: the local one): discovery, a client (the stored
   * one, else pre-registered, CIMD or DCR), PKCE, the redirect listener, the URL (to `onUrl`, and
   * a browser when there is a desktop), the code exchange, the store. For `client_credentials`,
   * the grant. Rejects with an `OAuthClientError` (denied, refused, timed out) or a store error.
   */
  login(principal?: Principal, options?: LoginOptions): Promise<StoredLogin>;
  status(): Promise<AuthorizerStatus>;
  /** Forgets the logins kept for the server: of `principal`, or all. Resolves with how many there were. */
  logout(principal?: Principal): Promise<number>;
}

interface PendingLogin {
  readonly url: string;
  readonly completion: Promise<StoredLogin>;
  readonly abort: AbortController;
}


/**
 * The OAuth client of one remote server: see {@link OAuthAuthorizer}. Nothing is fetched until
 * a token is needed.
 */
export function oauthAuthorizer(options: OAuthAuthorizerOptions): OAuthAuthorizer {
  const { server, serverUrl, oauth, log } = options;
  const store = options.store ?? new TokenStore(oauth.tokenStore ?? defaultTokenStorePath(options.env ?? process.env));
  const now = options.now ?? Date.now;
  const fetch: OAuthFetchOptions = options.fetch ?? {};
  const grant = oauth.grant ?? 'authorization_code';
  const key = canonicalResourceUrl(serverUrl);
  const command = options.loginCommand ?? `mcp-chain auth login ${server}`;
  const loginTimeoutMs = options.loginTimeoutMs ?? LOGIN_TIMEOUT_MS;

  const cache = new Map<string, StoredLogin>();
  const inflight = new Map<string, Promise<void>>();
  const pending = new Map<string, Promise<PendingLogin>>();
  const aborts = new Set<AbortController>();
  /** The last challenge the server sent (its scope and metadata URL steer discovery). */
  let lastChallenge: BearerChallenge | undefined;
  let discovered: { readonly key: string; readonly value: Promise<DiscoveredAuthorization> } | undefined;
  let closed = false;

  /** Discovery, once per challenge's metadata URL (again after a failure). */
  const discover = (challenge: BearerChallenge | undefined): Promise<DiscoveredAuthorization> => {
    const cacheKey = `${challenge?.resourceMetadata ?? ''}`;
    if (discovered !== undefined && (discovered.key === cacheKey || challenge?.resourceMetadata === undefined)) return discovered.value;
    const value = discoverAuthorization(serverUrl, challenge, { fetch, authorizationServer: oauth.authorizationServer, resource: oauth.resource });
    const entry = { key: cacheKey, value };
    discovered = entry;
    value.catch(() => {
      if (discovered === entry) discovered = undefined;
    });
    return value;
  };

  /** The authorization server of a login, for its refresh: its metadata only (no protected resource discovery). */
  const serverOf = async (login: StoredLogin): Promise<DiscoveredAuthorization> => {
    const known = discovered === undefined ? undefined : await discovered.value.catch(() => undefined);
    if (known !== undefined && known.server.issuer === login.issuer) return { ...known, resource: login.resource };
    return { resource: login.resource, server: await fetchAuthorizationServerMetadata(login.issuer, fetch) };
  };

  /**
   * A login is sent to this server only when it was obtained for it: for the configured
   * `resource`, else for the server's URL or (as protected resource metadata may name it) its
   * origin or a path prefix of it.
   */
  const fits = (login: StoredLogin | undefined): login is StoredLogin => {
    if (login === undefined) return false;
    if (oauth.resource !== undefined) return login.resource === oauth.resource;
    try {
      const resource = new URL(login.resource);
      return resource.origin === serverUrl.origin && `${key}/`.startsWith(`${canonicalResourceUrl(resource)}/`);
    } catch {
      return false;
    }
  };

  const current = async (principal: Principal, fresh = false): Promise<StoredLogin | undefined> => {
    const cached = fresh ? undefined : cache.get(principal.key);
    if (cached !== undefined) return cached;
    const stored = grant === 'token_exchange' ? cache.get(principal.key) : await store.getLogin(key, principal.key);
    if (!fits(stored)) {
      cache.delete(principal.key);
      return undefined;
    }
    cache.set(principal.key, stored);
    return stored;
  };

  const keep = async (principal: Principal, login: StoredLogin): Promise<void> => {
    if (grant !== 'token_exchange') await store.setLogin(key, principal.key, login);
    cache.set(principal.key, login);
  };

  const drop = async (principal: Principal): Promise<void> => {
    cache.delete(principal.key);
    if (grant !== 'token_exchange') await store.deleteLogins(key, principal.key);
  };

  const expiresSoon = (tokens: TokenSet): boolean => tokens.expiresAt !== undefined && tokens.expiresAt - now() <= REFRESH_MARGIN_MS;

  /** One operation at a time per principal: later callers share the running one. */
  const single = (principal: Principal, run: () => Promise<void>): Promise<void> => {
    const running = inflight.get(principal.key);
    if (running !== undefined) return running;
    const started = run().finally(() => inflight.delete(principal.key));
    inflight.set(principal.key, started);
    return started;
  };

  /** The client a login was obtained with (its secret from the store or the config, when it is the same client). */
  const clientOfLogin = async (login: StoredLogin): Promise<ClientRegistration> => {
    const configured = oauth.client;
    if (configured !== undefined && configured.clientId === login.clientId) return preregistered(configured);
    const stored = await store.getClient(login.issuer, key);
    if (stored !== undefined && stored.clientId === login.clientId) return registrationOf(stored);
    return { clientId: login.clientId, tokenEndpointAuthMethod: 'none', method: 'dcr' };
  };

  /**
   * Refreshes `principal`'s login. Resolves with whether it did; an `invalid_grant` answer drops
   * the login (resolves false); other failures reject.
   */
  const refresh = async (principal: Principal, login: StoredLogin): Promise<boolean> => {
    const refreshToken = login.tokens.refreshToken;
    if (refreshToken === undefined) return false;
    try {
      const d = await serverOf(login);
      const tokens = await refreshTokens(d, await clientOfLogin(login), { refreshToken }, fetch, now);
      // A refresh answer without a refresh token keeps the one that was used (RFC 6749 section 6).
      await keep(principal, { ...login, tokens: { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken }, obtainedAt: now() });
      log.debug(`${server}: access token refreshed`, { principal: principal.key });
      return true;
    } catch (error) {
      if (error instanceof OAuthClientError && error.code === 'invalid_grant') {
        log.info(`${server}: the login of ${principal.key} is no longer valid (the refresh token was refused); a new login is needed`);
        await drop(principal);
        return false;
      }
      throw error;
    }
  };

  /** The token of `principal`, refreshed first when it expires within a minute. */
  const authorization = async (principal: Principal): Promise<string | undefined> => {
    let login = await current(principal);
    if (login === undefined) return undefined;
    if (expiresSoon(login.tokens)) {
      const running = inflight.get(principal.key);
      // What a refusal is doing for this principal (a refresh, a login started) decides; its failure is its caller's.
      if (running !== undefined) await running.catch(() => undefined);
      else await single(principal, async () => {
        const latest = await current(principal, true);
        if (latest === undefined || !expiresSoon(latest.tokens)) return;
        let renewed = await refresh(principal, latest).catch((error: unknown) => {
          log.warn(`${server}: cannot refresh the access token: ${describe(error)}`);
          return false;
        });
        if (!renewed && grant === 'client_credentials') {
          renewed = await obtainWithoutPerson(principal, lastChallenge).then(
            () => true,
            (error: unknown) => {
              log.warn(`${server}: cannot renew the access token: ${describe(error)}`);
              return false;
            },
          );
        }
        if (!renewed && expired(latest.tokens)) cache.delete(principal.key);
      });
      login = cache.get(principal.key);
      if (login === undefined || expired(login.tokens)) return undefined;
    }
    return `Bearer ${login.tokens.accessToken}`;
  };

  const expired = (tokens: TokenSet): boolean => tokens.expiresAt !== undefined && tokens.expiresAt <= now();

  /** The scope to ask for: the configured one, else the challenge's, else the discovered one; with `extra` (a step-up). */
  const scopeFor = (d: DiscoveredAuthorization, challenge: BearerChallenge | undefined, extra?: string): string | undefined => {
    const base = oauth.scopes !== undefined && oauth.scopes.length > 0 ? oauth.scopes.join(' ') : (challenge?.scope ?? d.scope);
    return union(base, extra);
  };

  /** A token without a person: the client-credentials grant, or a token exchange of the principal's front token. */
  const obtainWithoutPerson = async (principal: Principal, challenge: BearerChallenge | undefined, extraScope?: string): Promise<void> => {
    if (grant === 'client_credentials') {
      const d = await discover(challenge);
      const client = oauth.client === undefined ? undefined : preregistered(oauth.client);
      if (client === undefined) throw new OAuthClientError('registration', `${server}: the client-credentials grant needs a registered client: configure oauth.client`);
      const tokens = await clientCredentials(d, client, { scope: scopeFor(d, challenge, extraScope) }, fetch, now);
      await keep(principal, { tokens, issuer: d.server.issuer, resource: d.resource, clientId: client.clientId, obtainedAt: now() });
      log.debug(`${server}: access token obtained (client credentials)`);
      return;
    }
    const exchange = oauth.tokenExchange;
    if (exchange === undefined) throw new OAuthClientError('unsupported', `${server}: token_exchange needs oauth.tokenExchange`);
    const identity = principal.identity;
    const subjectToken = identity === undefined ? undefined : subjectTokenOf(identity);
    if (identity === undefined || subjectToken === undefined) {
      throw new OAuthClientError('unsupported', `${server}: a token exchange needs the user's token from an authenticating HTTP front (the session of ${principal.key} has none)`);
    }
    const tokenServer = await tokenExchangeServer(exchange.tokenEndpoint, identity.issuer);
    const resource = oauth.resource ?? (await discover(challenge).then((d) => d.resource, () => key));
    const client: ClientRegistration = {
      clientId: exchange.clientId,
      clientSecret: exchange.clientSecret,
      tokenEndpointAuthMethod: exchange.tokenEndpointAuthMethod ?? (exchange.clientSecret === undefined ? 'none' : 'client_secret_basic'),
      method: 'preregistered',
    };
    const scope = union(oauth.scopes?.join(' '), extraScope);
    const tokens = await exchangeToken(
      tokenServer,
      client,
      {
        subjectToken,
        resource,
        ...(exchange.audience === undefined ? {} : { audience: exchange.audience }),
        ...(scope === undefined ? {} : { scope }),
        ...(exchange.requestedTokenType === undefined ? {} : { requestedTokenType: exchange.requestedTokenType }),
      },
      fetch,
      now,
    );
    await keep(principal, { tokens, issuer: tokenServer.issuer, resource, clientId: client.clientId, obtainedAt: now() });
    log.debug(`${server}: access token obtained (token exchange)`, { principal: principal.key });
  };

  const tokenExchangeServer = async (tokenEndpoint: string | undefined, issuer: string | undefined): Promise<AuthorizationServerMetadata> => {
    if (tokenEndpoint !== undefined) return { issuer: new URL(tokenEndpoint).origin, token_endpoint: tokenEndpoint };
    if (issuer === undefined) throw new OAuthClientError('discovery', `${server}: a token exchange needs oauth.tokenExchange.tokenEndpoint (the front's identity has no issuer)`);
    return fetchAuthorizationServerMetadata(issuer, fetch);
  };

  /** The redirect listener for a login, and the client it goes with (registered now when there is none). */
  const clientAndListener = async (
    d: DiscoveredAuthorization,
    state: string,
    scope: string | undefined,
    signal: AbortSignal,
  ): Promise<{ client: ClientRegistration; listener: RedirectListener }> => {
    // A redirect URI of the gateway's HTTP front (a team gateway: the user's browser cannot reach a loopback listener here) waits through the front.
    const listen = async (redirectUri: string): Promise<RedirectListener> =>
      routesRedirect(redirectUri)
        ? expectRedirect({ redirectUri, expectedState: state, timeoutMs: loginTimeoutMs, signal })
        : listenForRedirect({ redirectUri, expectedState: state, timeoutMs: loginTimeoutMs, signal });
    if (oauth.client !== undefined) {
      return { client: preregistered(oauth.client), listener: await listen(oauth.redirectUri ?? DEFAULT_REDIRECT_URI) };
    }
    const stored = await store.getClient(d.server.issuer, key);
    const usable = stored !== undefined && (stored.clientSecretExpiresAt === undefined || stored.clientSecretExpiresAt === 0 || stored.clientSecretExpiresAt > now()) && covers(stored, scope)
      // Registered for another redirect URI than the one configured now: register again.
      && (oauth.redirectUri === undefined || stored.redirectUri === undefined || stored.redirectUri === oauth.redirectUri);
    if (usable) {
      try {
        return { client: registrationOf(stored), listener: await listen(oauth.redirectUri ?? stored.redirectUri ?? DEFAULT_REDIRECT_URI) };
      } catch (error) {
        // Its port is taken: a new registration on another port (a configured redirect URI has no other).
        if (oauth.redirectUri !== undefined || stored.method !== 'dcr') throw error;
        log.debug(`${server}: the registered redirect URI cannot be listened on (${describe(error)}); registering again`);
      }
    }
    const listener = await listen(oauth.redirectUri ?? DEFAULT_REDIRECT_URI);
    // What the resource offers, so that a later step-up can ask for more than this login does.
    const registeredScope = union(d.resourceMetadata?.scopes_supported?.join(' '), scope);
    try {
      const client = await obtainClient(d, {
        clientMetadataUrl: oauth.clientMetadataUrl,
        clientName: oauth.clientName ?? 'mcp-chain',
        redirectUri: listener.redirectUri,
        grant: 'authorization_code',
        scope: registeredScope,
        fetch,
      });
      if (client.method !== 'preregistered') {
        await store.setClient(d.server.issuer, key, { ...client, issuer: d.server.issuer, redirectUri: client.redirectUri ?? listener.redirectUri, registeredAt: now(), ...(client.method === 'dcr' && registeredScope !== undefined ? { scope: registeredScope } : {}) });
        log.debug(`${server}: registered with ${d.server.issuer} (${client.method === 'cimd' ? 'client metadata document' : 'dynamic client registration'})`);
      }
      return { client, listener };
    } catch (error) {
      await listener.close();
      throw error;
    }
  };

  /** Starts a login (or joins the one started for `principal`): resolves once the listener is up, with its URL and the promise of its end. */
  const beginLogin = (principal: Principal, challenge: BearerChallenge | undefined, options: LoginOptions = {}): Promise<PendingLogin> => {
    const existing = pending.get(principal.key);
    if (existing !== undefined) return existing;
    const started = startLogin(principal, challenge, options);
    pending.set(principal.key, started);
    started.then(
      (entry) => entry.completion.then(forget, forget),
      forget,
    );
    function forget(): void {
      if (pending.get(principal.key) === started) pending.delete(principal.key);
    }
    return started;
  };

  const startLogin = async (principal: Principal, challenge: BearerChallenge | undefined, options: LoginOptions): Promise<PendingLogin> => {
    if (closed) throw new Error(`${server}: the OAuth client is closed`);
    const abort = new AbortController();
    aborts.add(abort);
    const onAbort = (): void => abort.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      options.signal?.removeEventListener('abort', onAbort);
      aborts.delete(abort);
    };
    let listener: RedirectListener | undefined;
    try {
      const d = await discover(challenge);
      const scope = options.scope ?? scopeFor(d, challenge, challenge?.error === 'insufficient_scope' ? challenge.scope : undefined);
      const state = randomBytes(24).toString('base64url');
      const made = await clientAndListener(d, state, scope, abort.signal);
      listener = made.listener;
      const { client } = made;
      const { verifier, challenge: codeChallenge } = createPkce();
      const redirectUri = listener.redirectUri;
      const url = authorizationUrl(d, client, { redirectUri, challenge: codeChallenge, state, ...(scope === undefined ? {} : { scope }) }).href;
      const callback = listener.callback;
      const close = listener.close.bind(listener);
      const completion = (async (): Promise<StoredLogin> => {
        try {
          const params = await callback;
          // Validated there: state, iss, an error (access_denied: 'denied').
          const tokens = await exchangeCode(d, client, { verifier, redirectUri, callbackParams: params, state }, fetch, now);
          const login: StoredLogin = { tokens, issuer: d.server.issuer, resource: d.resource, clientId: client.clientId, obtainedAt: now() };
          await keep(principal, login);
          log.info(`${server}: logged in${principal.key === LOCAL_PRINCIPAL.key ? '' : ` for ${principal.key}`}`);
          return login;
        } catch (error) {
          // A registered client the server no longer takes (or not for these scopes): registered anew next time.
          if (client.method === 'dcr' && error instanceof OAuthClientError && ['invalid_client', 'unauthorized_client', 'invalid_scope'].includes(error.oauthError ?? '')) {
            await store.deleteClient(d.server.issuer, key).catch(() => false);
          }
          throw error;
        } finally {
          done();
          await close();
        }
      })();
      completion.catch((error: unknown) => log.debug(`${server}: the login ended without tokens: ${describe(error)}`));
      if (oauth.openBrowser !== false && principal.key === LOCAL_PRINCIPAL.key) openBrowser(url, log);
      return { url, completion, abort };
    } catch (error) {
      done();
      await listener?.close();
      throw error;
    }
  };

  /** Logins whose URL was logged. */
  const announced = new WeakSet<PendingLogin>();

  const loginRequired = async (principal: Principal, challenge: BearerChallenge | undefined, reason: string | undefined): Promise<never> => {
    const started = await beginLogin(principal, challenge);
    const completion = started.completion.then(() => undefined);
    completion.catch(() => undefined);
    // Once per login: callers that join a login already announced (a gateway member retried every second) say nothing.
    if (!announced.has(started)) {
      announced.add(started);
      log.info(`${server} needs a login${principal.key === LOCAL_PRINCIPAL.key ? '' : ` for ${principal.key}`}: open ${started.url} (or run \`${command}\`)`);
    }
    throw new LoginRequiredError(server, { url: started.url, command, completion, reason });
  };

  const refused = async (principal: Principal, refusal: UpstreamRefusal): Promise<void> => {
    const challenge = parseBearerChallenge(refusal.challenge);
    if (challenge !== undefined) lastChallenge = challenge;
    const stepUp = refusal.status === 403 && challenge?.error === 'insufficient_scope';
    // After whatever runs for this principal (a refresh, another refusal's work), this refusal is
    // looked at again: most often that work replaced the token refused, and there is nothing to do.
    for (let running = inflight.get(principal.key); running !== undefined; running = inflight.get(principal.key)) {
      await running.catch(() => undefined);
    }
    await single(principal, async () => {
      const login = await current(principal, true);
      // Replaced meanwhile (a concurrent request, another process): worth sending again.
      if (login !== undefined && refusal.sent !== `Bearer ${login.tokens.accessToken}` && !stepUp) return;
      if (stepUp) {
        const extra = union(login?.tokens.scope, challenge.scope);
        if (grant === 'authorization_code') {
          await loginRequired(principal, { ...challenge, ...(extra === undefined ? {} : { scope: extra }) }, 'more scopes are needed');
        }
        await obtainWithoutPerson(principal, challenge, extra);
        return;
      }
      if (login !== undefined && grant !== 'token_exchange' && (await refresh(principal, login))) return;
      if (login !== undefined) await drop(principal);
      if (grant === 'authorization_code') await loginRequired(principal, challenge, login === undefined ? undefined : 'the token was refused');
      await obtainWithoutPerson(principal, challenge);
    });
  };

  /**
   * The server's challenge, asked for with a request without a token (a `ping`, which opens no
   * session): its `resource_metadata` and `scope` steer discovery (the well-known URLs are the
   * fallback). Undefined when the server does not answer 401.
   */
  const probe = async (): Promise<BearerChallenge | undefined> => {
    try {
      const answer = await fetchBounded(
        serverUrl,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 'mcp-chain-auth-probe', method: 'ping' }),
          ...(fetch.signal === undefined ? {} : { signal: fetch.signal }),
        },
        oauthFetchLimits(fetch),
      );
      return answer.status === 401 || answer.status === 403 ? parseBearerChallenge(answer.headers['www-authenticate']) : undefined;
    } catch (error) {
      log.debug(`${server}: no challenge from the server (${describe(error)}); discovery from the well-known URLs`);
      return undefined;
    }
  };

  const login = async (principal: Principal = grant === 'client_credentials' ? MACHINE_PRINCIPAL : LOCAL_PRINCIPAL, options: LoginOptions = {}): Promise<StoredLogin> => {
    if (grant !== 'authorization_code') {
      await obtainWithoutPerson(principal, lastChallenge, options.scope);
      const got = cache.get(principal.key);
      if (got === undefined) throw new Error(`${server}: no token was obtained`);
      return got;
    }
    lastChallenge ??= await probe();
    const started = await beginLogin(principal, lastChallenge, options);
    options.onUrl?.(started.url);
    return started.completion;
  };

  const status = async (): Promise<AuthorizerStatus> => {
    const logins = (await store.listLogins()).filter((entry) => entry.server === key);
    return {
      server,
      url: key,
      tokenStore: store.file,
      logins: logins.map(({ principal, login: kept }) => ({
        principal,
        issuer: kept.issuer,
        resource: kept.resource,
        clientId: kept.clientId,
        scope: kept.tokens.scope,
        expiresAt: kept.tokens.expiresAt,
        expired: expired(kept.tokens),
        refreshable: kept.tokens.refreshToken !== undefined,
        obtainedAt: kept.obtainedAt,
      })),
    };
  };

  const logout = async (principal?: Principal): Promise<number> => {
    if (principal === undefined) cache.clear();
    else cache.delete(principal.key);
    return store.deleteLogins(key, principal?.key);
  };

  const close = async (): Promise<void> => {
    closed = true;
    const running = [...pending.values()];
    for (const abort of aborts) abort.abort();
    await Promise.allSettled(running.map(async (entry) => (await entry).completion));
  };

  return { store, authorization, refused, login, status, logout, close };
}

function preregistered(client: NonNullable<UpstreamOAuthOptions['client']>): ClientRegistration {
  return {
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod ?? (client.clientSecret === undefined ? 'none' : 'client_secret_basic'),
    method: 'preregistered',
  };
}

function registrationOf(stored: StoredClient): ClientRegistration {
  return {
    clientId: stored.clientId,
    clientSecret: stored.clientSecret,
    tokenEndpointAuthMethod: stored.tokenEndpointAuthMethod,
    redirectUri: stored.redirectUri,
    method: stored.method,
    clientSecretExpiresAt: stored.clientSecretExpiresAt,
  };
}

/**
 * Whether a stored client may ask for `scope`: an authorization server may hold a dynamically
 * registered client to the scope it registered with (oidc-provider does), so a login that needs
 * more (a step-up) registers again rather than being granted less than it asked for.
 */
function covers(client: StoredClient, scope: string | undefined): boolean {
  if (client.method !== 'dcr' || client.scope === undefined || scope === undefined) return true;
  const registered = new Set(client.scope.split(' '));
  return scope.split(' ').every((one) => one === '' || registered.has(one));
}

/** The scopes of both, space-separated, without repeats (undefined when neither has one). */
function union(a: string | undefined, b: string | undefined): string | undefined {
  const all = [...new Set([...(a ?? '').split(' '), ...(b ?? '').split(' ')].filter((scope) => scope !== ''))];
  return all.length === 0 ? undefined : all.join(' ');
}

/** An error's message for a log line (the modules it comes from never put secrets in messages). */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

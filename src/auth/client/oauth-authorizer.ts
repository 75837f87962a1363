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

interface PendingLogin {
  readonly url: string;
  readonly completion: Promise<StoredLogin>;
  readonly abort: AbortController;
}

/** What a login needs once the person is sent to the authorization server: the code exchange's inputs. */
interface LoginFlow {
  readonly d: DiscoveredAuthorization;
  readonly client: ClientRegistration;
  readonly listener: RedirectListener;
  readonly verifier: string;
  readonly state: string;
}

/**
 * The OAuth client of one remote server: see {@link OAuthAuthorizer}. Nothing is fetched until
 * a token is needed.
 */
export function oauthAuthorizer(options: OAuthAuthorizerOptions): OAuthAuthorizer {
  return new OAuthAuthorizer(options);
}

/**
 * An `UpstreamAuth` that is an OAuth client, with the interactive login and what `mcp-chain auth`
 * shows. Per principal: the login in memory (`#cache`, read from the store on a miss), one
 * refresh or renewal at a time (`#inflight`), one login waiting for its person (`#pending`).
 */
export class OAuthAuthorizer implements UpstreamAuth {
  /** The store it keeps tokens in. */
  readonly store: TokenStore;
  readonly #server: string;
  readonly #serverUrl: URL;
  readonly #oauth: UpstreamOAuthOptions;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #fetch: OAuthFetchOptions;
  readonly #grant: NonNullable<UpstreamOAuthOptions['grant']>;
  /** The server's canonical URL: the store's key. */
  readonly #key: string;
  /** The command that logs in from a terminal, in messages. */
  readonly #command: string;
  readonly #loginTimeoutMs: number;

  readonly #cache = new Map<string, StoredLogin>();
  readonly #inflight = new Map<string, Promise<void>>();
  readonly #pending = new Map<string, Promise<PendingLogin>>();
  readonly #aborts = new Set<AbortController>();
  /** Logins whose URL was logged. */
  readonly #announced = new WeakSet<PendingLogin>();
  /** The last challenge the server sent (its scope and metadata URL steer discovery). */
  #lastChallenge: BearerChallenge | undefined;
  #discovered: { readonly key: string; readonly value: Promise<DiscoveredAuthorization> } | undefined;
  #closed = false;

  constructor(options: OAuthAuthorizerOptions) {
    this.#server = options.server;
    this.#serverUrl = options.serverUrl;
    this.#oauth = options.oauth;
    this.#log = options.log;
    this.store = options.store ?? new TokenStore(options.oauth.tokenStore ?? defaultTokenStorePath(options.env ?? process.env));
    this.#now = options.now ?? Date.now;
    this.#fetch = options.fetch ?? {};
    this.#grant = options.oauth.grant ?? 'authorization_code';
    this.#key = canonicalResourceUrl(options.serverUrl);
    this.#command = options.loginCommand ?? `mcp-chain auth login ${options.server}`;
    this.#loginTimeoutMs = options.loginTimeoutMs ?? LOGIN_TIMEOUT_MS;
  }

  /** The token of `principal`, refreshed first when it expires within a minute. */
  async authorization(principal: Principal): Promise<string | undefined> {
    let login = await this.#current(principal);
    if (login === undefined) return undefined;
    if (this.#expiresSoon(login.tokens)) {
      const running = this.#inflight.get(principal.key);
      // What a refusal is doing for this principal (a refresh, a login started) decides; its failure is its caller's.
      if (running !== undefined) await running.catch(() => undefined);
      else await this.#single(principal, () => this.#renew(principal));
      login = this.#cache.get(principal.key);
      if (login === undefined || this.#expired(login.tokens)) return undefined;
    }
    return `Bearer ${login.tokens.accessToken}`;
  }

  async refused(principal: Principal, refusal: UpstreamRefusal): Promise<void> {
    const challenge = parseBearerChallenge(refusal.challenge);
    if (challenge !== undefined) this.#lastChallenge = challenge;
    const stepUp = refusal.status === 403 && challenge?.error === 'insufficient_scope' ? challenge : undefined;
    // After whatever runs for this principal (a refresh, another refusal's work), this refusal is
    // looked at again: most often that work replaced the token refused, and there is nothing to do.
    for (let running = this.#inflight.get(principal.key); running !== undefined; running = this.#inflight.get(principal.key)) {
      await running.catch(() => undefined);
    }
    await this.#single(principal, async () => {
      const login = await this.#current(principal, true);
      if (stepUp !== undefined) return this.#stepUp(principal, login, stepUp);
      // Replaced meanwhile (a concurrent request, another process): worth sending again.
      if (login !== undefined && refusal.sent !== `Bearer ${login.tokens.accessToken}`) return;
      await this.#replace(principal, login, challenge);
    });
  }

  /**
   * The whole login for `principal` (default: the local one): discovery, a client (the stored
   * one, else pre-registered, CIMD or DCR), PKCE, the redirect listener, the URL (to `onUrl`, and
   * a browser when there is a desktop), the code exchange, the store. For `client_credentials`,
   * the grant. Rejects with an `OAuthClientError` (denied, refused, timed out) or a store error.
   */
  async login(principal?: Principal, options: LoginOptions = {}): Promise<StoredLogin> {
    const who = principal ?? (this.#grant === 'client_credentials' ? MACHINE_PRINCIPAL : LOCAL_PRINCIPAL);
    if (this.#grant !== 'authorization_code') {
      await this.#obtainWithoutPerson(who, this.#lastChallenge, options.scope);
      const got = this.#cache.get(who.key);
      if (got === undefined) throw new Error(`${this.#server}: no token was obtained`);
      return got;
    }
    this.#lastChallenge ??= await this.#probe();
    const started = await this.#beginLogin(who, this.#lastChallenge, options);
    options.onUrl?.(started.url);
    return started.completion;
  }

  async status(): Promise<AuthorizerStatus> {
    const logins = (await this.store.listLogins()).filter((entry) => entry.server === this.#key);
    return {
      server: this.#server,
      url: this.#key,
      tokenStore: this.store.file,
      logins: logins.map(({ principal, login: kept }) => ({
        principal,
        issuer: kept.issuer,
        resource: kept.resource,
        clientId: kept.clientId,
        scope: kept.tokens.scope,
        expiresAt: kept.tokens.expiresAt,
        expired: this.#expired(kept.tokens),
        refreshable: kept.tokens.refreshToken !== undefined,
        obtainedAt: kept.obtainedAt,
      })),
    };
  }

  /** Forgets the logins kept for the server: of `principal`, or all. Resolves with how many there were. */
  async logout(principal?: Principal): Promise<number> {
    if (principal === undefined) this.#cache.clear();
    else this.#cache.delete(principal.key);
    return this.store.deleteLogins(this.#key, principal?.key);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const running = [...this.#pending.values()];
    for (const abort of this.#aborts) abort.abort();
    await Promise.allSettled(running.map(async (entry) => (await entry).completion));
  }

  // ---- the logins kept: memory, then the store ----

  async #current(principal: Principal, fresh = false): Promise<StoredLogin | undefined> {
    const cached = fresh ? undefined : this.#cache.get(principal.key);
    if (cached !== undefined) return cached;
    const stored = this.#grant === 'token_exchange' ? this.#cache.get(principal.key) : await this.store.getLogin(this.#key, principal.key);
    if (!this.#fits(stored)) {
      this.#cache.delete(principal.key);
      return undefined;
    }
    this.#cache.set(principal.key, stored);
    return stored;
  }

  /**
   * A login is sent to this server only when it was obtained for it: for the configured
   * `resource`, else for the server's URL or (as protected resource metadata may name it) its
   * origin or a path prefix of it.
   */
  #fits(login: StoredLogin | undefined): login is StoredLogin {
    if (login === undefined) return false;
    if (this.#oauth.resource !== undefined) return login.resource === this.#oauth.resource;
    try {
      const resource = new URL(login.resource);
      return resource.origin === this.#serverUrl.origin && `${this.#key}/`.startsWith(`${canonicalResourceUrl(resource)}/`);
    } catch {
      return false;
    }
  }

  async #keep(principal: Principal, login: StoredLogin): Promise<void> {
    if (this.#grant !== 'token_exchange') await this.store.setLogin(this.#key, principal.key, login);
    this.#cache.set(principal.key, login);
  }

  async #drop(principal: Principal): Promise<void> {
    this.#cache.delete(principal.key);
    if (this.#grant !== 'token_exchange') await this.store.deleteLogins(this.#key, principal.key);
  }

  #expiresSoon(tokens: TokenSet): boolean {
    return tokens.expiresAt !== undefined && tokens.expiresAt - this.#now() <= REFRESH_MARGIN_MS;
  }

  #expired(tokens: TokenSet): boolean {
    return tokens.expiresAt !== undefined && tokens.expiresAt <= this.#now();
  }

  /** One operation at a time per principal: later callers share the running one. */
  #single(principal: Principal, run: () => Promise<void>): Promise<void> {
    const running = this.#inflight.get(principal.key);
    if (running !== undefined) return running;
    const started = run().finally(() => this.#inflight.delete(principal.key));
    this.#inflight.set(principal.key, started);
    return started;
  }

  // ---- a token without a person: refresh, client credentials, token exchange ----

  /** A login about to expire: refreshed, else (client credentials) obtained anew, else forgotten once expired. Never rejects. */
  async #renew(principal: Principal): Promise<void> {
    const latest = await this.#current(principal, true);
    if (latest === undefined || !this.#expiresSoon(latest.tokens)) return;
    let renewed = await this.#refresh(principal, latest).catch((error: unknown) => {
      this.#log.warn(`${this.#server}: cannot refresh the access token: ${describe(error)}`);
      return false;
    });
    if (!renewed && this.#grant === 'client_credentials') {
      renewed = await this.#obtainWithoutPerson(principal, this.#lastChallenge).then(
        () => true,
        (error: unknown) => {
          this.#log.warn(`${this.#server}: cannot renew the access token: ${describe(error)}`);
          return false;
        },
      );
    }
    if (!renewed && this.#expired(latest.tokens)) this.#cache.delete(principal.key);
  }

  /**
   * Refreshes `principal`'s login. Resolves with whether it did; an `invalid_grant` answer drops
   * the login (resolves false); other failures reject.
   */
  async #refresh(principal: Principal, login: StoredLogin): Promise<boolean> {
    const refreshToken = login.tokens.refreshToken;
    if (refreshToken === undefined) return false;
    try {
      const d = await this.#serverOf(login);
      const tokens = await refreshTokens(d, await this.#clientOfLogin(login), { refreshToken }, this.#fetch, this.#now);
      // A refresh answer without a refresh token keeps the one that was used (RFC 6749 section 6).
      await this.#keep(principal, { ...login, tokens: { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken }, obtainedAt: this.#now() });
      this.#log.debug(`${this.#server}: access token refreshed`, { principal: principal.key });
      return true;
    } catch (error) {
      if (error instanceof OAuthClientError && error.code === 'invalid_grant') {
        this.#log.info(`${this.#server}: the login of ${principal.key} is no longer valid (the refresh token was refused); a new login is needed`);
        await this.#drop(principal);
        return false;
      }
      throw error;
    }
  }

  /** The authorization server of a login, for its refresh: its metadata only (no protected resource discovery). */
  async #serverOf(login: StoredLogin): Promise<DiscoveredAuthorization> {
    const known = this.#discovered === undefined ? undefined : await this.#discovered.value.catch(() => undefined);
    if (known !== undefined && known.server.issuer === login.issuer) return { ...known, resource: login.resource };
    return { resource: login.resource, server: await fetchAuthorizationServerMetadata(login.issuer, this.#fetch) };
  }

  /** The client a login was obtained with (its secret from the store or the config, when it is the same client). */
  async #clientOfLogin(login: StoredLogin): Promise<ClientRegistration> {
    const configured = this.#oauth.client;
    if (configured !== undefined && configured.clientId === login.clientId) return preregistered(configured);
    const stored = await this.store.getClient(login.issuer, this.#key);
    if (stored !== undefined && stored.clientId === login.clientId) return registrationOf(stored);
    return { clientId: login.clientId, tokenEndpointAuthMethod: 'none', method: 'dcr' };
  }

  /** A token without a person: the client-credentials grant, or a token exchange of the principal's front token. */
  async #obtainWithoutPerson(principal: Principal, challenge: BearerChallenge | undefined, extraScope?: string): Promise<void> {
    if (this.#grant === 'client_credentials') await this.#clientCredentials(principal, challenge, extraScope);
    else await this.#exchangeToken(principal, challenge, extraScope);
  }

  async #clientCredentials(principal: Principal, challenge: BearerChallenge | undefined, extraScope: string | undefined): Promise<void> {
    const d = await this.#discover(challenge);
    const client = this.#oauth.client === undefined ? undefined : preregistered(this.#oauth.client);
    if (client === undefined) throw new OAuthClientError('registration', `${this.#server}: the client-credentials grant needs a registered client: configure oauth.client`);
    const tokens = await clientCredentials(d, client, { scope: this.#scopeFor(d, challenge, extraScope) }, this.#fetch, this.#now);
    await this.#keep(principal, { tokens, issuer: d.server.issuer, resource: d.resource, clientId: client.clientId, obtainedAt: this.#now() });
    this.#log.debug(`${this.#server}: access token obtained (client credentials)`);
  }

  /** The token exchange (RFC 8693) of the token the principal's session came in with on the front. */
  async #exchangeToken(principal: Principal, challenge: BearerChallenge | undefined, extraScope: string | undefined): Promise<void> {
    const exchange = this.#oauth.tokenExchange;
    if (exchange === undefined) throw new OAuthClientError('unsupported', `${this.#server}: token_exchange needs oauth.tokenExchange`);
    const identity = principal.identity;
    const subjectToken = identity === undefined ? undefined : subjectTokenOf(identity);
    if (identity === undefined || subjectToken === undefined) {
      throw new OAuthClientError('unsupported', `${this.#server}: a token exchange needs the user's token from an authenticating HTTP front (the session of ${principal.key} has none)`);
    }
    const tokenServer = await this.#tokenExchangeServer(exchange.tokenEndpoint, identity.issuer);
    const resource = this.#oauth.resource ?? (await this.#discover(challenge).then((d) => d.resource, () => this.#key));
    const client: ClientRegistration = {
      clientId: exchange.clientId,
      clientSecret: exchange.clientSecret,
      tokenEndpointAuthMethod: exchange.tokenEndpointAuthMethod ?? (exchange.clientSecret === undefined ? 'none' : 'client_secret_basic'),
      method: 'preregistered',
    };
    const scope = union(this.#oauth.scopes?.join(' '), extraScope);
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
      this.#fetch,
      this.#now,
    );
    await this.#keep(principal, { tokens, issuer: tokenServer.issuer, resource, clientId: client.clientId, obtainedAt: this.#now() });
    this.#log.debug(`${this.#server}: access token obtained (token exchange)`, { principal: principal.key });
  }

  async #tokenExchangeServer(tokenEndpoint: string | undefined, issuer: string | undefined): Promise<AuthorizationServerMetadata> {
    if (tokenEndpoint !== undefined) return { issuer: new URL(tokenEndpoint).origin, token_endpoint: tokenEndpoint };
    if (issuer === undefined) throw new OAuthClientError('discovery', `${this.#server}: a token exchange needs oauth.tokenExchange.tokenEndpoint (the front's identity has no issuer)`);
    return fetchAuthorizationServerMetadata(issuer, this.#fetch);
  }

  // ---- a refused token ----

  /** A 403 `insufficient_scope`: a login (or a grant) for the scopes held and the ones the challenge asks for. */
  async #stepUp(principal: Principal, login: StoredLogin | undefined, challenge: BearerChallenge): Promise<void> {
    const extra = union(login?.tokens.scope, challenge.scope);
    if (this.#grant === 'authorization_code') {
      await this.#loginRequired(principal, { ...challenge, ...(extra === undefined ? {} : { scope: extra }) }, 'more scopes are needed');
    }
    await this.#obtainWithoutPerson(principal, challenge, extra);
  }

  /** The token sent was refused: a refresh, else the login dropped and a new one (or a grant). */
  async #replace(principal: Principal, login: StoredLogin | undefined, challenge: BearerChallenge | undefined): Promise<void> {
    if (login !== undefined && this.#grant !== 'token_exchange' && (await this.#refresh(principal, login))) return;
    if (login !== undefined) await this.#drop(principal);
    if (this.#grant === 'authorization_code') await this.#loginRequired(principal, challenge, login === undefined ? undefined : 'the token was refused');
    await this.#obtainWithoutPerson(principal, challenge);
  }

  /** Starts (or joins) the login of `principal` and rejects with the `LoginRequiredError` that carries its URL. */
  async #loginRequired(principal: Principal, challenge: BearerChallenge | undefined, reason: string | undefined): Promise<never> {
    const started = await this.#beginLogin(principal, challenge);
    const completion = started.completion.then(() => undefined);
    completion.catch(() => undefined);
    // Once per login: callers that join a login already announced (a gateway member retried every second) say nothing.
    if (!this.#announced.has(started)) {
      this.#announced.add(started);
      this.#log.info(`${this.#server} needs a login${forWhom(principal)}: open ${started.url} (or run \`${this.#command}\`)`);
    }
    throw new LoginRequiredError(this.#server, { url: started.url, command: this.#command, completion, reason });
  }

  // ---- discovery ----

  /** Discovery, once per challenge's metadata URL (again after a failure). */
  #discover(challenge: BearerChallenge | undefined): Promise<DiscoveredAuthorization> {
    const cacheKey = `${challenge?.resourceMetadata ?? ''}`;
    const discovered = this.#discovered;
    if (discovered !== undefined && (discovered.key === cacheKey || challenge?.resourceMetadata === undefined)) return discovered.value;
    const value = discoverAuthorization(this.#serverUrl, challenge, { fetch: this.#fetch, authorizationServer: this.#oauth.authorizationServer, resource: this.#oauth.resource });
    const entry = { key: cacheKey, value };
    this.#discovered = entry;
    value.catch(() => {
      if (this.#discovered === entry) this.#discovered = undefined;
    });
    return value;
  }

  /**
   * The server's challenge, asked for with a request without a token (a `ping`, which opens no
   * session): its `resource_metadata` and `scope` steer discovery (the well-known URLs are the
   * fallback). Undefined when the server does not answer 401.
   */
  async #probe(): Promise<BearerChallenge | undefined> {
    const fetch = this.#fetch;
    try {
      const answer = await fetchBounded(
        this.#serverUrl,
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
      this.#log.debug(`${this.#server}: no challenge from the server (${describe(error)}); discovery from the well-known URLs`);
      return undefined;
    }
  }

  /** The scope to ask for: the configured one, else the challenge's, else the discovered one; with `extra` (a step-up). */
  #scopeFor(d: DiscoveredAuthorization, challenge: BearerChallenge | undefined, extra?: string): string | undefined {
    const scopes = this.#oauth.scopes;
    const base = scopes !== undefined && scopes.length > 0 ? scopes.join(' ') : (challenge?.scope ?? d.scope);
    return union(base, extra);
  }

  // ---- a login with a person: the redirect listener, the browser, the code exchange ----

  /** Starts a login (or joins the one started for `principal`): resolves once the listener is up, with its URL and the promise of its end. */
  #beginLogin(principal: Principal, challenge: BearerChallenge | undefined, options: LoginOptions = {}): Promise<PendingLogin> {
    const existing = this.#pending.get(principal.key);
    if (existing !== undefined) return existing;
    const started = this.#startLogin(principal, challenge, options);
    this.#pending.set(principal.key, started);
    const forget = (): void => {
      if (this.#pending.get(principal.key) === started) this.#pending.delete(principal.key);
    };
    started.then(
      (entry) => entry.completion.then(forget, forget),
      forget,
    );
    return started;
  }

  async #startLogin(principal: Principal, challenge: BearerChallenge | undefined, options: LoginOptions): Promise<PendingLogin> {
    if (this.#closed) throw new Error(`${this.#server}: the OAuth client is closed`);
    const abort = new AbortController();
    this.#aborts.add(abort);
    const onAbort = (): void => abort.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      options.signal?.removeEventListener('abort', onAbort);
      this.#aborts.delete(abort);
    };
    let listener: RedirectListener | undefined;
    try {
      const d = await this.#discover(challenge);
      const scope = options.scope ?? this.#scopeFor(d, challenge, challenge?.error === 'insufficient_scope' ? challenge.scope : undefined);
      const state = randomBytes(24).toString('base64url');
      const made = await this.#clientAndListener(d, state, scope, abort.signal);
      listener = made.listener;
      const { client } = made;
      const { verifier, challenge: codeChallenge } = createPkce();
      const url = authorizationUrl(d, client, { redirectUri: listener.redirectUri, challenge: codeChallenge, state, ...(scope === undefined ? {} : { scope }) }).href;
      const completion = this.#completeLogin(principal, { d, client, listener, verifier, state }, done);
      completion.catch((error: unknown) => this.#log.debug(`${this.#server}: the login ended without tokens: ${describe(error)}`));
      if (this.#oauth.openBrowser !== false && principal.key === LOCAL_PRINCIPAL.key) openBrowser(url, this.#log);
      return { url, completion, abort };
    } catch (error) {
      done();
      await listener?.close();
      throw error;
    }
  }

  /** The rest of a login once its URL is out: the redirect, the code exchange, the store; `done` and the listener closed at the end. */
  async #completeLogin(principal: Principal, flow: LoginFlow, done: () => void): Promise<StoredLogin> {
    const { d, client, listener, verifier, state } = flow;
    const redirectUri = listener.redirectUri;
    try {
      const params = await listener.callback;
      // Validated there: state, iss, an error (access_denied: 'denied').
      const tokens = await exchangeCode(d, client, { verifier, redirectUri, callbackParams: params, state }, this.#fetch, this.#now);
      const login: StoredLogin = { tokens, issuer: d.server.issuer, resource: d.resource, clientId: client.clientId, obtainedAt: this.#now() };
      await this.#keep(principal, login);
      this.#log.info(`${this.#server}: logged in${forWhom(principal)}`);
      return login;
    } catch (error) {
      // A registered client the server no longer takes (or not for these scopes): registered anew next time.
      if (client.method === 'dcr' && error instanceof OAuthClientError && ['invalid_client', 'unauthorized_client', 'invalid_scope'].includes(error.oauthError ?? '')) {
        await this.store.deleteClient(d.server.issuer, this.#key).catch(() => false);
      }
      throw error;
    } finally {
      done();
      await listener.close();
    }
  }

  /** The redirect listener for a login, and the client it goes with (registered now when there is none). */
  async #clientAndListener(
    d: DiscoveredAuthorization,
    state: string,
    scope: string | undefined,
    signal: AbortSignal,
  ): Promise<{ client: ClientRegistration; listener: RedirectListener }> {
    const configured = this.#oauth.redirectUri;
    if (this.#oauth.client !== undefined) {
      return { client: preregistered(this.#oauth.client), listener: await this.#listen(configured ?? DEFAULT_REDIRECT_URI, state, signal) };
    }
    const stored = await this.store.getClient(d.server.issuer, this.#key);
    if (stored !== undefined && this.#usable(stored, scope)) {
      try {
        return { client: registrationOf(stored), listener: await this.#listen(configured ?? stored.redirectUri ?? DEFAULT_REDIRECT_URI, state, signal) };
      } catch (error) {
        // Its port is taken: a new registration on another port (a configured redirect URI has no other).
        if (configured !== undefined || stored.method !== 'dcr') throw error;
        this.#log.debug(`${this.#server}: the registered redirect URI cannot be listened on (${describe(error)}); registering again`);
      }
    }
    const listener = await this.#listen(configured ?? DEFAULT_REDIRECT_URI, state, signal);
    try {
      return { client: await this.#register(d, scope, listener), listener };
    } catch (error) {
      await listener.close();
      throw error;
    }
  }

  /** Whether a stored client may serve this login: its secret unexpired, its scope covering, its redirect URI the configured one. */
  #usable(stored: StoredClient, scope: string | undefined): boolean {
    const configured = this.#oauth.redirectUri;
    return (stored.clientSecretExpiresAt === undefined || stored.clientSecretExpiresAt === 0 || stored.clientSecretExpiresAt > this.#now()) && covers(stored, scope)
      // Registered for another redirect URI than the one configured now: register again.
      && (configured === undefined || stored.redirectUri === undefined || stored.redirectUri === configured);
  }

  /** A redirect URI of the gateway's HTTP front (a team gateway: the user's browser cannot reach a loopback listener here) waits through the front. */
  async #listen(redirectUri: string, state: string, signal: AbortSignal): Promise<RedirectListener> {
    const options = { redirectUri, expectedState: state, timeoutMs: this.#loginTimeoutMs, signal };
    return routesRedirect(redirectUri) ? expectRedirect(options) : listenForRedirect(options);
  }

  /** A new client (CIMD or DCR) for `listener`'s redirect URI, kept in the store. */
  async #register(d: DiscoveredAuthorization, scope: string | undefined, listener: RedirectListener): Promise<ClientRegistration> {
    // What the resource offers, so that a later step-up can ask for more than this login does.
    const registeredScope = union(d.resourceMetadata?.scopes_supported?.join(' '), scope);
    const client = await obtainClient(d, {
      clientMetadataUrl: this.#oauth.clientMetadataUrl,
      clientName: this.#oauth.clientName ?? 'mcp-chain',
      redirectUri: listener.redirectUri,
      grant: 'authorization_code',
      scope: registeredScope,
      fetch: this.#fetch,
    });
    if (client.method !== 'preregistered') {
      await this.store.setClient(d.server.issuer, this.#key, { ...client, issuer: d.server.issuer, redirectUri: client.redirectUri ?? listener.redirectUri, registeredAt: this.#now(), ...(client.method === 'dcr' && registeredScope !== undefined ? { scope: registeredScope } : {}) });
      this.#log.debug(`${this.#server}: registered with ${d.server.issuer} (${client.method === 'cimd' ? 'client metadata document' : 'dynamic client registration'})`);
    }
    return client;
  }
}

/** " for <principal>" in a log line, nothing for the local one. */
function forWhom(principal: Principal): string {
  return principal.key === LOCAL_PRINCIPAL.key ? '' : ` for ${principal.key}`;
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

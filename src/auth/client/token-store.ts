/**
 * @module
 * The file where the gateway keeps what it obtained as an OAuth client of remote servers: the
 * tokens of each login, per server and per principal, and the clients it registered, per
 * authorization server (issuer) and server. Secrets: the file is 0600 in a directory made 0700,
 * shared safely between processes (`LockedJsonFile`: lock, write by rename, re-read when another
 * process changed it); a corrupt file is an error naming the file, never overwritten. Nothing
 * here logs, and no error message holds a value from the file.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CorruptContentError, LockedJsonFile } from '../../fs/locked-json-file.js';
import type { TokenSet } from './token-set.js';

/** The tokens of one login, and where they came from. */
export interface StoredLogin {
  readonly tokens: TokenSet;
  /** The authorization server that issued them. */
  readonly issuer: string;
  /** The resource indicator they were obtained for (RFC 8707): they are sent to that server only. */
  readonly resource: string;
  /** The client that obtained them (a refresh uses the same). */
  readonly clientId: string;
  /** When they were obtained (ms since the epoch). */
  readonly obtainedAt: number;
}

/** A client registered with an authorization server (dynamically, or a metadata document URL), kept for the next logins. */
export interface StoredClient {
  readonly issuer: string;
  readonly clientId: string;
  /** Secret: never logged. */
  readonly clientSecret?: string | undefined;
  readonly tokenEndpointAuthMethod: 'none' | 'client_secret_basic' | 'client_secret_post';
  /** The redirect URI registered with it (a loopback URL with its port). */
  readonly redirectUri?: string | undefined;
  readonly method: 'preregistered' | 'cimd' | 'dcr';
  /** When it was registered (ms since the epoch). */
  readonly registeredAt: number;
  /** When its secret expires (ms since the epoch); absent or 0: never. */
  readonly clientSecretExpiresAt?: number | undefined;
  /** The scope it was registered for (space-separated), when registration named one: a login needing more registers again. */
  readonly scope?: string | undefined;
}

/** The file's content: `logins[server][principal]`, `clients[issuer][server]`. */
export interface TokenFile {
  version: 1;
  logins: Record<string, Record<string, StoredLogin>>;
  clients: Record<string, Record<string, StoredClient>>;
}

/** The token file is unreadable, corrupt, or its lock could not be taken. */
export class TokenStoreError extends Error {
  override readonly name = 'TokenStoreError';
}

/** Options of a `TokenStore`: how it waits for another process's lock. */
export interface TokenStoreOptions {
  /** How long to wait for another process's lock before failing (ms, default 10 000). */
  lockTimeoutMs?: number | undefined;
  /** A lock file older than this (ms, default 30 000), or whose process is gone, is taken over. */
  staleLockMs?: number | undefined;
}

/**
 * `$MCP_CHAIN_TOKEN_STORE`, else `$XDG_CONFIG_HOME/mcp-chain/tokens.json`, else
 * `~/.config/mcp-chain/tokens.json`.
 */
export function defaultTokenStorePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCP_CHAIN_TOKEN_STORE !== undefined && env.MCP_CHAIN_TOKEN_STORE !== '') return env.MCP_CHAIN_TOKEN_STORE;
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'mcp-chain', 'tokens.json');
}

/**
 * The token file. `server` is a server's canonical URL, `principal` a `Principal.key`. Reads are
 * cached while the file is unchanged; every change is a locked read-modify-write, so processes
 * sharing the file never lose each other's logins.
 */
export class TokenStore {
  readonly file: string;
  readonly #file: LockedJsonFile<TokenFile>;

  constructor(file: string, options: TokenStoreOptions = {}) {
    this.file = file;
    this.#file = new LockedJsonFile<TokenFile>(file, {
      label: 'token store',
      parse: parseTokenFile,
      empty: () => ({ version: 1, logins: {}, clients: {} }),
      error: (message) => new TokenStoreError(message),
      lockTimeoutMs: options.lockTimeoutMs,
      staleLockMs: options.staleLockMs,
    });
  }

  /** The login of `principal` at `server`, if any. */
  async getLogin(server: string, principal: string): Promise<StoredLogin | undefined> {
    return own(own((await this.#file.read()).logins, server), principal);
  }

  /** Stores (replaces) the login of `principal` at `server`. */
  async setLogin(server: string, principal: string, login: StoredLogin): Promise<void> {
    await this.#file.update((data) => {
      setOwn(data.logins, server, { ...own(data.logins, server), [principal]: login });
      return true;
    });
  }

  /** Forgets the logins at `server`: of `principal`, or of everyone. Resolves with how many were removed. */
  async deleteLogins(server: string, principal?: string): Promise<number> {
    let removed = 0;
    await this.#file.update((data) => {
      const logins = own(data.logins, server);
      removed = 0;
      if (logins === undefined) return false;
      const kept = Object.entries(logins).filter(([key]) => principal !== undefined && key !== principal);
      removed = Object.keys(logins).length - kept.length;
      if (removed === 0) return false;
      if (kept.length === 0) data.logins = without(data.logins, server);
      else setOwn(data.logins, server, Object.fromEntries(kept));
      return true;
    });
    return removed;
  }

  /** Every stored login, by server and principal. */
  async listLogins(): Promise<Array<{ server: string; principal: string; login: StoredLogin }>> {
    const data = await this.#file.read();
    return Object.entries(data.logins).flatMap(([server, logins]) => Object.entries(logins).map(([principal, login]) => ({ server, principal, login })));
  }

  /** The client registered with `issuer` for `server`, if any. */
  async getClient(issuer: string, server: string): Promise<StoredClient | undefined> {
    return own(own((await this.#file.read()).clients, issuer), server);
  }

  /** Stores (replaces) the client registered with `issuer` for `server`. */
  async setClient(issuer: string, server: string, client: StoredClient): Promise<void> {
    await this.#file.update((data) => {
      setOwn(data.clients, issuer, { ...own(data.clients, issuer), [server]: client });
      return true;
    });
  }

  /** Forgets the client registered with `issuer` for `server`. Resolves with whether there was one. */
  async deleteClient(issuer: string, server: string): Promise<boolean> {
    let removed = false;
    await this.#file.update((data) => {
      const clients = own(data.clients, issuer);
      removed = clients !== undefined && Object.hasOwn(clients, server);
      if (clients === undefined || !removed) return false;
      const kept = Object.entries(clients).filter(([key]) => key !== server);
      if (kept.length === 0) data.clients = without(data.clients, issuer);
      else setOwn(data.clients, issuer, Object.fromEntries(kept));
      return true;
    });
    return removed;
  }
}

/** `record[key]` when it is the record's own member (never one of Object.prototype's). */
function own<V>(record: Record<string, V> | undefined, key: string): V | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A copy of `record` without `key`. */
function without<V>(record: Record<string, V>, key: string): Record<string, V> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
}

/** Sets an own member, whatever the key (`__proto__` included). */
function setOwn<V>(record: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Checks the JSON of a token file; the error says where it is wrong, never what a value is. */
export function parseTokenFile(value: unknown): TokenFile {
  const corrupt = (why: string): CorruptContentError => new CorruptContentError(why);
  if (!isObject(value) || value.version !== 1) throw corrupt('expected { "version": 1, "logins": { … }, "clients": { … } }');
  const logins = value.logins ?? {};
  const clients = value.clients ?? {};
  if (!isObject(logins)) throw corrupt('logins is not an object');
  if (!isObject(clients)) throw corrupt('clients is not an object');
  for (const [server, byPrincipal] of Object.entries(logins)) {
    if (!isObject(byPrincipal)) throw corrupt(`logins of ${JSON.stringify(server)} is not an object`);
    for (const [principal, login] of Object.entries(byPrincipal)) {
      const why = loginProblem(login);
      if (why !== undefined) throw corrupt(`login of ${JSON.stringify(principal)} at ${JSON.stringify(server)}: ${why}`);
    }
  }
  for (const [issuer, byServer] of Object.entries(clients)) {
    if (!isObject(byServer)) throw corrupt(`clients of ${JSON.stringify(issuer)} is not an object`);
    for (const [server, client] of Object.entries(byServer)) {
      const why = clientProblem(client);
      if (why !== undefined) throw corrupt(`client of ${JSON.stringify(issuer)} for ${JSON.stringify(server)}: ${why}`);
    }
  }
  return { ...value, version: 1, logins, clients } as TokenFile;
}

function loginProblem(login: unknown): string | undefined {
  if (!isObject(login)) return 'not an object';
  const tokens = login.tokens;
  if (!isObject(tokens) || typeof tokens.accessToken !== 'string' || typeof tokens.tokenType !== 'string') return 'tokens needs accessToken and tokenType';
  if (!optional(tokens.refreshToken, 'string') || !optional(tokens.expiresAt, 'number') || !optional(tokens.scope, 'string')) {
    return 'tokens has a refreshToken, expiresAt or scope of the wrong type';
  }
  if (typeof login.issuer !== 'string' || typeof login.resource !== 'string' || typeof login.clientId !== 'string' || typeof login.obtainedAt !== 'number') {
    return 'needs issuer, resource, clientId and obtainedAt';
  }
  return undefined;
}

const AUTH_METHODS: readonly unknown[] = ['none', 'client_secret_basic', 'client_secret_post'];
const METHODS: readonly unknown[] = ['preregistered', 'cimd', 'dcr'];

function clientProblem(client: unknown): string | undefined {
  if (!isObject(client)) return 'not an object';
  if (typeof client.issuer !== 'string' || typeof client.clientId !== 'string' || typeof client.registeredAt !== 'number') return 'needs issuer, clientId and registeredAt';
  if (!AUTH_METHODS.includes(client.tokenEndpointAuthMethod)) return 'tokenEndpointAuthMethod is not none, client_secret_basic or client_secret_post';
  if (!METHODS.includes(client.method)) return 'method is not preregistered, cimd or dcr';
  if (!optional(client.clientSecret, 'string') || !optional(client.redirectUri, 'string') || !optional(client.clientSecretExpiresAt, 'number') || !optional(client.scope, 'string')) {
    return 'has a clientSecret, redirectUri, clientSecretExpiresAt or scope of the wrong type';
  }
  return undefined;
}

function optional(value: unknown, type: 'string' | 'number'): boolean {
  return value === undefined || typeof value === type;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

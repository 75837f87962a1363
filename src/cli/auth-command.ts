/**
 * @module
 * What `mcp-chain auth login`, `auth status` and `auth logout` do: the gateway's logins at remote
 * servers that need OAuth, kept in the token file (see auth/client/oauth-authorizer.ts). Loaded by
 * commands/auth.ts only when one of them runs; the config loader only when a config file is used.
 * Nothing here prints a token or a secret.
 */
import type { Writable } from 'node:stream';
import { oauthAuthorizer, type LoginStatus } from '../auth/client/oauth-authorizer.js';
import { defaultTokenStorePath, TokenStore, TokenStoreError, type StoredLogin } from '../auth/client/token-store.js';
import type { UpstreamOAuthOptions } from '../auth/client/upstream-oauth-options.js';
import { ConfigError } from '../config/config-error.js';
import { findConfigFile } from '../config/find-config.js';
import type { GatewayConfig, RemoteServerConfig } from '../config/gateway-config.js';
import type { LogFields, Logger, LogLevel } from '../log/logger.js';
import { shellWord, urlLoginCommand } from './oauth-flags.js';

/** Where the command writes: the process's streams, or a test's. */
export interface AuthCommandIo {
  /** The report (status, the login's outcome). */
  readonly output: Writable;
  /** The login URL, progress, errors and refusals. */
  readonly error: Writable;
}

const processIo = (): AuthCommandIo => ({ output: process.stdout, error: process.stderr });

export interface AuthCommandOptions {
  /** The config file naming the servers; default: mcp-chain.config.* in `cwd`, when there is one. */
  readonly config?: string | undefined;
  /** The token file for servers whose `oauth` names none; default `defaultTokenStorePath(env)`. */
  readonly store?: string | undefined;
  /** Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Default `process.cwd()`. */
  readonly cwd?: string | undefined;
  /**
   * For a server given by URL: the OAuth options of the command line (`--oauth-client-id`, ...),
   * as `mcp-chain --url <url>` takes them. A config file's server has its `oauth` key instead.
   */
  readonly oauth?: UpstreamOAuthOptions | undefined;
  /** Those options as command-line words (the secret's variable by name), for the login command in messages. */
  readonly oauthWords?: readonly string[] | undefined;
}

export interface AuthLoginOptions extends AuthCommandOptions {
  /** A server's name in the config file, or its URL. */
  readonly server: string;
  /** How long to wait for the browser's redirect, ms (default 5 minutes). */
  readonly timeoutMs?: number | undefined;
}

export interface AuthStatusOptions extends AuthCommandOptions {
  /** One JSON object per login on stdout, in an array. */
  readonly json: boolean;
  /** Only this server, given by URL (`--url`). */
  readonly url?: string | undefined;
}

/** A remote server to log in to: from the config file, or a URL given on the command line. */
interface Target {
  readonly name: string;
  readonly url: URL;
  readonly oauth: UpstreamOAuthOptions;
  /** How `mcp-chain auth login` names it (with --config when it came from one). */
  readonly loginCommand: string;
}

/** A problem the command reports on one line and exits 1 for. */
class AuthCommandError extends Error {
  override readonly name = 'AuthCommandError';
}

/**
 * `auth login <server>`: the login flow of the server's OAuth client, the URL on stderr (and a
 * browser when there is a desktop), then "Logged in to <server>" with the scopes and the expiry on
 * stdout. Exit 0; 1 when the login failed, the config file cannot be read or names no such
 * remote server, or the token file cannot be used.
 */
export async function authLogin(options: AuthLoginOptions, io: AuthCommandIo = processIo()): Promise<number> {
  return reported(io, 'auth login', async () => {
    const target = await targetOf(options.server, options);
    const env = options.env ?? process.env;
    const store = new TokenStore(target.oauth.tokenStore ?? options.store ?? defaultTokenStorePath(env));
    const authorizer = oauthAuthorizer({
      server: target.name,
      serverUrl: target.url,
      oauth: target.oauth,
      store,
      env,
      log: lineLogger(io.error, env),
      loginCommand: target.loginCommand,
      ...(options.timeoutMs === undefined ? {} : { loginTimeoutMs: options.timeoutMs }),
    });
    try {
      const login = await authorizer.login(undefined, {
        onUrl: (url) => io.error.write(`Log in to ${target.name} in a browser: ${url}\nWaiting for the redirect (5 minutes at most)...\n`),
      });
      io.output.write(`Logged in to ${target.name} (${describeLogin(login)})\nTokens kept in ${store.file}\n`);
      return 0;
    } finally {
      await authorizer.close();
    }
  });
}

/**
 * `auth status`: the logins kept (never a token): with a config file, of its remote servers (those
 * without a login too); without one, every login of the token file. `json`: an array of objects
 * on stdout. Exit 0; 1 when a config or token file cannot be read.
 */
export async function authStatus(options: AuthStatusOptions, io: AuthCommandIo = processIo()): Promise<number> {
  return reported(io, 'auth status', async () => {
    const env = options.env ?? process.env;
    const config = options.url === undefined ? await configOf(options, false) : undefined;
    const rows: StatusRow[] = [];
    if (options.url !== undefined) {
      const target = await targetOf(options.url, options);
      const store = new TokenStore(options.store ?? defaultTokenStorePath(env));
      const status = await oauthAuthorizer({ server: target.name, serverUrl: target.url, oauth: target.oauth, store, log: lineLogger(io.error, env) }).status();
      if (status.logins.length === 0) rows.push({ server: target.name, url: status.url, tokenStore: store.file, login: undefined });
      for (const login of status.logins) rows.push({ server: target.name, url: status.url, tokenStore: store.file, login });
    } else if (config !== undefined) {
      for (const server of remoteServers(config)) {
        const target = targetOfServer(server, config.file);
        const store = new TokenStore(target.oauth.tokenStore ?? options.store ?? defaultTokenStorePath(env));
        const status = await oauthAuthorizer({ server: target.name, serverUrl: target.url, oauth: target.oauth, store, log: lineLogger(io.error, env) }).status();
        if (status.logins.length === 0) rows.push({ server: target.name, url: status.url, tokenStore: store.file, login: undefined });
        for (const login of status.logins) rows.push({ server: target.name, url: status.url, tokenStore: store.file, login });
      }
    } else {
      const store = new TokenStore(options.store ?? defaultTokenStorePath(env));
      const now = Date.now();
      for (const { server, principal, login } of await store.listLogins()) {
        rows.push({ server, url: server, tokenStore: store.file, login: statusOf(principal, login, now) });
      }
    }
    if (options.json) {
      io.output.write(`${JSON.stringify(rows.map(jsonRow), null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      io.output.write(config === undefined ? `No logins kept in ${options.store ?? defaultTokenStorePath(env)}.\n` : `${config.file} has no remote servers.\n`);
      return 0;
    }
    io.output.write(`${rows.map(textRow).join('\n')}\n`);
    return 0;
  });
}

/** `auth logout <server>`: forgets every login kept for the server. Exit 0 (also when there was none); 1 when a file cannot be read. */
export async function authLogout(options: AuthLoginOptions, io: AuthCommandIo = processIo()): Promise<number> {
  return reported(io, 'auth logout', async () => {
    const target = await targetOf(options.server, options);
    const env = options.env ?? process.env;
    const store = new TokenStore(target.oauth.tokenStore ?? options.store ?? defaultTokenStorePath(env));
    const removed = await oauthAuthorizer({ server: target.name, serverUrl: target.url, oauth: target.oauth, store, log: lineLogger(io.error, env) }).logout();
    io.output.write(removed === 0 ? `No login kept for ${target.name} in ${store.file}.\n` : `Logged out of ${target.name} (${removed === 1 ? '1 login' : `${removed} logins`} forgotten).\n`);
    return 0;
  });
}

interface StatusRow {
  readonly server: string;
  readonly url: string;
  readonly tokenStore: string;
  readonly login: LoginStatus | undefined;
}

function statusOf(principal: string, login: StoredLogin, now: number): LoginStatus {
  return {
    principal,
    issuer: login.issuer,
    resource: login.resource,
    clientId: login.clientId,
    scope: login.tokens.scope,
    expiresAt: login.tokens.expiresAt,
    expired: login.tokens.expiresAt !== undefined && login.tokens.expiresAt <= now,
    refreshable: login.tokens.refreshToken !== undefined,
    obtainedAt: login.obtainedAt,
  };
}

function jsonRow({ server, url, tokenStore, login }: StatusRow): Record<string, unknown> {
  if (login === undefined) return { server, url, tokenStore, loggedIn: false };
  return {
    server,
    url,
    tokenStore,
    loggedIn: true,
    principal: login.principal,
    issuer: login.issuer,
    resource: login.resource,
    clientId: login.clientId,
    scope: login.scope ?? null,
    expiresAt: login.expiresAt === undefined ? null : new Date(login.expiresAt).toISOString(),
    expired: login.expired,
    refreshable: login.refreshable,
    obtainedAt: new Date(login.obtainedAt).toISOString(),
  };
}

function textRow({ server, url, login }: StatusRow): string {
  const where = server === url ? server : `${server} (${url})`;
  if (login === undefined) return `${where}: not logged in`;
  const who = login.principal === 'local' ? '' : ` for ${login.principal}`;
  const expiry =
    login.expiresAt === undefined
      ? 'no expiry given'
      : login.expired
        ? `expired ${new Date(login.expiresAt).toISOString()}${login.refreshable ? ', renewed at the next request' : ', a new login is needed'}`
        : `expires ${new Date(login.expiresAt).toISOString()}${login.refreshable ? ', refreshable' : ''}`;
  return `${where}: logged in${who} at ${login.issuer} (scopes ${login.scope ?? 'none given'}; ${expiry})`;
}

function describeLogin(login: StoredLogin): string {
  const { scope, expiresAt } = login.tokens;
  return `scopes ${scope ?? 'none given'}, expires ${expiresAt === undefined ? 'when the server says' : new Date(expiresAt).toISOString()}`;
}

/** Runs a command, reporting what it fails with on one line (exit 1); unexpected errors propagate. */
async function reported(io: AuthCommandIo, command: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ConfigError) {
      const count = error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`;
      io.error.write(`mcp-chain ${command}: the config file is not valid (${count}):\n${error.message}\n`);
      return 1;
    }
    if (error instanceof AuthCommandError || error instanceof TokenStoreError || isClientError(error)) {
      io.error.write(`mcp-chain ${command}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** Errors of the OAuth client and the fetches it makes (their messages hold no secret). */
function isClientError(error: unknown): error is Error {
  return error instanceof Error && ['OAuthClientError', 'FetchPolicyError', 'BoundedFetchError', 'LoginRequiredError'].includes(error.name);
}

async function configOf(options: AuthCommandOptions, required: boolean): Promise<GatewayConfig | undefined> {
  const cwd = options.cwd ?? process.cwd();
  const file = options.config ?? findConfigFile(cwd);
  if (file === undefined) {
    if (required) throw new AuthCommandError(`no config file given, and no mcp-chain.config.* in ${cwd}: give --config <file>, or the server's URL`);
    return undefined;
  }
  const { loadConfig } = await import('../config/load-config.js');
  return loadConfig(file, { env: options.env ?? process.env });
}

function remoteServers(config: GatewayConfig): RemoteServerConfig[] {
  return config.servers.filter((server): server is RemoteServerConfig => server.transport === 'http' || server.transport === 'sse');
}

function targetOfServer(server: RemoteServerConfig, file: string): Target {
  return { name: server.name, url: new URL(server.url), oauth: server.oauth ?? {}, loginCommand: `mcp-chain auth login ${shellWord(server.name)} --config ${shellWord(file)}` };
}

/** `<server>`: an http(s) URL as it is, else a server of the config file that is remote. */
async function targetOf(server: string, options: AuthCommandOptions): Promise<Target> {
  if (/^https?:\/\//i.test(server)) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new AuthCommandError(`${server} is not a valid URL`);
    }
    return { name: url.href, url, oauth: options.oauth ?? {}, loginCommand: urlLoginCommand(url.href, options.oauthWords ?? []) };
  }
  const config = (await configOf(options, true)) as GatewayConfig;
  const found = config.servers.find((entry) => entry.name === server);
  const remote = remoteServers(config).map((entry) => entry.name);
  if (found === undefined) {
    throw new AuthCommandError(`${config.file} has no server named "${server}"${remote.length === 0 ? ' (and no remote server)' : `; its remote servers: ${remote.join(', ')}`}`);
  }
  if (found.transport !== 'http' && found.transport !== 'sse') {
    throw new AuthCommandError(`"${server}" in ${config.file} is not a remote server (it has no "url"): only HTTP servers log in with OAuth`);
  }
  return targetOfServer(found, config.file);
}

/** Plain lines on stderr: warnings and errors, and everything at MCP_CHAIN_LOG_LEVEL=debug or info. */
function lineLogger(out: Writable, env: NodeJS.ProcessEnv): Logger {
  const levels: LogLevel[] = ['error', 'warn', 'info', 'debug'];
  const wanted = env.MCP_CHAIN_LOG_LEVEL;
  const max = wanted === 'silent' ? -1 : levels.includes(wanted as LogLevel) ? levels.indexOf(wanted as LogLevel) : 1;
  const line = (level: LogLevel) => (message: string, _fields?: LogFields): void => {
    if (levels.indexOf(level) <= max) out.write(`mcp-chain: ${level === 'error' || level === 'warn' ? `${level}: ` : ''}${message}\n`);
  };
  const logger: Logger = { error: line('error'), warn: line('warn'), info: line('info'), debug: line('debug'), child: () => logger };
  return logger;
}

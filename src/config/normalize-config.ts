import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { checkUrlShape } from '../auth/fetch-policy.js';
import type { UpstreamOAuthOptions } from '../auth/client/upstream-oauth-options.js';
import type { Logger } from '../log/logger.js';
import type { CommandArg, CommandTool } from '../upstream/commands/command-options.js';
import { commandToolProblems } from '../upstream/commands/command-tool-problems.js';
import { IGNORED_ROOT_KEYS, IGNORED_SERVER_KEYS } from './client-keys.js';
import type { ConfigProblem } from './config-error.js';
import { formatPath, type ConfigPath } from './config-path.js';
import type { MiddlewareEntry, RawConfig, RawServer } from './config-schema.js';
import { describeOsError } from './describe-os-error.js';
import type { FrontConfig, GatewayConfig, MiddlewareConfig, OAuthFrontConfig, ServerConfig } from './gateway-config.js';
import { interpolate, type Variables } from './interpolate-variables.js';
import type { Position } from './parse-config-text.js';

/** What a validated file is normalized with. */
export interface NormalizeContext {
  /** The file's absolute path. */
  readonly file: string;
  /** Its directory: relative paths in it (envFile, cwd, modules, log files) are relative to this. */
  readonly dir: string;
  readonly variables: Variables;
  /** The keys at the top of the file, in the order written (the schema's output has its own order). */
  readonly order: readonly string[];
  readonly locate: (path: ConfigPath) => Position | undefined;
  readonly log: Logger;
}

const SERVER_SECTIONS = ['mcpServers', 'servers', 'mcp_servers'] as const;

/** Defaults a file does not state. */
const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 8080;
const DEFAULT_PATH = '/mcp';
const DEFAULT_SEPARATOR = '__';
const DEFAULT_MAX_NAME_LENGTH = 64;

/**
 * Maps a file that passed the schema onto a {@link GatewayConfig}: the client shapes onto one,
 * `${VAR}` references resolved, `envFile`s read, relative paths made absolute. What cannot be
 * done (an unset variable, a server with neither `command` nor `url`, an unreadable envFile) is a
 * problem; every one is collected. Keys of other clients that mcp-chain does not use are logged
 * at debug, and keys that do not apply to a server's kind at warn.
 */
export function normalizeConfig(raw: RawConfig, context: NormalizeContext): { config: GatewayConfig; problems?: undefined } | { problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const problem = (path: ConfigPath, message: string): void => {
    const at = context.locate(path);
    problems.push({ file: context.file, ...(at ? { line: at.line, column: at.column } : {}), path: formatPath(path), message });
  };
  const text = (value: string, path: ConfigPath): string => {
    const result = interpolate(value, context.variables);
    for (const error of result.errors ?? []) problem(path, error);
    return result.value ?? value;
  };
  const tools = { context, problem, text };

  for (const key of context.order) {
    if (Object.hasOwn(IGNORED_ROOT_KEYS, key)) context.log.debug(`${context.file}: ${formatPath([key])}: ignored (a setting of ${IGNORED_ROOT_KEYS[key]} that mcp-chain does not use)`);
  }

  const servers: ServerConfig[] = [];
  const placed: { server: ServerConfig; path: ConfigPath }[] = [];
  const sections = context.order.filter((key): key is (typeof SERVER_SECTIONS)[number] => (SERVER_SECTIONS as readonly string[]).includes(key));
  if (sections.length === 0) problem([], 'no servers: expected "mcpServers" (or "servers", or "mcp_servers") with a server in it');
  const seen = new Map<string, string>();
  for (const section of sections) {
    for (const [name, server] of Object.entries(raw[section] ?? {})) {
      const path = [section, name];
      const earlier = seen.get(name);
      if (earlier !== undefined) {
        problem(path, `a second server named ${JSON.stringify(name)} (the first is ${earlier})`);
        continue;
      }
      seen.set(name, formatPath(path));
      const normalized = normalizeServer(name, server, path, tools);
      if (normalized) {
        servers.push(normalized);
        placed.push({ server: normalized, path });
      }
    }
  }

  const config: GatewayConfig = {
    file: context.file,
    servers,
    front: normalizeFront(raw.http, tools),
    serverInfo:
      raw.serverInfo === undefined
        ? undefined
        : { name: raw.serverInfo.name, version: raw.serverInfo.version, ...(raw.serverInfo.title === undefined ? {} : { title: raw.serverInfo.title }) },
    timeouts:
      raw.timeouts === undefined
        ? undefined
        : { requestMs: raw.timeouts.request, maxMs: raw.timeouts.max, startupMs: raw.timeouts.startup, listMs: raw.timeouts.list },
    drainMs: raw.drainMs,
    breaker:
      raw.breaker === undefined || raw.breaker === false
        ? raw.breaker
        : {
            failureThreshold: raw.breaker.failureThreshold ?? raw.breaker.failures,
            openMs: raw.breaker.openMs ?? raw.breaker.open,
            factor: raw.breaker.factor,
            maxOpenMs: raw.breaker.maxOpenMs ?? raw.breaker.maxOpen,
          },
    naming: {
      separator: raw.naming?.separator ?? DEFAULT_SEPARATOR,
      maxNameLength: raw.naming?.maxNameLength ?? DEFAULT_MAX_NAME_LENGTH,
      pageSize: raw.naming?.pageSize,
    },
    middleware: normalizeMiddleware(raw.middleware, ['middleware'], tools),
  };
  checkRedirectPaths(placed, config.front, problem);
  return problems.length > 0 ? { problems } : { config: withoutUndefined(config) };
}

/** `value` with the keys whose value is undefined left out of its plain objects (Upstreams and functions as they are). */
function withoutUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => withoutUndefined(item)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined).map(([key, item]) => [key, withoutUndefined(item)])) as T;
}

interface Tools {
  readonly context: NormalizeContext;
  readonly problem: (path: ConfigPath, message: string) => void;
  /** `value` with its `${VAR}` references resolved; a failure is a problem at `path`. */
  readonly text: (value: string, path: ConfigPath) => string;
}

const LOCAL_KEYS = ['args', 'env', 'envFile', 'env_vars', 'cwd'] as const;
const REMOTE_KEYS = ['headers', 'http_headers', 'env_http_headers', 'bearer_token_env_var', 'oauth'] as const;

function normalizeServer(name: string, server: RawServer, path: ConfigPath, outer: Tools): ServerConfig | undefined {
  const disabled = server.disabled === true || server.enabled === false;
  // A disabled server is not started: what it lacks (a variable, its envFile) is no problem yet.
  const tools: Tools = disabled ? { ...outer, text: (value) => interpolate(value, outer.context.variables).value ?? value } : outer;
  const { context, problem, text } = tools;
  for (const key of Object.keys(server)) {
    if (Object.hasOwn(IGNORED_SERVER_KEYS, key)) context.log.debug(`${context.file}: ${formatPath([...path, key])}: ignored (a setting of ${IGNORED_SERVER_KEYS[key]} that mcp-chain does not use)`);
  }
  const urlKeys = (['url', 'httpUrl', 'serverUrl'] as const).filter((key) => server[key] !== undefined);
  const given = [...(server.upstream === undefined ? [] : ['upstream']), ...(server.command === undefined ? [] : ['command']), ...urlKeys, ...(server.commands === undefined ? [] : ['commands'])];
  if (given.length > 1) {
    problem(path, `give one of ${given.map((key) => `"${key}"`).join(', ')}, not ${given.length === 2 ? 'both' : 'several'}: "command" starts a local server, "url" reaches a remote one${server.commands === undefined ? '' : ', "commands" makes tools of programs'}`);
    return undefined;
  }
  if (server.commands !== undefined && server.type !== undefined) {
    problem([...path, 'type'], '"commands" takes no "type": mcp-chain runs the programs itself');
    return undefined;
  }
  const [urlKey] = urlKeys;
  let transport: ServerConfig['transport'];
  if (server.upstream !== undefined) transport = 'upstream';
  else if (server.commands !== undefined) transport = 'commands';
  else if (server.type === 'stdio' || (server.type === undefined && server.command !== undefined)) transport = 'stdio';
  else if (server.type === 'sse') transport = 'sse';
  else transport = 'http';
  if (transport === 'stdio' && server.command === undefined) {
    problem(path, `missing "command": "type" is "stdio"${urlKey ? `, but "${urlKey}" is given` : ''}`);
    return undefined;
  }
  if ((transport === 'http' || transport === 'sse') && urlKey === undefined) {
    problem(path, server.type === undefined ? 'expected "command" (a local server) or "url" (a remote one)' : `missing "url": "type" is ${JSON.stringify(server.type)}`);
    return undefined;
  }
  const misplaced = transport === 'stdio' ? REMOTE_KEYS : transport === 'upstream' ? [...LOCAL_KEYS, ...REMOTE_KEYS] : transport === 'commands' ? ['args' as const, ...REMOTE_KEYS] : LOCAL_KEYS;
  for (const key of misplaced) {
    if (server[key] !== undefined) context.log.warn(`${context.file}: ${formatPath([...path, key])}: ignored: it applies to ${LOCAL_KEYS.includes(key as (typeof LOCAL_KEYS)[number]) ? 'a server started with "command"' : 'a remote server ("url")'}`);
  }

  const startupTimeoutMs =
    server.startupTimeoutMs ??
    server.startupTimeout ??
    server.startup_timeout_ms ??
    (server.startup_timeout_sec === undefined ? undefined : Math.round(server.startup_timeout_sec * 1000));
  const timeoutMs = server.timeoutMs ?? server.timeout ?? (server.tool_timeout_sec === undefined ? undefined : Math.round(server.tool_timeout_sec * 1000));
  const allow = [...(server.tools?.allow ?? []), ...(server.includeTools ?? []), ...(server.enabled_tools ?? [])];
  const deny = [...(server.tools?.deny ?? []), ...(server.excludeTools ?? []), ...(server.disabled_tools ?? [])];
  const base = {
    name,
    path: formatPath(path),
    disabled,
    prefix: server.prefix,
    startupTimeoutMs,
    timeoutMs,
    tools: allow.length === 0 && deny.length === 0 ? undefined : { allow: allow.length === 0 ? undefined : allow, deny: deny.length === 0 ? undefined : deny },
    isolation: server.isolation ?? 'session',
    middleware: normalizeMiddleware(server.middleware, [...path, 'middleware'], tools),
  };

  switch (transport) {
    case 'upstream':
      return { ...base, transport, upstream: server.upstream as NonNullable<RawServer['upstream']> };
    case 'commands': {
      const cwd = server.cwd === undefined ? undefined : resolve(context.dir, text(server.cwd, [...path, 'cwd']));
      return { ...base, transport, commands: normalizeCommands(server.commands ?? {}, cwd, [...path, 'commands'], tools), env: serverEnv(server, path, tools, disabled), cwd };
    }
    case 'stdio':
      return {
        ...base,
        transport,
        command: text(server.command ?? '', [...path, 'command']),
        args: (server.args ?? []).map((arg, index) => text(arg, [...path, 'args', index])),
        env: serverEnv(server, path, tools, disabled),
        cwd: server.cwd === undefined ? undefined : resolve(context.dir, text(server.cwd, [...path, 'cwd'])),
      };
    default: {
      const urlPath = [...path, urlKey ?? 'url'];
      const url = text(server[urlKey ?? 'url'] ?? '', urlPath);
      if (!disabled && !isHttpUrl(url)) problem(urlPath, 'expected an http:// or https:// URL');
      const oauth = server.oauth === undefined ? undefined : normalizeUpstreamOAuth(server.oauth, [...path, 'oauth'], tools);
      return { ...base, transport, url, headers: serverHeaders(server, path, tools, disabled), oauth };
    }
  }
}

/**
 * The tools of a `commands` server: `${VAR}` resolved in the program, literal arguments, flags,
 * `cwd` and `env` values (never in parameters: those are the model's); each `cwd` made absolute
 * (relative to the server's, else to the config file); a definition that does not hold together
 * (a placeholder naming no parameter, an unused parameter, ...) is a problem at its place.
 */
function normalizeCommands(commands: NonNullable<RawServer['commands']>, serverCwd: string | undefined, path: ConfigPath, { context, problem, text }: Tools): Record<string, CommandTool> {
  const tools: Record<string, CommandTool> = {};
  for (const [name, raw] of Object.entries(commands)) {
    const at = [...path, name];
    const args = (raw.args ?? []).map((arg, index): CommandArg => {
      if (typeof arg === 'string') return text(arg, [...at, 'args', index]);
      if ('literal' in arg) return { literal: text(arg.literal, [...at, 'args', index, 'literal']) };
      return arg.flag === undefined ? { param: arg.param } : { param: arg.param, flag: text(arg.flag, [...at, 'args', index, 'flag']) };
    });
    const tool: CommandTool = withoutUndefined({
      ...raw,
      command: text(raw.command, [...at, 'command']),
      args,
      cwd: raw.cwd === undefined ? serverCwd : resolve(serverCwd ?? context.dir, text(raw.cwd, [...at, 'cwd'])),
      env: raw.env === undefined ? undefined : Object.fromEntries(Object.entries(raw.env).map(([key, value]) => [key, text(value, [...at, 'env', key])])),
    });
    for (const found of commandToolProblems(tool)) problem([...at, ...found.path], found.message);
    tools[name] = tool;
  }
  return tools;
}

/** The variables of `envFile`, then those `env_vars` passes on, then `env` (which wins). */
function serverEnv(server: RawServer, path: ConfigPath, { context, problem, text }: Tools, disabled: boolean): Record<string, string> {
  const env: Record<string, string> = {};
  if (server.envFile !== undefined) {
    const file = resolve(context.dir, text(server.envFile, [...path, 'envFile']));
    try {
      Object.assign(env, parseDotenv(readFileSync(file)));
    } catch (error) {
      if (!disabled) problem([...path, 'envFile'], `cannot read ${file}: ${describeOsError(error)}`);
    }
  }
  for (const name of server.env_vars ?? []) {
    const value = context.variables.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(server.env ?? {})) env[name] = text(value, [...path, 'env', name]);
  return env;
}

/** `http_headers`, then `headers` (which wins), then those named by environment variables. */
function serverHeaders(server: RawServer, path: ConfigPath, { context, problem, text }: Tools, disabled: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const key of ['http_headers', 'headers'] as const) {
    for (const [name, value] of Object.entries(server[key] ?? {})) {
      const where = [...path, key, name];
      if (!HEADER_NAME.test(name)) problem(where, 'not a valid header name');
      else if (RESERVED_HEADERS.has(name.toLowerCase())) problem(where, 'mcp-chain sets this header itself: it cannot be configured');
      headers[name] = text(value, where);
      if (/[\r\n\0]/.test(headers[name])) problem(where, 'the value contains a line break or NUL');
    }
  }
  const fromEnv = (variable: string, where: ConfigPath): string | undefined => {
    const value = context.variables.env[variable];
    if (value === undefined && !disabled) problem(where, `names ${variable}, which is not set`);
    return value;
  };
  for (const [name, variable] of Object.entries(server.env_http_headers ?? {})) {
    const value = fromEnv(variable, [...path, 'env_http_headers', name]);
    if (value !== undefined) headers[name] = value;
  }
  if (server.bearer_token_env_var !== undefined) {
    const value = fromEnv(server.bearer_token_env_var, [...path, 'bearer_token_env_var']);
    const given = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
    if (value !== undefined && !given) headers.Authorization = `Bearer ${value}`;
  }
  return headers;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers of the protocol, which the HTTP upstream sets (as src/upstream/http/request-headers.ts refuses them). */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'content-length', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'host']);

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function normalizeFront(http: RawConfig['http'], tools: Tools): FrontConfig {
  const { text } = tools;
  if (http === undefined) return { kind: 'stdio' };
  return {
    kind: 'http',
    host: http.host ?? DEFAULT_HOST,
    port: http.port ?? DEFAULT_PORT,
    path: http.path ?? DEFAULT_PATH,
    tokens: (http.tokens ?? []).map((entry, index) => {
      if (typeof entry === 'string') return { id: tokenId(entry, index), token: text(entry, ['http', 'tokens', index]) };
      return { id: entry.id, token: text(entry.token, ['http', 'tokens', index, 'token']) };
    }),
    allowedOrigins: http.allowedOrigins,
    allowedHosts: http.allowedHosts,
    sessionTtlMs: http.sessionTtl,
    maxSessions: http.maxSessions,
    maxStartingSessions: http.maxStartingSessions,
    allowUnauthenticated: http.allowUnauthenticated ?? false,
    sse: http.sse ?? false,
    oauth: http.oauth === undefined ? undefined : normalizeOAuth(http.oauth, ['http', 'oauth'], tools),
  };
}

type RawOAuth = NonNullable<NonNullable<RawConfig['http']>['oauth']>;

/**
 * `http.oauth`: `${VAR}` resolved in its URLs and credentials, defaults applied (the audience is
 * the resource, the authorization servers the issuer), and what the verifiers would refuse at the
 * start found now, at its place: exactly one of `jwksUri` and `introspection`, URLs that are not
 * absolute http(s) (the fetched ones under the OAuth fetch policy: https, plain http to loopback
 * only), `none` or `HS*` among the algorithms.
 */
function normalizeOAuth(oauth: RawOAuth, path: ConfigPath, { problem, text }: Tools): OAuthFrontConfig {
  const url = (value: string, key: ConfigPath, fetched: boolean): string => {
    const where = [...path, ...key];
    const resolved = text(value, where);
    if (!isHttpUrl(resolved)) {
      problem(where, 'expected an absolute http:// or https:// URL');
      return resolved;
    }
    if (fetched) {
      try {
        checkUrlShape(resolved);
      } catch (error) {
        problem(where, error instanceof Error ? error.message : String(error));
      }
    }
    return resolved;
  };
  const resource = url(oauth.resource, ['resource'], false);
  if (isHttpUrl(resource) && new URL(resource).hash !== '') problem([...path, 'resource'], 'a resource identifier has no fragment (#...)');
  const issuer = url(oauth.issuer, ['issuer'], false);
  const authorizationServers = (oauth.authorizationServers ?? [oauth.issuer]).map((server, index) =>
    oauth.authorizationServers === undefined ? issuer : url(server, ['authorizationServers', index], false),
  );
  const audience =
    oauth.audience === undefined
      ? [resource]
      : typeof oauth.audience === 'string'
        ? [text(oauth.audience, [...path, 'audience'])]
        : oauth.audience.map((aud, index) => text(aud, [...path, 'audience', index]));
  for (const [index, alg] of (oauth.algorithms ?? []).entries()) {
    if (/^(none|HS\d+)$/i.test(alg)) problem([...path, 'algorithms', index], `${alg} is never accepted: only asymmetric algorithms (RS*, PS*, ES*, EdDSA)`);
  }
  let tokens: OAuthFrontConfig['tokens'];
  if ((oauth.jwksUri === undefined) === (oauth.introspection === undefined)) {
    problem(
      path,
      oauth.jwksUri === undefined
        ? 'expected "jwksUri" (JWT access tokens, checked against the issuer\'s keys) or "introspection" (opaque tokens)'
        : 'give one of "jwksUri" and "introspection", not both',
    );
  }
  if (oauth.jwksUri !== undefined) {
    tokens = { kind: 'jwt', jwksUri: url(oauth.jwksUri, ['jwksUri'], true), algorithms: oauth.algorithms };
  } else {
    const given = oauth.introspection ?? { endpoint: '', clientId: '', clientSecret: '' };
    if (oauth.algorithms !== undefined) problem([...path, 'algorithms'], 'applies to JWT access tokens ("jwksUri") only');
    tokens = {
      kind: 'introspection',
      endpoint: oauth.introspection === undefined ? '' : url(given.endpoint, ['introspection', 'endpoint'], true),
      clientId: text(given.clientId, [...path, 'introspection', 'clientId']),
      clientSecret: text(given.clientSecret, [...path, 'introspection', 'clientSecret']),
      clientAuth: oauth.introspection?.clientAuth,
      cacheMs: oauth.introspection?.cacheMs,
    };
  }
  return {
    resource,
    issuer,
    authorizationServers,
    audience,
    tokens,
    requiredScopes: oauth.requiredScopes,
    scopesSupported: oauth.scopesSupported,
    claims: oauth.claims,
    resourceName: oauth.resourceName === undefined ? undefined : text(oauth.resourceName, [...path, 'resourceName']),
    clockToleranceSec: oauth.clockToleranceSec,
  };
}

type RawUpstreamOAuth = NonNullable<RawServer['oauth']>;

/** Keys of Gemini CLI's and Claude Code's `oauth` that mcp-chain does without: it discovers the endpoints (RFC 9728, RFC 8414). */
const IGNORED_OAUTH_KEYS = ['authorizationUrl', 'tokenUrl', 'registrationUrl', 'audiences', 'tokenParamName', 'authServerMetadataUrl'] as const;

/**
 * A remote server's `oauth`, as `http({ oauth })` takes it: `${VAR}` resolved, the client
 * formats' keys mapped (`clientId`/`clientSecret` onto `client`, `callbackPort` onto a loopback
 * `redirectUri`, `scopes` as one string split), `tokenStore` made absolute; undefined for Gemini
 * CLI's `enabled: false`. What the authorizer would refuse is a problem at its place: a redirect
 * URI that is not loopback http, a metadata URL that is not https, a grant without what it needs,
 * a client given twice.
 */
function normalizeUpstreamOAuth(oauth: RawUpstreamOAuth, path: ConfigPath, { context, problem, text }: Tools): UpstreamOAuthOptions | undefined {
  if (oauth.enabled === false) return undefined;
  for (const key of IGNORED_OAUTH_KEYS) {
    if (oauth[key] !== undefined) context.log.warn(`${context.file}: ${formatPath([...path, key])}: ignored: mcp-chain discovers the authorization server from the server's metadata (give "authorizationServer", its issuer, to skip that)`);
  }
  const at = (...key: (string | number)[]): ConfigPath => [...path, ...key];
  const optional = (value: string | undefined, ...key: string[]): string | undefined => (value === undefined ? undefined : text(value, at(...key)));
  if (oauth.client !== undefined && (oauth.clientId !== undefined || oauth.clientSecret !== undefined)) {
    problem(at(oauth.clientId !== undefined ? 'clientId' : 'clientSecret'), 'give the client once: "client" or "clientId" (and "clientSecret"), not both');
  }
  if (oauth.clientSecret !== undefined && oauth.clientId === undefined && oauth.client === undefined) problem(at('clientSecret'), 'a client secret needs "clientId"');
  let client: UpstreamOAuthOptions['client'];
  if (oauth.client !== undefined) {
    client = {
      clientId: text(oauth.client.clientId, at('client', 'clientId')),
      clientSecret: optional(oauth.client.clientSecret, 'client', 'clientSecret'),
      tokenEndpointAuthMethod: oauth.client.tokenEndpointAuthMethod,
    };
    if (client.tokenEndpointAuthMethod !== undefined && client.tokenEndpointAuthMethod !== 'none' && client.clientSecret === undefined) {
      problem(at('client', 'tokenEndpointAuthMethod'), `${client.tokenEndpointAuthMethod} needs "clientSecret"`);
    }
  } else if (oauth.clientId !== undefined) {
    client = { clientId: text(oauth.clientId, at('clientId')), clientSecret: optional(oauth.clientSecret, 'clientSecret') };
  }
  if (oauth.redirectUri !== undefined && oauth.callbackPort !== undefined) problem(at('callbackPort'), 'give "redirectUri" or "callbackPort", not both');
  let redirectUri = oauth.callbackPort === undefined ? optional(oauth.redirectUri, 'redirectUri') : `http://localhost:${oauth.callbackPort}/callback`;
  if (redirectUri !== undefined && oauth.redirectUri !== undefined && !isRedirectUrl(redirectUri)) {
    problem(at('redirectUri'), 'expected a loopback http URL (http://127.0.0.1:<port>/callback, [::1] or localhost) or an https address of the gateway\'s HTTP front (https://mcp.example.com/oauth/callback), without a query or fragment: the login\'s redirect comes to mcp-chain itself');
    redirectUri = undefined;
  }
  const httpsUrl = (value: string | undefined, key: string): string | undefined => {
    if (value === undefined) return undefined;
    const resolved = text(value, at(key));
    try {
      checkUrlShape(resolved);
    } catch (error) {
      problem(at(key), error instanceof Error ? error.message : String(error));
    }
    return resolved;
  };
  const grant = oauth.grant;
  if (grant === 'client_credentials' && client === undefined) problem(at('grant'), 'client_credentials needs a registered client: give "client" ({ "clientId", "clientSecret" })');
  if (grant === 'token_exchange' && oauth.tokenExchange === undefined) problem(at('grant'), 'token_exchange needs "tokenExchange" (the gateway\'s client at the identity provider)');
  if (grant !== 'token_exchange' && oauth.tokenExchange !== undefined) problem(at('tokenExchange'), 'applies to "grant": "token_exchange" only');
  const exchange = oauth.tokenExchange;
  const scopes = typeof oauth.scopes === 'string' ? oauth.scopes.split(/\s+/).filter((scope) => scope !== '') : oauth.scopes;
  return {
    grant,
    client,
    clientMetadataUrl: httpsUrl(oauth.clientMetadataUrl, 'clientMetadataUrl'),
    clientName: oauth.clientName,
    scopes,
    redirectUri,
    authorizationServer: httpsUrl(oauth.authorizationServer, 'authorizationServer'),
    resource: optional(oauth.resource, 'resource'),
    tokenExchange:
      exchange === undefined
        ? undefined
        : {
            tokenEndpoint: exchange.tokenEndpoint === undefined ? undefined : text(exchange.tokenEndpoint, at('tokenExchange', 'tokenEndpoint')),
            clientId: text(exchange.clientId, at('tokenExchange', 'clientId')),
            clientSecret: exchange.clientSecret === undefined ? undefined : text(exchange.clientSecret, at('tokenExchange', 'clientSecret')),
            tokenEndpointAuthMethod: exchange.tokenEndpointAuthMethod,
            audience: exchange.audience === undefined ? undefined : text(exchange.audience, at('tokenExchange', 'audience')),
            requestedTokenType: exchange.requestedTokenType,
          },
    sharedLogin: oauth.sharedLogin,
    tokenStore: oauth.tokenStore === undefined ? undefined : resolve(context.dir, text(oauth.tokenStore, at('tokenStore'))),
    openBrowser: oauth.openBrowser,
  };
}

/** `http://` to 127.0.0.1, [::1] or localhost, or `https://` (an address of the HTTP front), without user, query or fragment: where the login's redirect may come. */
function isRedirectUrl(text: string): boolean {
  const url = parseUrl(text);
  if (url === undefined || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrl(url));
}

function isLoopbackUrl(url: URL): boolean {
  return ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
}

/**
 * A redirect URI that comes to the HTTP front (not loopback, or loopback on the front's port) is
 * answered by the front on its path, which must then be none of the front's own: a problem at the
 * server's `oauth.redirectUri` otherwise.
 */
function checkRedirectPaths(servers: readonly { server: ServerConfig; path: ConfigPath }[], front: FrontConfig, problem: Tools['problem']): void {
  if (front.kind !== 'http') return;
  const own = [front.path, ...(front.sse ? ['/sse', '/messages'] : [])];
  for (const { server, path } of servers) {
    const redirectUri = 'oauth' in server ? server.oauth?.redirectUri : undefined;
    const url = redirectUri === undefined ? undefined : parseUrl(redirectUri);
    if (url === undefined) continue;
    const toFront = !isLoopbackUrl(url) || Number(url.port === '' ? 80 : url.port) === front.port;
    if (toFront && (own.includes(url.pathname) || url.pathname.startsWith('/.well-known/'))) {
      problem([...path, 'oauth', 'redirectUri'], `${url.pathname} is a path the HTTP front serves itself; the login's redirect needs one of its own, such as /oauth/callback`);
    }
  }
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Who presents a token, in logs: the variable it comes from (as `--token-env` names it), else its place. */
function tokenId(written: string, index: number): string {
  return /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}$/.exec(written)?.[1] ?? `token-${index + 1}`;
}

function normalizeMiddleware(entries: readonly MiddlewareEntry[] | undefined, path: ConfigPath, { context, problem }: Tools): MiddlewareConfig[] {
  return (entries ?? []).map((entry, index): MiddlewareConfig => {
    const where = formatPath([...path, index]);
    switch (entry.kind) {
      case 'function':
        return { kind: 'function', middleware: entry.middleware, path: where };
      case 'builtin':
        return { kind: 'builtin', name: entry.name, options: entry.options, path: where };
      case 'module': {
        const module = resolveModule(entry.module, context);
        if (module.error !== undefined) problem([...path, index, 'module'], module.error);
        return { kind: 'module', module: module.path ?? entry.module, export: entry.export ?? 'default', options: entry.options, path: where };
      }
    }
  });
}

/** A module path relative to the config file, or a package resolved from it. */
function resolveModule(specifier: string, context: NormalizeContext): { path: string; error?: undefined } | { path?: undefined; error: string } {
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    const path = resolve(context.dir, specifier);
    return existsSync(path) ? { path } : { error: `cannot find ${path}` };
  }
  try {
    return { path: createRequire(context.file).resolve(specifier) };
  } catch {
    return { error: `cannot find the package ${JSON.stringify(specifier)} from ${context.dir} (a file needs "./")` };
  }
}

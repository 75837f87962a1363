import type { UpstreamOAuthOptions } from '../auth/client/upstream-oauth-options.js';
import type { FrontConfig, GatewayConfig, MiddlewareConfig, OAuthFrontConfig, ServerConfig } from '../config/gateway-config.js';
import { defaultPrefix, safeName } from '../upstream/aggregate/names.js';
import type { ServePlan } from '../serve/serve-plan.js';
import type { CommandArg } from '../upstream/commands/commands.js';

export interface DescribeConfigOptions {
  /**
   * Values that came from the environment (variable name → value), shown as `${NAME}` wherever
   * they were interpolated into a command, its arguments, a working directory or a URL.
   */
  readonly secrets?: ReadonlyMap<string, string>;
  /** The serve plan of the file: its front, serverInfo and drain are shown as serving would use them. */
  readonly plan?: ServePlan | undefined;
}

/**
 * What `mcp-chain validate` prints: what serving `config` would serve, one server after another,
 * in file order — its transport, command line or URL, the names of its environment variables and
 * headers (never their values), prefix, tool lists, isolation, whether it is disabled, and the
 * middleware. Secrets stay out: header, env and token values are never printed, and values taken
 * from the environment are shown as the `${NAME}` they came from (see `options.secrets`).
 */
export function describeConfig(config: GatewayConfig, options: DescribeConfigOptions = {}): string {
  const hide = masker(options.secrets ?? new Map());
  const enabled = config.servers.filter((s) => !s.disabled);
  const disabled = config.servers.length - enabled.length;
  const count = `${plural(config.servers.length, 'server')}${disabled === 0 ? '' : ` (${disabled} disabled)`}`;
  const front = options.plan?.front ?? config.front;
  const serverInfo = options.plan?.session.serverInfo ?? config.serverInfo;
  const out = [`${config.file}: valid, ${count}`, '', `front: ${frontText(front)}`];
  if (front.kind === 'http' && front.oauth !== undefined) out.push(`oauth: ${oauthText(front.oauth, hide)}`);
  if (serverInfo) out.push(`serverInfo: ${serverInfo.name} ${serverInfo.version}${serverInfo.title === undefined ? '' : ` (${serverInfo.title})`}`);
  if (options.plan !== undefined) out.push(`drain: ${options.plan.drainMs} ms for calls in flight on SIGTERM or SIGINT`);
  const timeouts = timeoutsText(config);
  if (timeouts !== '') out.push(`timeouts: ${timeouts}`);
  out.push(`names: ${JSON.stringify(config.naming.separator)} between prefix and name, at most ${config.naming.maxNameLength} characters${config.naming.pageSize === undefined ? '' : `; lists in pages of ${config.naming.pageSize}`}`);
  out.push(`middleware: ${middlewareText(config.middleware)}`);
  out.push('', config.servers.length === 0 ? 'servers: none' : 'servers:');
  for (const server of config.servers) out.push(...serverLines(server, config, enabled.length, hide));
  return `${out.join('\n')}\n`;
}

const KIND: Readonly<Record<ServerConfig['transport'], string>> = {
  stdio: 'stdio',
  http: 'Streamable HTTP',
  sse: 'legacy HTTP+SSE',
  upstream: 'in-process',
  commands: 'command-line programs as tools',
};

/** One element of a command tool's argv template, as it reads: `{param}`, `[-n {count}]`. */
function argText(arg: CommandArg, hide: (text: string) => string): string {
  if (typeof arg === 'string') return shellWord(hide(arg));
  if ('literal' in arg) return shellWord(hide(arg.literal));
  return arg.flag === undefined ? `{${arg.param}}` : `[${arg.flag} {${arg.param}}]`;
}

function serverLines(server: ServerConfig, config: GatewayConfig, enabledCount: number, hide: (text: string) => string): string[] {
  const kind = KIND[server.transport];
  const lines = [`  ${server.name}: ${kind}${server.disabled ? ', disabled' : ''}`];
  const field = (name: string, value: string): void => {
    lines.push(`    ${name}: ${value}`);
  };
  switch (server.transport) {
    case 'stdio':
      field('command', [server.command, ...server.args].map((word) => shellWord(hide(word))).join(' '));
      if (Object.keys(server.env).length > 0) field('env', Object.keys(server.env).join(', '));
      if (server.cwd !== undefined) field('cwd', hide(server.cwd));
      break;
    case 'http':
    case 'sse':
      field('url', hide(withoutPassword(server.url)));
      if (Object.keys(server.headers).length > 0) field('headers', Object.keys(server.headers).join(', '));
      if (server.oauth !== undefined) field('oauth', upstreamOAuthText(server.name, server.oauth, hide));
      break;
    case 'upstream':
      field('upstream', 'an object of the TypeScript config');
      break;
    case 'commands':
      for (const [name, tool] of Object.entries(server.commands)) field(`tool ${name}`, [shellWord(hide(tool.command)), ...(tool.args ?? []).map((arg) => argText(arg, hide))].join(' '));
      if (Object.keys(server.env).length > 0) field('env', Object.keys(server.env).join(', '));
      if (server.cwd !== undefined) field('cwd', hide(server.cwd));
      break;
  }
  field('names', namesText(server, config, enabledCount));
  if (server.tools?.allow !== undefined) field('tools allowed', server.tools.allow.join(', '));
  if (server.tools?.deny !== undefined) field('tools denied', server.tools.deny.join(', '));
  field('isolation', server.isolation === 'shared' ? 'shared (one connection for all sessions)' : 'session (one connection per client session)');
  const timeouts = [
    server.startupTimeoutMs === undefined ? '' : `start-up ${server.startupTimeoutMs} ms`,
    server.timeoutMs === undefined ? '' : `each call ${server.timeoutMs} ms`,
  ].filter((t) => t !== '');
  if (timeouts.length > 0) field('timeouts', timeouts.join(', '));
  if (server.middleware.length > 0) field('middleware', middlewareText(server.middleware));
  return lines;
}

/** How the gateway gets tokens for a remote server (never the client secret). */
function upstreamOAuthText(name: string, oauth: UpstreamOAuthOptions, hide: (text: string) => string): string {
  const grant = oauth.grant ?? 'authorization_code';
  const parts = [
    grant === 'authorization_code'
      ? `a person logs in (mcp-chain auth login ${name})${oauth.sharedLogin === true ? ', one login for every user' : ''}`
      : grant === 'client_credentials'
        ? 'client credentials'
        : 'token exchange of each user\'s token',
    oauth.client !== undefined
      ? `client ${hide(oauth.client.clientId)}${oauth.client.clientSecret === undefined ? '' : ' with a secret'}`
      : oauth.clientMetadataUrl !== undefined
        ? `client metadata document ${oauth.clientMetadataUrl}`
        : 'client registered at the first login',
  ];
  if (oauth.scopes !== undefined) parts.push(`scopes ${oauth.scopes.join(' ')}`);
  if (oauth.authorizationServer !== undefined) parts.push(`authorization server ${oauth.authorizationServer}`);
  if (oauth.redirectUri !== undefined) parts.push(`redirect ${oauth.redirectUri}`);
  if (oauth.tokenStore !== undefined) parts.push(`tokens in ${hide(oauth.tokenStore)}`);
  return parts.join('; ');
}

/** How the server's tools and prompts are named. */
function namesText(server: ServerConfig, config: GatewayConfig, enabledCount: number): string {
  const prefix = server.prefix === undefined ? (enabledCount > 1 ? defaultPrefix(server.name) : false) : server.prefix;
  if (prefix === false || prefix === '') {
    return server.prefix === undefined
      ? 'as the server gives them (the only server)'
      : 'as the server gives them (no prefix: a name an earlier server has is hidden)';
  }
  return `${safeName(prefix)}${config.naming.separator}<name>`;
}

function frontText(front: FrontConfig): string {
  if (front.kind === 'stdio') return 'stdio';
  const host = front.host.includes(':') ? `[${front.host}]` : front.host;
  const parts = [`Streamable HTTP at http://${host}:${front.port}${front.path}`];
  if (front.sse) parts.push('legacy HTTP+SSE too');
  if (front.tokens.length > 0) parts.push(`tokens: ${front.tokens.map((t) => t.id).join(', ')}`);
  else if (front.oauth === undefined) parts.push(front.allowUnauthenticated ? 'no token required (allowUnauthenticated)' : 'no token required');
  if (front.oauth !== undefined) parts.push('OAuth access tokens accepted');
  if (front.allowedOrigins) parts.push(`origins: ${front.allowedOrigins.join(', ')}`);
  if (front.allowedHosts) parts.push(`hosts: ${front.allowedHosts.join(', ')}`);
  if (front.sessionTtlMs !== undefined) parts.push(`sessions end after ${front.sessionTtlMs / 1000} s idle`);
  if (front.maxSessions !== undefined) parts.push(`at most ${front.maxSessions} sessions`);
  if (front.maxStartingSessions !== undefined) parts.push(`at most ${front.maxStartingSessions} starting at once`);
  return parts.join('; ');
}

/** `http.oauth` as validate shows it: the resource, the issuer, how tokens are checked; never the client secret. */
function oauthText(oauth: OAuthFrontConfig, hide: (text: string) => string): string {
  const url = (text: string): string => hide(withoutPassword(text));
  const parts = [`resource ${url(oauth.resource)}`, `issuer ${url(oauth.issuer)}`];
  if (oauth.authorizationServers.length !== 1 || oauth.authorizationServers[0] !== oauth.issuer) parts.push(`authorization servers ${oauth.authorizationServers.map(url).join(', ')}`);
  if (oauth.audience.length !== 1 || oauth.audience[0] !== oauth.resource) parts.push(`audience ${oauth.audience.map(hide).join(', ')}`);
  const check = oauth.tokens;
  parts.push(
    check.kind === 'jwt'
      ? `JWT access tokens, keys at ${url(check.jwksUri)}${check.algorithms === undefined ? '' : ` (${check.algorithms.join(', ')})`}`
      : `opaque tokens by introspection at ${url(check.endpoint)} as client ${hide(check.clientId)}`,
  );
  if (oauth.requiredScopes !== undefined && oauth.requiredScopes.length > 0) parts.push(`scopes required: ${oauth.requiredScopes.join(' ')}`);
  if (oauth.claims !== undefined && oauth.claims.length > 0) parts.push(`claims kept: ${oauth.claims.join(', ')}`);
  return parts.join('; ');
}

function timeoutsText(config: GatewayConfig): string {
  const t = config.timeouts;
  if (!t) return '';
  return [
    t.requestMs === undefined ? '' : `request ${t.requestMs} ms`,
    t.maxMs === undefined ? '' : `at most ${t.maxMs} ms`,
    t.startupMs === undefined ? '' : `start-up ${t.startupMs} ms`,
    t.listMs === undefined ? '' : `listing one server ${t.listMs} ms`,
  ]
    .filter((part) => part !== '')
    .join(', ');
}

/** Built-ins by name with the names of their options (option values may be secrets), modules by path. */
function middlewareText(list: readonly MiddlewareConfig[]): string {
  if (list.length === 0) return 'none';
  return list
    .map((m) => {
      switch (m.kind) {
        case 'builtin':
          return `${m.name}${optionNames(m.options)}`;
        case 'module':
          return `${m.module}${m.export === 'default' ? '' : `#${m.export}`}${optionNames(m.options)}`;
        case 'function':
          return m.middleware.name === '' ? 'a function' : `${m.middleware.name} (a function)`;
      }
    })
    .join(', then ');
}

function optionNames(options: Readonly<Record<string, unknown>>): string {
  const names = Object.keys(options);
  return names.length === 0 ? '' : ` (${names.join(', ')})`;
}

/** Replaces every value of `secrets` in a text by the `${NAME}` it came from; longest values first. */
function masker(secrets: ReadonlyMap<string, string>): (text: string) => string {
  // Values of one or two characters (a flag, a digit) would be masked everywhere they happen to appear, and are no secrets.
  const entries = [...secrets].filter(([, value]) => value.length >= 3).sort(([, a], [, b]) => b.length - a.length);
  return (text) => {
    let masked = text;
    for (const [name, value] of entries) masked = masked.replaceAll(value, `\${${name}}`);
    return masked;
  };
}

/** A URL with the password of its user info (if any) replaced by `***`. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.href;
  } catch {
    return url;
  }
}

/** A word as a POSIX shell would need it: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

import * as z from 'zod';
import type { Middleware } from '../chain/middleware.js';
import type { Upstream } from '../core/upstream.js';
import { IGNORED_ROOT_KEYS, IGNORED_SERVER_KEYS } from './client-keys.js';
import { COMMANDS_SCHEMA } from './command-tool-schema.js';
import { describeValue } from './describe-value.js';
import { isUpstream } from './is-upstream.js';
import { BUILTIN_MIDDLEWARE } from './middleware-registry.js';
import { suggest } from './suggest.js';

// The one description of a config file: it validates files (with the messages of
// zod-problems.ts) and becomes the JSON Schema that ships with the package
// (config-json-schema.ts). The client formats' keys are here as their clients write them;
// normalize-config.ts maps them onto GatewayConfig.

/** How the JSON Schema of a part differs from what zod would derive (functions, Upstream objects). */
export const JSON_SCHEMA_EDITS = new Map<z.core.$ZodType, (schema: Record<string, unknown>) => void>();

/**
 * What a custom part of the schema (one that takes anything and checks it itself) amounts to for
 * a given value, for messages about its keys: the middleware entry `{ "filter": {...} }` is an
 * object with the one key `filter`.
 */
export const EFFECTIVE_SCHEMA = new Map<z.ZodType, (value: unknown) => z.ZodType | undefined>();

/** A middleware entry after validation. */
export type MiddlewareEntry =
  | { readonly kind: 'builtin'; readonly name: string; readonly options: Record<string, unknown> }
  | { readonly kind: 'module'; readonly module: string; readonly export: string | undefined; readonly options: Record<string, unknown> }
  | { readonly kind: 'function'; readonly middleware: Middleware };

const milliseconds = z.number().int().positive();
const seconds = z.number().positive();
const strings = z.array(z.string());
const stringMap = z.record(z.string(), z.string());

const moduleEntry = z.strictObject({
  module: z.string().min(1).describe('A module exporting a middleware, or a function of `options` returning one; relative to the config file'),
  export: z.string().min(1).optional().describe('The export to use; default: the default export'),
  options: z.record(z.string(), z.unknown()).optional().describe('Passed to the exported function'),
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const EXPECTED_MIDDLEWARE = `a built-in's name (${Object.keys(BUILTIN_MIDDLEWARE).join(', ')}), { "<name>": { ...options } } or { "module": "./file.js" }`;

/** "unknown middleware "lgo"; did you mean "log"?" */
function unknownMiddleware(name: string): string {
  const close = suggest(name, Object.keys(BUILTIN_MIDDLEWARE));
  return `unknown middleware ${JSON.stringify(name)}${close ? `; did you mean ${JSON.stringify(close)}?` : `: expected ${EXPECTED_MIDDLEWARE}`}`;
}

/**
 * One entry of a `middleware` list: `"log"`, `{ "filter": { ...options } }`,
 * `{ "module": "./mw.js", "export"?: "name", "options"?: {...} }`, or (in a TypeScript config)
 * the middleware function itself. Options of built-ins are checked against their own schemas.
 */
const middlewareEntry = z.unknown().transform((value, ctx): MiddlewareEntry => {
  if (typeof value === 'function') return { kind: 'function', middleware: value as Middleware };
  if (typeof value === 'string') {
    if (Object.hasOwn(BUILTIN_MIDDLEWARE, value)) return { kind: 'builtin', name: value, options: {} };
    ctx.addIssue({ code: 'custom', message: unknownMiddleware(value) });
    return z.NEVER;
  }
  if (!isObject(value)) {
    ctx.addIssue({ code: 'custom', message: `expected ${EXPECTED_MIDDLEWARE}, found ${describeValue(value)}` });
    return z.NEVER;
  }
  if ('module' in value) {
    const parsed = moduleEntry.safeParse(value);
    if (parsed.success) return { kind: 'module', module: parsed.data.module, export: parsed.data.export, options: parsed.data.options ?? {} };
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue });
    return z.NEVER;
  }
  const keys = Object.keys(value);
  const [name] = keys;
  if (name === undefined || keys.length > 1) {
    ctx.addIssue({ code: 'custom', message: `expected ${EXPECTED_MIDDLEWARE}, found an object with ${keys.length === 0 ? 'no keys' : `the keys ${keys.map((key) => JSON.stringify(key)).join(', ')}`}` });
    return z.NEVER;
  }
  const builtin = BUILTIN_MIDDLEWARE[name];
  if (builtin === undefined || !Object.hasOwn(BUILTIN_MIDDLEWARE, name)) {
    ctx.addIssue({ code: 'custom', path: [name], message: unknownMiddleware(name) });
    return z.NEVER;
  }
  const parsed = builtin.options.safeParse(value[name] ?? {});
  if (parsed.success) return { kind: 'builtin', name, options: parsed.data };
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [name, ...issue.path] });
  return z.NEVER;
});
EFFECTIVE_SCHEMA.set(middlewareEntry, (value) => {
  if (!isObject(value)) return undefined;
  if ('module' in value) return moduleEntry;
  const [name] = Object.keys(value);
  const builtin = name === undefined || !Object.hasOwn(BUILTIN_MIDDLEWARE, name) ? undefined : BUILTIN_MIDDLEWARE[name];
  return builtin && name !== undefined ? z.strictObject({ [name]: builtin.options }) : undefined;
});
JSON_SCHEMA_EDITS.set(middlewareEntry, (schema) => {
  const names = Object.keys(BUILTIN_MIDDLEWARE);
  for (const key of Object.keys(schema)) Reflect.deleteProperty(schema, key);
  Object.assign(schema, {
    description: 'A middleware: a built-in by name, a built-in with options, or a module',
    anyOf: [
      { type: 'string', enum: names, description: 'A built-in with its default options' },
      ...names.map((name) => {
        const builtin = BUILTIN_MIDDLEWARE[name] as (typeof BUILTIN_MIDDLEWARE)[string];
        const options = z.toJSONSchema(builtin.options, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
        delete options.$schema;
        return { type: 'object', description: builtin.description, properties: { [name]: options }, required: [name], additionalProperties: false };
      }),
      (() => {
        const json = z.toJSONSchema(moduleEntry, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
        delete json.$schema;
        return json;
      })(),
    ],
  });
});

const middlewareList = z.array(middlewareEntry).describe('In the order they run, client to server');

const toolRule = z
  .strictObject({
    allow: strings.optional().describe('Only these tools (names or globs, as the server names them)'),
    deny: strings.optional().describe('Never these tools (names or globs); deny wins over allow'),
  })
  .describe("Which of the server's tools to show");

const upstreamObject = z.custom<Upstream>(isUpstream, { message: 'expected an Upstream object (`local({...})`, a chain, `stdio({...})`): only in a TypeScript or JavaScript config' });

const oauthScopes = z.array(z.string().min(1).regex(/^[^\s"\\]+$/, 'expected a scope (no spaces, quotes or backslashes)'));

/**
 * A remote server's `oauth`: how the gateway gets access tokens for it (MCP authorization, the
 * gateway as an OAuth client). Claude Code's keys (`clientId`, `callbackPort`, `scopes` as one
 * string) and Gemini CLI's (`enabled`, `clientId`, `clientSecret`, `scopes`, `redirectUri`, and
 * its endpoint keys, which mcp-chain discovers instead) are accepted as they write them.
 */
const oauthUpstream = z
  .strictObject({
    grant: z
      .enum(['authorization_code', 'client_credentials', 'token_exchange'])
      .optional()
      .describe('authorization_code (default): a person logs in in a browser (`mcp-chain auth login <server>`); client_credentials: machine to machine (needs `client`); token_exchange: each user of an authenticating HTTP front gets a token exchanged from their own (RFC 8693, needs `tokenExchange`)'),
    client: z
      .strictObject({
        clientId: z.string().min(1).describe('The client id registered with the authorization server. May use ${VAR}'),
        clientSecret: z.string().min(1).optional().describe('A confidential client\'s secret, usually "${SECRET}"; never shown or logged'),
        tokenEndpointAuthMethod: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional().describe('How it authenticates at the token endpoint (default client_secret_basic with a secret, else none)'),
      })
      .optional()
      .describe('A client registered beforehand (else the Client ID Metadata Document, else Dynamic Client Registration)'),
    clientId: z.string().min(1).optional().describe('(Claude Code, Gemini CLI) As `client.clientId`'),
    clientSecret: z.string().min(1).optional().describe('(Gemini CLI) As `client.clientSecret`'),
    clientMetadataUrl: z.string().min(1).optional().describe('An https URL serving this gateway\'s Client ID Metadata Document, its `client_id` where the authorization server supports it'),
    clientName: z.string().min(1).optional().describe('The name shown on the consent screen when registering dynamically (default mcp-chain)'),
    scopes: z.union([oauthScopes, z.string()]).optional().describe('Scopes to ask for (a list, or one space-separated string as Claude Code writes it); default: the scope of the server\'s challenge, else its scopes_supported'),
    redirectUri: z.string().min(1).optional().describe('The login\'s redirect URI: loopback http (http://127.0.0.1:<port>/callback; mcp-chain listens there), or an address of the gateway\'s HTTP front (https://mcp.example.com/oauth/callback: the front serves that path, so each user of a team gateway logs in from their own browser); default: a free loopback port'),
    callbackPort: z.number().int().min(1).max(65535).optional().describe('(Claude Code) The redirect URI is http://localhost:<port>/callback'),
    authorizationServer: z.string().min(1).optional().describe('The authorization server\'s issuer, skipping protected resource discovery'),
    resource: z.string().min(1).optional().describe('The resource indicator (RFC 8707); default: the protected resource metadata\'s resource, else the server\'s URL'),
    tokenExchange: z
      .strictObject({
        tokenEndpoint: z.string().min(1).optional().describe('The identity provider\'s token endpoint; default: the front\'s issuer\'s, by discovery'),
        clientId: z.string().min(1).describe('The gateway\'s client at the identity provider'),
        clientSecret: z.string().min(1).optional().describe('Its secret, usually "${SECRET}"; never shown or logged'),
        tokenEndpointAuthMethod: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional(),
        audience: z.string().min(1).optional().describe('`audience` of the exchange request'),
        requestedTokenType: z.string().min(1).optional().describe('`requested_token_type` (default urn:ietf:params:oauth:token-type:access_token)'),
      })
      .optional()
      .describe('grant token_exchange: how each user\'s token from the front is exchanged for one for this server'),
    sharedLogin: z.boolean().optional().describe('Users of an authenticating HTTP front use the login of the person running mcp-chain instead of each logging in (default false)'),
    tokenStore: z.string().min(1).optional().describe('The token file, relative to the config file (default $MCP_CHAIN_TOKEN_STORE, else $XDG_CONFIG_HOME/mcp-chain/tokens.json)'),
    openBrowser: z.boolean().optional().describe('Open the login URL in a browser when there is a desktop (default true)'),
    enabled: z.boolean().optional().describe('(Gemini CLI) false: no OAuth for this server'),
    authorizationUrl: z.string().optional().describe('(Gemini CLI) Accepted and ignored: mcp-chain discovers the endpoints'),
    tokenUrl: z.string().optional().describe('(Gemini CLI) Accepted and ignored: mcp-chain discovers the endpoints'),
    registrationUrl: z.string().optional().describe('(Gemini CLI) Accepted and ignored: mcp-chain discovers the endpoints'),
    audiences: z.array(z.string()).optional().describe('(Gemini CLI) Accepted and ignored: mcp-chain sends the resource indicator (RFC 8707)'),
    tokenParamName: z.string().optional().describe('(Gemini CLI) Accepted and ignored'),
    authServerMetadataUrl: z.string().optional().describe('(Claude Code) Accepted and ignored: use `authorizationServer` (the issuer)'),
  })
  .describe('Get access tokens for this remote server as an OAuth client (MCP authorization): log in with `mcp-chain auth login <server>`');

/** One server, in any of the client shapes. */
export const SERVER_SCHEMA = z
  .strictObject({
    type: z
      .enum(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'])
      .optional()
      .describe('stdio: `command`; http (or streamable-http): Streamable HTTP at `url`; sse: legacy HTTP+SSE. Default: stdio with `command`, http with `url`'),
    command: z.string().min(1).optional().describe('The program to start (stdio). May use ${VAR}'),
    args: strings.optional().describe('Its arguments. May use ${VAR}'),
    env: stringMap.optional().describe('Environment variables for it, beside a safe default set (PATH, HOME, ...). Values may use ${VAR}'),
    envFile: z.string().min(1).optional().describe('A dotenv file of environment variables, relative to the config file; `env` wins'),
    env_vars: strings.optional().describe('(Codex) Variables passed on from mcp-chain\'s own environment'),
    cwd: z.string().min(1).optional().describe('Its working directory, relative to the config file'),
    url: z.string().min(1).optional().describe('The MCP endpoint of a remote server (Streamable HTTP unless `type` is sse). May use ${VAR}'),
    httpUrl: z.string().min(1).optional().describe('(Gemini CLI) A Streamable HTTP endpoint'),
    serverUrl: z.string().min(1).optional().describe('(Windsurf) A remote endpoint, as `url`'),
    headers: stringMap.optional().describe('HTTP headers sent with every request. Values may use ${VAR}'),
    http_headers: stringMap.optional().describe('(Codex) As `headers`'),
    env_http_headers: stringMap.optional().describe('(Codex) Header name -> the environment variable holding its value'),
    bearer_token_env_var: z.string().min(1).optional().describe('(Codex) The environment variable holding a bearer token'),
    oauth: oauthUpstream.optional(),
    upstream: upstreamObject.optional().describe('(TypeScript configs) The server as an Upstream object'),
    commands: COMMANDS_SCHEMA.optional(),
    disabled: z.boolean().optional().describe('Left out when true'),
    enabled: z.boolean().optional().describe('Left out when false'),
    timeoutMs: milliseconds.optional().describe('Deadline of each request to it, ms'),
    timeout: milliseconds.optional().describe('(Gemini CLI) As timeoutMs: deadline of each request to it, ms'),
    tool_timeout_sec: seconds.optional().describe('(Codex) Deadline of each request to it, seconds'),
    startupTimeoutMs: milliseconds.optional().describe('How long it may take to start and initialize, ms (default 30000)'),
    startupTimeout: milliseconds.optional().describe('As startupTimeoutMs (its older spelling), ms'),
    startup_timeout_sec: seconds.optional().describe('(Codex) How long it may take to start, seconds'),
    startup_timeout_ms: milliseconds.optional().describe('(Codex) How long it may take to start, ms'),
    tools: toolRule.optional(),
    includeTools: strings.optional().describe('(Gemini CLI) Only these tools'),
    excludeTools: strings.optional().describe('(Gemini CLI) Never these tools; wins over includeTools'),
    enabled_tools: strings.optional().describe('(Codex) Only these tools'),
    disabled_tools: strings.optional().describe('(Codex) Never these tools'),
    prefix: z
      .union([z.string().regex(/^[A-Za-z0-9_-]*$/, 'expected only letters, digits, "_" and "-"'), z.literal(false)])
      .optional()
      .describe('What its tools and prompts are prefixed with (`<prefix>__<tool>`); default: the server\'s key; false: none'),
    isolation: z.enum(['session', 'shared']).optional().describe('session (default): one connection per client session; shared: one for all'),
    middleware: middlewareList.optional().describe('Middleware in front of this server alone, client to server'),
    ...Object.fromEntries(Object.entries(IGNORED_SERVER_KEYS).map(([key, client]) => [key, z.unknown().optional().describe(`(${client}) Accepted and ignored`)])),
  })
  .describe('One MCP server: `command` (stdio), `url` (HTTP), or `commands` (command-line programs as tools)');
JSON_SCHEMA_EDITS.set(SERVER_SCHEMA, (schema) => {
  delete (schema.properties as Record<string, unknown>).upstream;
});

/** A server as a TypeScript config may also give it: the Upstream object alone. */
const serverEntry = z.preprocess((value) => (isUpstream(value) ? { upstream: value } : value), SERVER_SCHEMA);
JSON_SCHEMA_EDITS.set(serverEntry, (schema) => {
  for (const key of Object.keys(schema)) Reflect.deleteProperty(schema, key);
  Object.assign(schema, { $ref: '#/definitions/server' });
});

const servers = z.record(z.string().min(1, 'a server needs a name'), serverEntry);

const token = z.union([
  z.string().min(1).describe('A bearer token (or X-API-Key), usually "${TOKEN}"'),
  z.strictObject({ id: z.string().min(1).describe('Who presents it (in logs)'), token: z.string().min(1).describe('The token, usually "${TOKEN}"') }),
]);

const scopeList = z.array(z.string().min(1).regex(/^[^\s"\\]+$/, 'expected a scope (no spaces, quotes or backslashes)'));

const oauthFront = z
  .strictObject({
    resource: z.string().min(1).describe('This gateway\'s public URL, its resource identifier (RFC 8707), such as "https://mcp.example.com/mcp": tokens must be minted for it. May use ${VAR}'),
    issuer: z.string().min(1).describe('The authorization server\'s issuer; JWT access tokens must carry it as `iss`. Listed in the protected resource metadata unless `authorizationServers` is given. May use ${VAR}'),
    authorizationServers: z.array(z.string().min(1)).min(1).optional().describe('`authorization_servers` of the protected resource metadata; default: [issuer]'),
    jwksUri: z.string().min(1).optional().describe('JWT access tokens are checked against the keys here (fetched on the first token, cached, fetched again on an unknown key). No discovery: give it. Exactly one of `jwksUri` and `introspection`'),
    introspection: z
      .strictObject({
        endpoint: z.string().min(1).describe('The introspection endpoint (RFC 7662). May use ${VAR}'),
        clientId: z.string().min(1).describe('This gateway\'s client id at the authorization server. May use ${VAR}'),
        clientSecret: z.string().min(1).describe('Its client secret, usually "${SECRET}"; never shown or logged'),
        clientAuth: z.enum(['client_secret_basic', 'client_secret_post']).optional().describe('How the client authenticates (default client_secret_basic)'),
        cacheMs: z.number().int().min(0).optional().describe('How long an answer is reused, ms (default 30000, never past the token\'s exp; 0: no cache)'),
      })
      .optional()
      .describe('Opaque access tokens, checked by introspection. Exactly one of `jwksUri` and `introspection`'),
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional().describe('The audience tokens must carry (`aud`); default: `resource`'),
    requiredScopes: scopeList.optional().describe('Scopes every request needs (403 insufficient_scope without one)'),
    scopesSupported: scopeList.optional().describe('`scopes_supported` of the protected resource metadata; default: `requiredScopes`'),
    claims: z.array(z.string().min(1)).optional().describe('Claims of the token copied into the session\'s identity (`ctx.session.identity.claims`)'),
    resourceName: z.string().min(1).optional().describe('`resource_name` of the protected resource metadata'),
    algorithms: z.array(z.string().min(1)).min(1).optional().describe('JWT signature algorithms accepted (default RS*, PS*, ES*, EdDSA); `none` and HS* are never accepted'),
    clockToleranceSec: z.number().min(0).max(300).optional().describe('Tolerance for exp and nbf, seconds (default 30)'),
  })
  .describe('Accept the access tokens an OAuth authorization server issues (MCP authorization): the front becomes an OAuth resource server, beside any static `tokens`');

const httpFront = z
  .strictObject({
    host: z.string().min(1).optional().describe('Default 127.0.0.1. Beyond loopback needs `tokens`, `oauth` or `allowUnauthenticated`'),
    port: z.number().int().min(0).max(65535).optional().describe('Default 8080; 0 picks a free one'),
    path: z.string().regex(/^\//, 'expected a path starting with "/"').optional().describe('Default /mcp'),
    tokens: z.array(token).optional().describe('Accepted bearer tokens; values may use ${VAR} (and should)'),
    allowedOrigins: strings.optional().describe('Browser origins allowed besides the server\'s own'),
    allowedHosts: strings.optional().describe('Host headers accepted besides the address listened on'),
    sessionTtl: milliseconds.optional().describe('An idle session ends after this long, ms'),
    maxSessions: z.number().int().positive().optional().describe('At most this many sessions at once'),
    maxStartingSessions: z.number().int().positive().optional().describe('At most this many sessions starting at once (the next wait their turn, up to 10 s; beyond, 503 with Retry-After). Default: twice the cores, at least 4'),
    allowUnauthenticated: z.boolean().optional().describe('Listen beyond loopback without tokens'),
    sse: z.boolean().optional().describe('Also serve the legacy HTTP+SSE endpoints'),
    oauth: oauthFront.optional(),
  })
  .describe('Serve over Streamable HTTP instead of stdio');

/**
 * The circuit breaker of each server: the keys of `AggregateOptions.breaker` in code (a test holds
 * them together), and the older spellings of three, still read.
 */
export const breakerObject = z.strictObject({
  failureThreshold: z.number().int().positive().optional().describe('Failures in a row that open a member\'s circuit (5)'),
  openMs: milliseconds.optional().describe('How long an open circuit fails calls at once before one probe, ms (1000)'),
  factor: z.number().min(1).optional().describe('Each failed probe keeps it open this many times longer (2)'),
  maxOpenMs: milliseconds.optional().describe('The longest it stays open, ms (30000)'),
  failures: z.number().int().positive().optional().describe('As failureThreshold (its older spelling)'),
  open: milliseconds.optional().describe('As openMs (its older spelling)'),
  maxOpen: milliseconds.optional().describe('As maxOpenMs (its older spelling)'),
});

export const breakerOptions = z
  .union([z.literal(false), breakerObject])
  .describe('The circuit breaker of each server that is up but keeps failing calls (broken connection, HTTP 5xx, timeouts): its calls then fail at once with an error naming it, until a probe call succeeds. false: none');

/** A whole config file. */
export const CONFIG_SCHEMA = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors'),
    mcpServers: servers.optional().describe('The servers, keyed by name (Claude Desktop, Cursor, Claude Code, Windsurf, Gemini CLI)'),
    servers: servers.optional().describe('The servers, keyed by name (VS Code)'),
    mcp_servers: servers.optional().describe('The servers, keyed by name (Codex)'),
    http: httpFront.optional(),
    serverInfo: z
      .strictObject({ name: z.string().min(1), version: z.string().min(1), title: z.string().min(1).optional() })
      .optional()
      .describe('What the gateway calls itself in `initialize`'),
    timeouts: z
      .strictObject({
        request: milliseconds.optional().describe('Default deadline of a request, ms (60000)'),
        max: milliseconds.optional().describe('Hard maximum of a request, progress notwithstanding, ms (600000)'),
        startup: milliseconds.optional().describe('Default start-up deadline of each server, ms (30000)'),
        list: milliseconds.optional().describe('How long listing one server may take, ms (10000)'),
      })
      .optional(),
    drainMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('On SIGTERM or SIGINT, how long calls in flight may take to finish before they are cancelled, ms (10000; 0: at once). New sessions and requests are refused meanwhile'),
    breaker: breakerOptions.optional(),
    naming: z
      .strictObject({
        separator: z.string().regex(/^[A-Za-z0-9_-]+$/, 'expected letters, digits, "_" and "-" only').optional().describe('Between a prefix and a name (default "__")'),
        maxNameLength: z.number().int().min(16).optional().describe('Longer generated names are shortened (default 64)'),
        pageSize: z.number().int().positive().optional().describe('Items per page of merged lists (default: one page)'),
      })
      .optional(),
    middleware: middlewareList.optional().describe('Middleware in front of the whole gateway, client to server'),
    ...Object.fromEntries(Object.entries(IGNORED_ROOT_KEYS).map(([key, client]) => [key, z.unknown().optional().describe(`(${client}) Accepted and ignored`)])),
  })
  .describe('An mcp-chain gateway: many MCP servers behind one endpoint');
JSON_SCHEMA_EDITS.set(CONFIG_SCHEMA, (schema) => {
  // Other programs' settings are accepted in their files, but not suggested in ours.
  const properties = schema.properties as Record<string, unknown>;
  for (const key of Object.keys(IGNORED_ROOT_KEYS)) Reflect.deleteProperty(properties, key);
});

export type RawConfig = z.output<typeof CONFIG_SCHEMA>;
export type RawServer = z.output<typeof SERVER_SCHEMA>;

// Types only, and an identity function: exported from the package root, so it must cost nothing
// to import (no zod here). config-schema.ts is what checks a config. A built-in's options are its
// own type, inferred from the schema in its folder (src/middleware/<name>/options.ts) that checks
// them in a file too; the servers' keys are written here, and a test holds them to the schema.
import type { UpstreamOAuthOptions } from '../auth/client/upstream-oauth-options.js';
import type { Middleware } from '../chain/middleware.js';
import type { Upstream } from '../core/upstream.js';
import type { CommandTool } from '../upstream/commands/commands.js';
import type { FilterOptions, FilterRule } from '../middleware/filter/options.js';
import type { LogOptions } from '../middleware/log/options.js';
import type { RenameOptions } from '../middleware/rename/options.js';
import type { ApproveOptions } from '../middleware/approve/options.js';
import type { AuditOptions } from '../middleware/audit/options.js';
import type { CacheOptions } from '../middleware/cache/options.js';
import type { DiscoverOptions } from '../middleware/discover/options.js';
import type { LimitResultOptions } from '../middleware/limit-result/options.js';
import type { PinOptions } from '../middleware/pin/options.js';
import type { RateLimitOptions } from '../middleware/rate-limit/options.js';
import type { RedactOptions } from '../middleware/redact/options.js';
import type { RequireScopesOptions } from '../middleware/require-scopes/options.js';
import type { RetryOptions } from '../middleware/retry/options.js';
import type { TimeoutMiddlewareOptions } from '../middleware/timeout/options.js';
import type { TransformOptions } from '../middleware/transform/options.js';
import type { ValidateOptions } from '../middleware/validate/options.js';
import type { OptionsOf } from '../middleware/options-of.js';
import type { breakerObject } from './config-schema.js';

/**
 * The options of each built-in a config names, by name: the same type its function takes in code
 * (`filter(options)`), without what only code can give (clocks, loggers, objects).
 */
export interface BuiltinOptions {
  readonly filter: FilterOptions;
  readonly rename: RenameOptions;
  readonly log: LogOptions;
  readonly transform: TransformOptions;
  readonly validate: ValidateOptions;
  readonly rateLimit: RateLimitOptions;
  readonly cache: CacheOptions;
  readonly timeout: TimeoutMiddlewareOptions;
  readonly retry: RetryOptions;
  readonly redact: RedactOptions;
  readonly limitResult: LimitResultOptions;
  readonly audit: AuditOptions;
  readonly approve: ApproveOptions;
  readonly discover: DiscoverOptions;
  readonly pin: PinOptions;
  readonly requireScopes: RequireScopesOptions;
}

/** The built-in middleware a config names: `"log"`, or `{ log: { ...options } }`. */
export type BuiltinMiddlewareName = keyof BuiltinOptions;

/** A built-in with options: `{ filter: { tools: { deny: ['drop_*'] } } }`. */
export type BuiltinMiddlewareInput = { readonly [Name in BuiltinMiddlewareName]: { readonly [Key in Name]: BuiltinOptions[Name] } }[BuiltinMiddlewareName];

/**
 * One entry of a `middleware` list, in the order they run (client to server): a middleware
 * function, a built-in by name (with its default options) or with options, or a module that
 * exports a middleware (or a function of `options` returning one).
 */
export type MiddlewareInput =
  | Middleware
  | BuiltinMiddlewareName
  | BuiltinMiddlewareInput
  | {
      /** A path relative to the config file (`./audit.js`), or a package. */
      readonly module: string;
      /** Default: the default export. */
      readonly export?: string;
      readonly options?: Readonly<Record<string, unknown>>;
    };

/**
 * One server: `command` (a local server, over stdio), `url` (a remote one, over Streamable HTTP, or
 * legacy SSE with `type: 'sse'`), or `upstream` (an object: `local({...})`, a chain). The keys of
 * the client formats (`httpUrl`, `serverUrl`, `enabled_tools`, ...) are accepted too, as in their files.
 */
export interface ServerInput {
  /** Default: `stdio` with `command`, `http` with `url`. `streamable-http` and `streamableHttp` mean `http`. */
  readonly type?: 'stdio' | 'http' | 'streamable-http' | 'streamableHttp' | 'sse';
  /** The program to start. May use `${VAR}`, `${VAR:-default}`, `${env:VAR}` (as may args, env, cwd, url and headers). */
  readonly command?: string;
  readonly args?: readonly string[];
  /** Added to a safe default environment (PATH, HOME, ...). */
  readonly env?: Readonly<Record<string, string>>;
  /** A dotenv file, relative to the config file; `env` wins. */
  readonly envFile?: string;
  /** (Codex) Variables passed on from mcp-chain's own environment. */
  readonly env_vars?: readonly string[];
  /** Relative to the config file. */
  readonly cwd?: string;
  readonly url?: string;
  /**
   * Command-line programs run as tools by mcp-chain itself (instead of `command` or `url`): each
   * entry is a tool, its `args` a template of argv elements, never a shell string.
   */
  readonly commands?: Readonly<Record<string, CommandTool>>;
  /** (Gemini CLI) A Streamable HTTP endpoint. */
  readonly httpUrl?: string;
  /** (Windsurf) As `url`. */
  readonly serverUrl?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** (Codex) As `headers`. */
  readonly http_headers?: Readonly<Record<string, string>>;
  /** (Codex) Header name -> the environment variable holding its value. */
  readonly env_http_headers?: Readonly<Record<string, string>>;
  /** (Codex) The environment variable holding a bearer token. */
  readonly bearer_token_env_var?: string;
  /** Get access tokens for this remote server as an OAuth client (`mcp-chain auth login <server>`). */
  readonly oauth?: UpstreamOAuthInput;
  /** The server as an object (`local({...})`, a chain, `stdio({...})`). */
  readonly upstream?: Upstream;
  readonly disabled?: boolean;
  readonly enabled?: boolean;
  /** Deadline of each request to it, ms. */
  readonly timeoutMs?: number;
  /** (Gemini CLI) As `timeoutMs`. */
  readonly timeout?: number;
  /** (Codex) Deadline of each request to it, seconds. */
  readonly tool_timeout_sec?: number;
  /** How long it may take to start and initialize, ms (default 30 000). */
  readonly startupTimeoutMs?: number;
  /** As `startupTimeoutMs` (its older spelling). */
  readonly startupTimeout?: number;
  /** (Codex) Seconds. */
  readonly startup_timeout_sec?: number;
  /** (Codex) Milliseconds. */
  readonly startup_timeout_ms?: number;
  /** Which of its tools to show (names or globs as the server names them; deny wins). */
  readonly tools?: FilterRule;
  /** (Gemini CLI) Only these tools. */
  readonly includeTools?: readonly string[];
  /** (Gemini CLI) Never these tools. */
  readonly excludeTools?: readonly string[];
  /** (Codex) Only these tools. */
  readonly enabled_tools?: readonly string[];
  /** (Codex) Never these tools. */
  readonly disabled_tools?: readonly string[];
  /** Its tools and prompts are named `<prefix>__<name>`; default: its key (with several servers); false: no prefix. */
  readonly prefix?: string | false;
  /** `session` (default): one connection per client session; `shared`: one for all. */
  readonly isolation?: 'session' | 'shared';
  /** In front of this server alone. */
  readonly middleware?: readonly MiddlewareInput[];
}

/**
 * A remote server's `oauth`: {@link UpstreamOAuthOptions} (values may use `${VAR}`; a relative
 * `tokenStore` is relative to the config file), and the keys Claude Code and Gemini CLI write.
 */
export interface UpstreamOAuthInput extends Omit<UpstreamOAuthOptions, 'scopes'> {
  /** Scopes to ask for: a list, or one space-separated string (as Claude Code writes it). */
  readonly scopes?: readonly string[] | string | undefined;
  /** (Claude Code, Gemini CLI) As `client.clientId`. */
  readonly clientId?: string;
  /** (Gemini CLI) As `client.clientSecret`. */
  readonly clientSecret?: string;
  /** (Claude Code) The redirect URI is `http://localhost:<port>/callback`. */
  readonly callbackPort?: number;
  /** (Gemini CLI) `false`: no OAuth for this server. */
  readonly enabled?: boolean;
  /** (Gemini CLI) Ignored: mcp-chain discovers the endpoints. */
  readonly authorizationUrl?: string;
  /** (Gemini CLI) Ignored: mcp-chain discovers the endpoints. */
  readonly tokenUrl?: string;
  /** (Gemini CLI) Ignored: mcp-chain discovers the endpoints. */
  readonly registrationUrl?: string;
  /** (Gemini CLI) Ignored: mcp-chain sends the resource indicator. */
  readonly audiences?: readonly string[];
  /** (Gemini CLI) Ignored. */
  readonly tokenParamName?: string;
  /** (Claude Code) Ignored: give `authorizationServer` (the issuer). */
  readonly authServerMetadataUrl?: string;
}

/** Serving over Streamable HTTP instead of stdio. */
export interface HttpFrontInput {
  /** Default 127.0.0.1. Beyond loopback needs `tokens`, `oauth` or `allowUnauthenticated`. */
  readonly host?: string;
  /** Default 8080. */
  readonly port?: number;
  /** Default `/mcp`. */
  readonly path?: string;
  /** Accepted bearer tokens, usually `'${TOKEN}'`, or with the name they are logged under. */
  readonly tokens?: readonly (string | { readonly id: string; readonly token: string })[];
  readonly allowedOrigins?: readonly string[];
  readonly allowedHosts?: readonly string[];
  /** An idle session ends after this long, ms. */
  readonly sessionTtl?: number;
  readonly maxSessions?: number;
  /** At most this many sessions starting at once (the next wait their turn, up to 10 s; beyond, 503). Default: twice the cores, at least 4. */
  readonly maxStartingSessions?: number;
  readonly allowUnauthenticated?: boolean;
  /** Also serve the legacy HTTP+SSE endpoints. */
  readonly sse?: boolean;
  /** Accept the access tokens an OAuth authorization server issues (the front as a resource server). */
  readonly oauth?: OAuthFrontInput;
}

/** `http.oauth`: the front as an OAuth resource server. Give exactly one of `jwksUri` and `introspection`. */
export interface OAuthFrontInput {
  /** This gateway's public URL, its resource identifier: tokens must be minted for it. */
  readonly resource: string;
  /** The authorization server's issuer (`iss` of JWTs; the metadata's authorization server by default). */
  readonly issuer: string;
  /** `authorization_servers` of the protected resource metadata; default `[issuer]`. */
  readonly authorizationServers?: readonly string[];
  /** JWT access tokens are checked against the keys here. */
  readonly jwksUri?: string;
  /** Opaque access tokens are introspected (RFC 7662) with these client credentials. */
  readonly introspection?: {
    readonly endpoint: string;
    readonly clientId: string;
    /** Usually `'${SECRET}'`; never shown or logged. */
    readonly clientSecret: string;
    readonly clientAuth?: 'client_secret_basic' | 'client_secret_post';
    /** How long an answer is reused, ms (default 30 000). */
    readonly cacheMs?: number;
  };
  /** The `aud` tokens must carry; default `resource`. */
  readonly audience?: string | readonly string[];
  /** Scopes every request needs. */
  readonly requiredScopes?: readonly string[];
  /** `scopes_supported` of the metadata; default `requiredScopes`. */
  readonly scopesSupported?: readonly string[];
  /** Claims copied into `ctx.session.identity.claims`. */
  readonly claims?: readonly string[];
  /** `resource_name` of the metadata. */
  readonly resourceName?: string;
  /** JWT algorithms accepted (asymmetric only). */
  readonly algorithms?: readonly string[];
  /** Tolerance for `exp` and `nbf`, seconds (default 30). */
  readonly clockToleranceSec?: number;
}

/** A gateway's config, as `mcp-chain.config.ts` writes it. */
export interface ConfigInput {
  readonly $schema?: string;
  /** The servers, by name (the `mcpServers` of Claude Desktop, Cursor, ...). In file order: the first wins a name two servers have. */
  readonly mcpServers?: Readonly<Record<string, ServerInput | Upstream>>;
  /** As `mcpServers` (VS Code's key). */
  readonly servers?: Readonly<Record<string, ServerInput | Upstream>>;
  /** As `mcpServers` (Codex's key). */
  readonly mcp_servers?: Readonly<Record<string, ServerInput | Upstream>>;
  /** Serve over Streamable HTTP; without it, stdio. */
  readonly http?: HttpFrontInput;
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string };
  /** Milliseconds. */
  readonly timeouts?: { readonly request?: number; readonly max?: number; readonly startup?: number; readonly list?: number };
  /** On SIGTERM or SIGINT, how long calls in flight may take to finish before they are cancelled, ms (default 10000; 0: at once). */
  readonly drainMs?: number;
  /** The circuit breaker of each server that is up but keeps failing calls; false: none. */
  readonly breaker?: false | BreakerInput;
  readonly naming?: { readonly separator?: string; readonly maxNameLength?: number; readonly pageSize?: number };
  /** In front of the whole gateway. */
  readonly middleware?: readonly MiddlewareInput[];
}

/** The circuit breaker of each server, named as `aggregate({ breaker })` names it (see `breakerOptions`). */
export interface BreakerInput extends OptionsOf<typeof breakerObject> {}

/**
 * Types a config written in TypeScript (`mcp-chain.config.ts`); returns it unchanged. It is
 * checked when loaded, as a JSON file would be.
 *
 * @example
 * import { defineConfig, local } from 'mcp-chain';
 * export default defineConfig({
 *   mcpServers: {
 *     github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
 *     notes: local({ name: 'notes', version: '1.0.0', tools: [] }),
 *   },
 *   middleware: ['log', async (ctx, next) => next()],
 * });
 */
export function defineConfig(config: ConfigInput): ConfigInput {
  return config;
}

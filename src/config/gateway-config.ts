import type { UpstreamOAuthOptions } from '../auth/client/upstream-oauth-options.js';
import type { Middleware } from '../chain/middleware.js';
import type { Upstream } from '../core/upstream.js';
import type { CommandTool } from '../upstream/commands/command-options.js';
import type * as z from 'zod';
import type { breakerObject } from './config-schema.js';

/**
 * A config file after loading, validation and `${VAR}` interpolation: what `mcp-chain serve` and
 * `mcp-chain validate` work from. Every field is resolved (no variables left, defaults applied
 * where the file format has one); the keys of the client formats (`mcpServers`, `servers`,
 * `[mcp_servers.*]`, `httpUrl`, `serverUrl`, `enabled_tools`, ...) are mapped onto these.
 */
export interface GatewayConfig {
  /** The absolute path of the file it was read from. */
  readonly file: string;
  /** In file order (which decides who wins a name or a URI two servers both have). Disabled ones included, marked. */
  readonly servers: readonly ServerConfig[];
  readonly front: FrontConfig;
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string } | undefined;
  readonly timeouts?: GatewayTimeouts | undefined;
  /** On SIGTERM or SIGINT, how long calls in flight may take to finish, ms (undefined: the default, 10 s). */
  readonly drainMs?: number | undefined;
  /** The circuit breaker of each member (undefined: the defaults; false: none). See `AggregateOptions.breaker`. */
  readonly breaker?: false | BreakerConfig | undefined;
  readonly naming: NamingConfig;
  /** For the whole gateway, in the order they run (client → server). */
  readonly middleware: readonly MiddlewareConfig[];
}

/** The breaker of a file (`breakerObject`), its older spellings read into these. */
export type BreakerConfig = Omit<z.output<typeof breakerObject>, 'failures' | 'open' | 'maxOpen'>;

export interface NamingConfig {
  /** Default `__`. */
  readonly separator: string;
  /** Default 64. */
  readonly maxNameLength: number;
  /** Items per page of merged lists; undefined: one page. */
  readonly pageSize?: number | undefined;
}

export interface GatewayTimeouts {
  /** Default deadline of a request, ms (the session's). */
  readonly requestMs?: number | undefined;
  /** The hard maximum, ms, progress notwithstanding. */
  readonly maxMs?: number | undefined;
  /** Default start-up deadline of each server, ms. */
  readonly startupMs?: number | undefined;
  /** How long listing one server may take, ms. */
  readonly listMs?: number | undefined;
}

export type ServerConfig = StdioServerConfig | RemoteServerConfig | InProcessServerConfig | CommandsServerConfig;

interface ServerConfigBase {
  /** Its key in the file. */
  readonly name: string;
  readonly disabled: boolean;
  /** `<prefix>__<tool>`; undefined: the default (the key, mapped to `[A-Za-z0-9_-]`); false: no prefix. */
  readonly prefix?: string | false | undefined;
  /** Start-up deadline, ms. */
  readonly startupTimeoutMs?: number | undefined;
  /** Deadline of each call, ms (`timeoutMs`; Gemini's `timeout`, Codex's `tool_timeout_sec`). */
  readonly timeoutMs?: number | undefined;
  /** Tool names or globs, as the server names them (before any prefix). */
  readonly tools?: { readonly allow?: readonly string[] | undefined; readonly deny?: readonly string[] | undefined } | undefined;
  /** `session` (default): one connection per client session; `shared`: one for all sessions. */
  readonly isolation: 'session' | 'shared';
  /** Its own middleware, in front of it alone. */
  readonly middleware: readonly MiddlewareConfig[];
  /** Where in the file it was defined, for messages: `mcpServers.github`. */
  readonly path: string;
}

export interface StdioServerConfig extends ServerConfigBase {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Interpolated, with `envFile` merged in (the file's own `env` wins). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
}

export interface RemoteServerConfig extends ServerConfigBase {
  /** `http`: Streamable HTTP; `sse`: legacy HTTP+SSE. */
  readonly transport: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * `oauth`: the gateway gets access tokens for it as an OAuth client. Interpolated; the client
   * formats' keys mapped (Claude Code's `clientId`/`callbackPort`, Gemini CLI's `clientId`/
   * `clientSecret`); `tokenStore` absolute. Secrets in it are never logged.
   */
  readonly oauth?: UpstreamOAuthOptions | undefined;
}

/** A server given as an object in a TypeScript config: `local({...})`, a chain, any Upstream. */
export interface InProcessServerConfig extends ServerConfigBase {
  readonly transport: 'upstream';
  readonly upstream: Upstream;
}

/** `commands`: command-line programs as tools, run by mcp-chain itself (`commands()`). */
export interface CommandsServerConfig extends ServerConfigBase {
  readonly transport: 'commands';
  /** The tools by name, interpolated, each `cwd` absolute. */
  readonly commands: Readonly<Record<string, CommandTool>>;
  /** Of every tool (a tool's own `env` wins); `envFile` merged in. */
  readonly env: Readonly<Record<string, string>>;
  /** Default working directory of the tools, absolute. */
  readonly cwd?: string | undefined;
}

export type FrontConfig =
  | { readonly kind: 'stdio' }
  | {
      readonly kind: 'http';
      readonly host: string;
      readonly port: number;
      /** Default `/mcp`. */
      readonly path: string;
      /** Accepted bearer tokens (already interpolated: secrets; never logged). */
      readonly tokens: readonly { readonly id: string; readonly token: string }[];
      readonly allowedOrigins?: readonly string[] | undefined;
      readonly allowedHosts?: readonly string[] | undefined;
      readonly sessionTtlMs?: number | undefined;
      readonly maxSessions?: number | undefined;
      readonly maxStartingSessions?: number | undefined;
      readonly allowUnauthenticated: boolean;
      /** Also serve the legacy HTTP+SSE endpoints. */
      readonly sse: boolean;
      /** The front as an OAuth resource server (`http.oauth`), beside any static tokens. */
      readonly oauth?: OAuthFrontConfig | undefined;
    };

/**
 * `http.oauth`, interpolated and checked: which access tokens the front accepts and what its
 * protected resource metadata says. The client secret of introspection is a secret: never logged.
 */
export interface OAuthFrontConfig {
  /** This gateway's resource identifier (its public URL). */
  readonly resource: string;
  /** The authorization server's issuer. */
  readonly issuer: string;
  /** `authorization_servers` of the metadata (default: `[issuer]`). */
  readonly authorizationServers: readonly string[];
  /** The audience tokens must carry (default: `[resource]`). */
  readonly audience: readonly string[];
  /** How tokens are checked: JWTs against the issuer's keys, or opaque ones by introspection. */
  readonly tokens: OAuthTokenCheck;
  readonly requiredScopes?: readonly string[] | undefined;
  readonly scopesSupported?: readonly string[] | undefined;
  readonly claims?: readonly string[] | undefined;
  readonly resourceName?: string | undefined;
  /** Tolerance for `exp` and `nbf`, seconds. */
  readonly clockToleranceSec?: number | undefined;
}

export type OAuthTokenCheck =
  | { readonly kind: 'jwt'; readonly jwksUri: string; readonly algorithms?: readonly string[] | undefined }
  | {
      readonly kind: 'introspection';
      readonly endpoint: string;
      readonly clientId: string;
      /** A secret: never logged or shown. */
      readonly clientSecret: string;
      readonly clientAuth?: 'client_secret_basic' | 'client_secret_post' | undefined;
      readonly cacheMs?: number | undefined;
    };

/**
 * One entry of a `middleware` list: a built-in by name with its options (`{ use: 'filter', tools: {...} }`
 * in a file, `'log'` alone), a module path exporting one, or (in a TypeScript config) the function itself.
 */
export type MiddlewareConfig =
  | { readonly kind: 'builtin'; readonly name: string; readonly options: Readonly<Record<string, unknown>>; readonly path: string }
  | { readonly kind: 'module'; readonly module: string; readonly export: string; readonly options: Readonly<Record<string, unknown>>; readonly path: string }
  | { readonly kind: 'function'; readonly middleware: Middleware; readonly path: string };

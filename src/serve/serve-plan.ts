import type { FrontConfig, GatewayConfig } from '../config/gateway-config.js';
import type { LogLevel } from '../log/logger.js';
import type { HttpOptions } from '../upstream/http/http-options.js';
import type { ServerCommand } from '../upstream/spawn-server.js';

/**
 * Everything `serve(plan)` needs to serve, and nothing else: what to serve (a config file's
 * gateway, or a chain in front of one server), the sessions' limits, the front and its auth, how
 * to drain, how much to log. `proxy`, `run` and `serve` are three ways to build one
 * ({@link buildServePlan}: a config file and the command line's flags, the flags winning);
 * `validate` prints it. Plain data: secrets in it (tokens, client secrets) are never logged.
 */
export interface ServePlan {
  readonly upstream: UpstreamPlan;
  readonly session: SessionPlan;
  readonly front: FrontPlan;
  /** On SIGTERM or SIGINT, how long calls in flight may take to finish, ms (0: none). */
  readonly drainMs: number;
  /** undefined: `MCP_CHAIN_LOG_LEVEL`, else info. */
  readonly logLevel?: LogLevel | undefined;
  /**
   * `--watch`: re-read the config file when it changes (a gateway's only); `frontFromFlags`: the
   * command line said where to listen, so changes to the file's front need no restart warning.
   * undefined: not watched.
   */
  readonly watch?: { readonly frontFromFlags: boolean } | undefined;
}

/** What is served: a config file's servers merged into one gateway, or a chain in front of one server. */
export type UpstreamPlan =
  | { readonly kind: 'gateway'; readonly config: GatewayConfig }
  | {
      readonly kind: 'chain';
      /** The chain file of `mcp-chain run <file>`; undefined: an empty chain. */
      readonly chainFile?: string | undefined;
      /** The server behind the chain (after `--`, or `--url`); undefined: the chain file names its own. */
      readonly server?: ServerTarget | undefined;
      /** One upstream connection for every session (`--shared`) instead of one each. */
      readonly shared: boolean;
    };

/** One server: a command to start on stdio, or a remote one on HTTP. */
export type ServerTarget = { readonly kind: 'stdio'; readonly command: ServerCommand } | { readonly kind: 'http'; readonly options: HttpOptions };

/** What every session of the front is given. */
export interface SessionPlan {
  /** The serverInfo clients see; undefined: the upstream's own. */
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string } | undefined;
  /** The default deadline of a forwarded request and its hard maximum, ms; undefined: the session's defaults. */
  readonly timeouts: { readonly requestMs?: number | undefined; readonly maxMs?: number | undefined };
  /** The largest message accepted from a stdio client (HTTP has its own body limit). */
  readonly maxMessageBytes?: number | undefined;
}

/** stdio, or HTTP with its listener, tokens, OAuth and limits (the config file's `http` section with the flags over it). */
export type FrontPlan = FrontConfig;

import type { LogLevel } from '../log/logger.js';

/**
 * What the command line says about serving, parsed and typed (`cli/serve-flags-of.ts` reads it from
 * argv); every field is undefined when its flag was not given. The same flags exist on `proxy`,
 * `run` and `serve`: {@link buildServePlan} lays them over what a config file says.
 */
export interface ServeFlags {
  /** `--name`: serverInfo.name shown to clients. */
  readonly name?: string | undefined;
  /** `--timeout`: the default deadline of each forwarded request, ms. */
  readonly timeoutMs?: number | undefined;
  /** `--max-timeout`: the hard maximum, progress notwithstanding, ms. */
  readonly maxTimeoutMs?: number | undefined;
  /** `--max-message-bytes`: the largest message accepted from a stdio client. */
  readonly maxMessageBytes?: number | undefined;
  /** `--drain-ms`: on SIGTERM or SIGINT, how long calls in flight may take to finish. */
  readonly drainMs?: number | undefined;
  /** `--log-level`. */
  readonly logLevel?: LogLevel | undefined;
  /** `--watch` (`serve` only): apply changes to the config file as it is saved. */
  readonly watch?: boolean | undefined;
  /** The HTTP front's flags. */
  readonly http: HttpFlags;
}

/** The HTTP front's flags; each one given replaces what a config file's `http` section says. */
export interface HttpFlags {
  /** `--http [host:]port`: serve on HTTP, there. */
  readonly listen?: { readonly host: string; readonly port: number } | undefined;
  readonly sse?: boolean | undefined;
  /** `--token-env`: environment variables holding accepted bearer tokens. */
  readonly tokenEnv?: readonly string[] | undefined;
  readonly allowUnauthenticated?: boolean | undefined;
  readonly allowedOrigins?: readonly string[] | undefined;
  readonly allowedHosts?: readonly string[] | undefined;
  readonly sessionTtlMs?: number | undefined;
  readonly maxSessions?: number | undefined;
  readonly maxStartingSessions?: number | undefined;
}

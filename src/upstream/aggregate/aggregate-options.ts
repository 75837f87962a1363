import type { Logger } from '../../log/logger.js';
import type { Upstream } from '../../core/upstream.js';

/** One server behind an {@link Aggregate}. */
export interface AggregateMember {
  /** The server's key (in a config file, its key under `mcpServers`): in names, logs and errors. Unique. */
  readonly name: string;
  readonly upstream: Upstream;
  /**
   * What its tools and prompts are prefixed with (`<prefix>__<tool>`). Default: when there are
   * several members, the name with every character outside `[A-Za-z0-9_-]` mapped to `_`; with a
   * single member, nothing. `false` (or `''`): names are left as the server gives them, and a name
   * an earlier member already took is hidden, with a warning.
   */
  readonly prefix?: string | false | undefined;
  /** How long its `initialize` (which includes starting it) may take. Default 30 000 ms. */
  readonly startupTimeoutMs?: number | undefined;
  /** The deadline of each request sent to it (beside the session's own). Default: none of its own. */
  readonly timeoutMs?: number | undefined;
}

export interface AggregateOptions {
  /** Between a prefix and a name. Default `__`. */
  readonly separator?: string;
  /** Generated names longer than this are shortened (a truncated name plus a short hash). Default 64. */
  readonly maxNameLength?: number;
  /** How long one member may take to list everything of one kind (all its pages). Default 10 000 ms. */
  readonly listTimeoutMs?: number;
  /** Items per page of a merged list; default: everything on one page. */
  readonly pageSize?: number;
  /** The `serverInfo` of the merged `initialize` result. Default `{ name: 'mcp-chain', version }`. */
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string };
  /**
   * When a member that is down is tried again: first delay, factor, cap (ms), default 1 000, 2,
   * 30 000; and how long the `ping` that tries it (or checks a member whose list timed out) may
   * take, default 10 000. A member down because a person must log in is tried every
   * `loginDelayMs` (default 1 000) for `loginWindowMs` (default 15 minutes), then with backoff.
   */
  readonly retry?: {
    readonly initialDelayMs?: number;
    readonly factor?: number;
    readonly maxDelayMs?: number;
    readonly pingTimeoutMs?: number;
    readonly loginDelayMs?: number;
    readonly loginWindowMs?: number;
  };
  /**
   * The circuit breaker of a member that is up but keeps failing calls (its connection breaks,
   * HTTP 5xx, timeouts; not errors the server itself answers, such as -32602, nor tool results
   * with `isError`): after `failureThreshold` failures in a row (default 5) its calls fail at once
   * with -32000 `Server "<name>" is unavailable: circuit open after N failures (last: <cause>)`,
   * data `{ server, reason, retryInMs }`, for `openMs` (default 1 000); then one call probes it:
   * an answer closes the circuit, a failure opens it again for `factor` (default 2) times longer,
   * up to `maxOpenMs` (default 30 000). Per session; a member that goes down and comes back starts
   * closed. `false`: no breaker.
   */
  readonly breaker?:
    | false
    | {
        readonly failureThreshold?: number;
        readonly openMs?: number;
        readonly factor?: number;
        readonly maxOpenMs?: number;
        /** The breaker's clock (tests). Default `Date.now`. */
        readonly now?: () => number;
      };
  /** Where the aggregate logs what it does not log to a session (member changes at `update`). */
  readonly log?: Logger;
}

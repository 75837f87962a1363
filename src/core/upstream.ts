import type { McpMessage, Result } from '../message/jsonrpc.js';
import type { Downstream } from './downstream.js';
import type { RequestScope } from './request-scope.js';
import type { SessionInfo } from './session-info.js';
import type { UpstreamStatusListener } from './upstream-status.js';

/** One live connection to an upstream, opened for one downstream session. */
export interface UpstreamConnection {
  request(message: McpMessage, scope: RequestScope): Promise<Result>;
  notify(message: McpMessage): Promise<void>;
  /** Ends the connection and everything it owns (child processes, sockets). Idempotent. */
  close(): Promise<void>;
  /**
   * Flow control: the client cannot take more for now, so stop reading from the upstream until
   * `resume()`. Calls nest like `Downstream.pause`.
   */
  pause?(): void;
  resume?(): void;
  /**
   * Tells `listener` when the connection goes down, and when it is up again (restarted or not):
   * see {@link UpstreamStatus} for when each fires. Returns the function that stops it. Optional:
   * a connection without it never goes down (an in-process server). Costs nothing when nobody
   * listens; listeners are released on `close()`.
   */
  onStatus?(listener: UpstreamStatusListener): () => void;
}

/**
 * A blueprint for upstream connections: a stdio command, an in-process server, or a whole
 * {@link Chain} (a chain is itself an Upstream, so chains nest). Each downstream session calls
 * `connect` once; server-originated traffic goes to the `downstream` it passes.
 */
export interface Upstream {
  connect(downstream: Downstream, session: SessionInfo): UpstreamConnection;
  /** Releases what the blueprint itself holds (a log file, a shared connection); called once at shutdown. */
  close?(): Promise<void>;
}

import type { McpMessage, Result } from '../message/jsonrpc.js';
import type { Downstream } from './downstream.js';
import type { RequestScope } from './request-scope.js';
import type { SessionInfo } from './session-info.js';

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

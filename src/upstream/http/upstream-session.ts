import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { McpError } from '../../errors/mcp-error.js';
import type { JsonRpcErrorObject, JsonRpcMessage } from '../../message/jsonrpc.js';
import { drainResponse } from './drain-response.js';
import type { HttpTransportOptions } from './http-transport-options.js';
import type { Inbox } from './inbox.js';
import type { SseCursor } from './sse-cursor.js';
import { networkCause, transportError } from './transport-error.js';
import type { UpstreamAuthFailure } from './upstream-auth-failure.js';
import { requestIdOf } from './request-id-of.js';

/**
 * What the parts of a Streamable HTTP transport share (the POST exchange, the answer streams and
 * their resumption, the standalone stream, the session recovery): how to reach the server, the
 * server's session as we know it (its id, the negotiated version, whether it expired), the HTTP
 * exchanges open (aborted on close), and the inbox where what the server sends is delivered.
 */
export class UpstreamSession {
  readonly options: HttpTransportOptions;
  readonly inbox: Inbox;
  /** The server's `Mcp-Session-Id`, from its answer to `initialize`. */
  id: string | undefined;
  /** The version the server answered `initialize` with, sent on every request after it. */
  protocolVersion: string | undefined;
  /** The server forgot the session: initialize again before the next message. */
  expired = false;
  closed = false;
  /** Every open HTTP exchange, aborted on close. */
  readonly open = new Set<AbortController>();

  constructor(options: HttpTransportOptions, inbox: Inbox) {
    this.options = options;
    this.inbox = inbox;
  }

  /** The headers of a request: the static ones, `extra`, and (except for `initialize`) the session's. */
  headers(extra: OutgoingHttpHeaders, initialize = false): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = { ...this.options.target.headers, ...extra };
    if (initialize) return headers;
    if (this.id !== undefined) headers['mcp-session-id'] = this.id;
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  /** Opens an SSE stream with GET, after the cursor's last event (`Last-Event-ID`) if it has one. */
  get(cursor: SseCursor, signal: AbortSignal): Promise<IncomingMessage> {
    const extra: OutgoingHttpHeaders = { accept: 'text/event-stream' };
    if (cursor.lastEventId !== undefined) extra['last-event-id'] = cursor.lastEventId;
    const { client, target, auth } = this.options;
    const call = { method: 'GET', headers: this.headers(extra), signal } as const;
    return auth ? auth.send(client, target.url, call) : client.send(target.url, call);
  }

  /** Ends the server's session with DELETE; a server that does not allow it answers 405, which is fine. */
  async end(): Promise<void> {
    if (this.id === undefined) return;
    const { client, target, auth } = this.options;
    const call = { method: 'DELETE', headers: this.headers({}), signal: AbortSignal.timeout(target.closeTimeoutMs) } as const;
    try {
      // With the token the session has, if any: ending a session never starts a login.
      drainResponse(await (auth ? auth.send(client, target.url, call, false) : client.send(target.url, call)));
    } catch (error) {
      this.options.log.debug('ending the upstream session failed', { error: networkCause(error) });
    }
  }

  /**
   * The error of a request that could not be given an access token: the login URL, as -32042 to a
   * client that takes URL elicitations (told when the login ends), else -32000 (`SessionAuth.error`).
   */
  authError(failure: UpstreamAuthFailure): McpError {
    const { auth, target } = this.options;
    if (!auth) return transportError(target.server, failure.message);
    return auth.error(failure, target.server, (notification) => {
      if (!this.closed) this.inbox.deliver(notification);
    });
  }

  /** A message could not be delivered: its request is answered with `error`, anything else logged. */
  fail(message: JsonRpcMessage, error: McpError | JsonRpcErrorObject): void {
    const id = requestIdOf(message);
    if (id !== undefined) {
      this.inbox.fail(id, error);
      return;
    }
    this.options.log.warn('a message to the upstream was lost', { method: 'method' in message ? message.method : 'response', error: error.message });
  }
}

import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import type { McpMessage, Result } from '../../message/jsonrpc.js';
import { Peer } from '../../rpc/peer.js';
import type { Transport } from '../../transport/transport.js';
import type { SessionReplay } from '../session-replay.js';
import { requestScope, type RequestScope } from '../../core/request-scope.js';
import type { Downstream } from '../../core/downstream.js';
import type { StatusReporter } from '../../core/status-reporter.js';
import type { UpstreamConnection } from '../../core/upstream.js';
import type { UpstreamStatusListener } from '../../core/upstream-status.js';

/** What an {@link HttpConnection} shares with its transport, and where it delivers. */
export interface HttpConnectionParts {
  /** What the session told the server (the transport replays it to a new server session). */
  readonly replay: SessionReplay;
  /** Where the transport tells that the server was lost and came back. */
  readonly status: StatusReporter;
  readonly downstream: Downstream;
  readonly log: Logger;
  /** The server's URL as logs and errors show it. */
  readonly server: string;
}

/**
 * One downstream session's connection to an HTTP server: a Peer (ids, cancellation, progress,
 * server→client requests) over an HTTP transport, which owns the HTTP session. The connection
 * notes what the session told the server, so that a new server session can be told again.
 */
export class HttpConnection implements UpstreamConnection {
  readonly #peer: Peer;
  readonly #replay: SessionReplay;
  readonly #status: StatusReporter;
  readonly #server: string;
  #closing: Promise<void> | undefined;

  constructor(transport: Transport, { replay, status, downstream, log, server }: HttpConnectionParts) {
    this.#replay = replay;
    this.#status = status;
    this.#server = server;
    this.#peer = new Peer(
      transport,
      {
        // What the server sends on a request's stream belongs with that request downstream too.
        request: (message, scope) => (scope.related ?? downstream).request(message, requestScope(scope.cancel, undefined)),
        notification: (message, related) => {
          (related ?? downstream).notify(message).catch((error: unknown) => {
            log.warn('delivering a notification failed', { method: message.method, error: String(error) });
          });
        },
        // An HTTP transport closes only when we close it.
        closed: () => undefined,
      },
      { log, answerInvalid: false },
    );
    void this.#peer.start();
  }

  async request(message: McpMessage, scope: RequestScope): Promise<Result> {
    this.#replay.sending(message);
    const result = await this.#peer.request(message, scope);
    this.#replay.succeeded(message);
    return result;
  }

  notify(message: McpMessage): Promise<void> {
    this.#replay.sending(message);
    this.#peer.notify(message);
    return Promise.resolve();
  }

  /** Down: the server cannot be reached, forgot the session, or (legacy SSE) its stream broke; up once it answers again. */
  onStatus(listener: UpstreamStatusListener): () => void {
    return this.#status.subscribe(listener);
  }

  /** Idempotent: every call resolves once the server session is ended (or could not be). */
  close(): Promise<void> {
    this.#status.close();
    this.#closing ??= this.#peer.close(new McpError(ErrorCode.ConnectionClosed, `Upstream ${this.#server} closed`));
    return this.#closing;
  }
}

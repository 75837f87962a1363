import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import type { McpMessage, Result } from '../../message/jsonrpc.js';
import { Peer } from '../../rpc/peer.js';
import type { Transport } from '../../transport/transport.js';
import type { SessionReplay } from '../session-replay.js';
import { requestScope, type RequestScope } from '../../core/request-scope.js';
import type { Downstream } from '../../core/downstream.js';
import type { UpstreamConnection } from '../../core/upstream.js';

/**
 * One downstream session's connection to an HTTP server: a Peer (ids, cancellation, progress,
 * server→client requests) over an HTTP transport, which owns the HTTP session. The connection
 * notes what the session told the server, so that a new server session can be told again.
 */
export class HttpConnection implements UpstreamConnection {
  readonly #peer: Peer;
  readonly #replay: SessionReplay;
  readonly #server: string;
  #closing: Promise<void> | undefined;

  constructor(transport: Transport, replay: SessionReplay, downstream: Downstream, log: Logger, server: string) {
    this.#replay = replay;
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

  /** Idempotent: every call resolves once the server session is ended (or could not be). */
  close(): Promise<void> {
    this.#closing ??= this.#peer.close(new McpError(ErrorCode.ConnectionClosed, `Upstream ${this.#server} closed`));
    return this.#closing;
  }
}

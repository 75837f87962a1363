import type { IncomingMessage } from 'node:http';
import { delay } from './delay.js';
import { drainResponse } from './drain-response.js';
import { mediaType } from './http-refusal.js';
import { readWithCursor, sseCursor } from './sse-cursor.js';
import { networkCause } from './transport-error.js';
import { UpstreamAuthFailure } from './upstream-auth-failure.js';
import type { UpstreamSession } from './upstream-session.js';

/**
 * The standalone GET stream of a Streamable HTTP session: what the server sends on its own, not
 * in answer to a request. It reconnects from its last event when it breaks (after the retry hint);
 * a server that is unreachable gets it again once a message gets through (`retry()`), one that
 * answers 405 does not offer it, and a 404 means the server forgot the session.
 */
export class StandaloneStream {
  readonly #session: UpstreamSession;
  /** The server forgot session `id` (404): the transport starts a new one. */
  readonly #sessionGone: (id: string) => Promise<void>;
  #state: 'off' | 'open' | 'wanted' | 'unsupported' = 'off';
  #abort: AbortController | undefined;

  constructor(session: UpstreamSession, sessionGone: (id: string) => Promise<void>) {
    this.#session = session;
    this.#sessionGone = sessionGone;
  }

  /**
   * Opens the stream unless it is open or unsupported; resolves once the server answered the GET
   * (or it failed), never rejects.
   */
  open(): Promise<void> {
    if (this.#session.closed || this.#state === 'open' || this.#state === 'unsupported') return Promise.resolve();
    this.#state = 'open';
    const controller = new AbortController();
    this.#abort = controller;
    this.#session.open.add(controller);
    return new Promise<void>((opened) => {
      void this.#listen(controller, opened).finally(() => {
        this.#session.open.delete(controller);
        opened();
      });
    });
  }

  /** Opens it again if the last attempt failed: call when an exchange got through. */
  retry(): void {
    if (this.#state === 'wanted') void this.open();
  }

  /** The session is gone: stop listening to it (the next session's `initialize` opens it again). */
  stop(): void {
    this.#abort?.abort();
    if (this.#state === 'open') this.#state = 'off';
  }

  async #listen(controller: AbortController, opened: () => void): Promise<void> {
    const { signal } = controller;
    const session = this.#session;
    const cursor = sseCursor();
    const deliver = (data: string): void => {
      session.inbox.receive(data);
    };
    while (!signal.aborted && !session.closed) {
      const sessionId = session.id;
      let response: IncomingMessage;
      try {
        response = await session.get(cursor, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof UpstreamAuthFailure) {
          // The server is there; the stream is opened again once a message gets a token through.
          session.options.log.debug('the server-initiated stream waits for an access token', { error: error.message });
          this.#state = 'wanted';
          return;
        }
        this.#unreachable(networkCause(error));
        return;
      }
      opened();
      if (!this.#usable(response, sessionId)) return;
      try {
        await readWithCursor(response, cursor, deliver, session.options.target.maxMessageBytes);
      } catch {
        // Broken: reconnect below, from the last event.
      }
      if (!(await delay(cursor.retryMs ?? 1000, signal))) return;
    }
  }

  /** The server is unreachable: listen again after the next message gets through. */
  #unreachable(cause: string): void {
    this.#session.options.log.debug('the server-initiated stream could not be opened', { error: cause });
    this.#state = 'wanted';
    this.#session.options.status.down(`is unreachable: ${cause}`);
  }

  /** Whether the answer to the GET is a stream to read; if not, what it means is acted on. */
  #usable(response: IncomingMessage, sessionId: string | undefined): boolean {
    const { log } = this.#session.options;
    const status = response.statusCode ?? 0;
    if (status === 405) {
      drainResponse(response);
      this.#state = 'unsupported';
      return false;
    }
    if (status === 404 && sessionId !== undefined) {
      drainResponse(response);
      this.#state = 'off';
      this.#sessionGone(sessionId).catch((error: unknown) => log.warn('initializing the upstream again failed', { error: String(error) }));
      return false;
    }
    if (status < 200 || status >= 300 || mediaType(response) !== 'text/event-stream') {
      drainResponse(response);
      log.warn('the server refused the server-initiated stream', { status });
      this.#state = 'wanted';
      return false;
    }
    return true;
  }
}

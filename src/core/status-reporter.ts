import type { Logger } from '../log/logger.js';
import type { UpstreamStatus, UpstreamStatusListener } from './upstream-status.js';

/**
 * What a connection uses to tell its listeners about {@link UpstreamStatus} changes: it keeps
 * the current state, so `down()` and `up()` may be called wherever a failure or a success is seen
 * (only a change reaches the listeners), and costs a boolean check when nothing changed.
 */
export class StatusReporter {
  readonly #log: Logger;
  readonly #listeners = new Set<UpstreamStatusListener>();
  #down = false;
  #closed = false;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Whether the connection is down now (lost its server and not back yet). */
  get isDown(): boolean {
    return this.#down;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: UpstreamStatusListener): () => void {
    if (this.#closed) return () => undefined;
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** The server is lost (told once, until it is up again). */
  down(reason: string): void {
    if (this.#down || this.#closed) return;
    this.#down = true;
    this.#log.debug('upstream down', { reason });
    for (const listener of [...this.#listeners]) this.#tell(listener, { state: 'down', reason });
  }

  /** The server works again after a `down` (nothing is told if it was not down). */
  up(restarted: boolean): void {
    if (!this.#down || this.#closed) return;
    this.#down = false;
    this.#log.debug('upstream up', { restarted });
    for (const listener of [...this.#listeners]) this.#tell(listener, { state: 'up', restarted });
  }

  /** The connection was closed on purpose: no more events, listeners released. */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
  }

  #tell(listener: UpstreamStatusListener, event: UpstreamStatus): void {
    try {
      listener(event);
    } catch (error) {
      this.#log.warn('an upstream status listener threw', { state: event.state, error: String(error) });
    }
  }
}

import { HttpError } from '../../errors/http-error.js';

/** What a {@link SessionAdmission} needs of a response: to learn when it is over. */
export interface ClosingResponse {
  /** Whether it is over already (its `close` event has come). */
  readonly closed: boolean;
  once(event: 'close', listener: () => void): unknown;
}

export interface SessionAdmissionOptions {
  /**
   * Most sessions starting at once: from their `initialize` request being admitted until its
   * response is over (answered, refused, or its client gone). At least 1.
   */
  maxStarting: number;
  /** The `Retry-After` of a refusal, in seconds. Default 1: a start takes about that long. */
  retryAfterSeconds?: number;
}

/**
 * The admission limit for session starts of one HTTP server. Starting a session is the costly
 * part of a session's life (a gateway spawns its stdio servers then, and a spawn blocks the event
 * loop while the child starts): a burst of `initialize` requests, each admitted, would keep the
 * event loop busy spawning, so that even requests the server could refuse at once wait (and time
 * out, or are reset) in the listen queue. With this limit, a burst gets at most `maxStarting`
 * starts at a time, and everything beyond gets a quick 503 with `Retry-After`.
 *
 * Counted per response, so that every way a start ends (answered, refused later on, the client
 * vanishing) frees its place: see {@link SessionAdmission.admitFor}.
 */
export class SessionAdmission {
  readonly #max: number;
  readonly #retryAfter: string;
  #starting = 0;
  #refused = 0;

  constructor(options: SessionAdmissionOptions) {
    if (!Number.isInteger(options.maxStarting) || options.maxStarting < 1) {
      throw new RangeError(`SessionAdmission: maxStarting must be a whole number of at least 1, not ${options.maxStarting}`);
    }
    const retryAfter = options.retryAfterSeconds ?? 1;
    if (!Number.isInteger(retryAfter) || retryAfter < 0) {
      throw new RangeError(`SessionAdmission: retryAfterSeconds must be a whole number of at least 0, not ${retryAfter}`);
    }
    this.#max = options.maxStarting;
    this.#retryAfter = String(retryAfter);
  }

  /** Sessions starting now. */
  get starting(): number {
    return this.#starting;
  }

  /** Starts refused so far (for logs and tests). */
  get refused(): number {
    return this.#refused;
  }

  /**
   * Admits one session start, or throws a 503 `HttpError` with `Retry-After` when `maxStarting`
   * are under way. Returns the function that ends the start (calling it again does nothing).
   */
  admit(): () => void {
    if (this.#starting >= this.#max) {
      this.#refused += 1;
      throw new HttpError(503, `Service Unavailable: ${this.#max} sessions are starting; try again shortly`, {
        headers: { 'retry-after': this.#retryAfter },
      });
    }
    this.#starting += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#starting -= 1;
    };
  }

  /**
   * {@link admit}, the start ending when `res` is over: its `close` event comes once the answer is
   * written, once a refusal is, and once its client disconnects, whichever way the request went.
   * A response already over (its client left while its body was read) starts nothing.
   */
  admitFor(res: ClosingResponse): void {
    if (res.closed) return;
    res.once('close', this.admit());
  }
}

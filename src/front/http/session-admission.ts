import { HttpError } from '../../errors/http-error.js';

/** What a {@link SessionAdmission} needs of a response: to learn when it is over. */
export interface ClosingResponse {
  /** Whether it is over already (its `close` event has come). */
  readonly closed: boolean;
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

export interface SessionAdmissionOptions {
  /**
   * Most sessions starting at once: from their `initialize` request being admitted until its
   * response is over (answered, refused, or its client gone). At least 1.
   */
  maxStarting: number;
  /**
   * Most starts waiting for a place, in arrival order; beyond, 503 at once. Default 256; 0: none
   * wait (a start beyond `maxStarting` is refused at once).
   */
  maxWaiting?: number;
  /** Longest a start waits for a place before it is refused with 503, ms. Default 10 000. */
  maxWaitMs?: number;
  /** The `Retry-After` of a refusal, in seconds. Default 1: a start takes about that long. */
  retryAfterSeconds?: number;
}

/** A start waiting for a place. */
interface Waiter {
  readonly admitted: () => void;
  readonly refused: (error: HttpError) => void;
}

/**
 * The admission limit for session starts of one HTTP server. Starting a session is the costly
 * part of a session's life (a gateway spawns its stdio servers then, and a spawn blocks the event
 * loop while the child starts): a burst of `initialize` requests, each started at once, would keep
 * the event loop busy spawning, so that even requests the server could refuse at once wait (and
 * time out, or are reset) in the listen queue. With this limit, at most `maxStarting` starts run
 * at a time; the next `maxWaiting` wait their turn (at most `maxWaitMs`), and anything beyond
 * gets a quick 503 with `Retry-After`. A few clients connecting at once (IDE windows after a
 * restart) all get in; a burst is held off without falling over.
 *
 * Counted per response, so that every way a start ends (answered, refused later on, the client
 * vanishing) frees its place: see {@link SessionAdmission.admitFor}.
 */
export class SessionAdmission {
  readonly #max: number;
  readonly #maxWaiting: number;
  readonly #maxWaitMs: number;
  readonly #retryAfter: string;
  readonly #waiting: Waiter[] = [];
  #starting = 0;
  #refused = 0;

  constructor(options: SessionAdmissionOptions) {
    const { maxStarting, maxWaiting = 256, maxWaitMs = 10_000, retryAfterSeconds = 1 } = options;
    wholeNumber('maxStarting', maxStarting, 1);
    wholeNumber('maxWaiting', maxWaiting, 0);
    wholeNumber('maxWaitMs', maxWaitMs, 0);
    wholeNumber('retryAfterSeconds', retryAfterSeconds, 0);
    this.#max = maxStarting;
    this.#maxWaiting = maxWaiting;
    this.#maxWaitMs = maxWaitMs;
    this.#retryAfter = String(retryAfterSeconds);
  }

  /** Sessions starting now. */
  get starting(): number {
    return this.#starting;
  }

  /** Starts waiting for a place now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Starts refused so far (for logs and tests). */
  get refused(): number {
    return this.#refused;
  }

  /**
   * Admits one session start at once, or throws a 503 `HttpError` with `Retry-After` when
   * `maxStarting` are under way (it never waits). Returns the function that ends the start
   * (calling it again does nothing).
   */
  admit(): () => void {
    if (this.#starting >= this.#max) throw this.#refusal(`${this.#max} sessions are starting`);
    this.#starting += 1;
    return this.#ender();
  }

  /**
   * Admits the start whose response is `res`, waiting in line for a place if need be; the start
   * ends when `res` is over: its `close` event comes once the answer is written, once a refusal
   * is, and once its client disconnects, whichever way the request went. Rejects with a 503
   * `HttpError` (with `Retry-After`) when the line is full, or when the wait passes `maxWaitMs`.
   * Resolves true once admitted; false, holding no place, for a response that is over before its
   * turn (its client left): there is nothing left to answer, and nothing should start.
   */
  async admitFor(res: ClosingResponse): Promise<boolean> {
    if (res.closed) return false;
    if (this.#starting < this.#max) {
      this.#starting += 1;
      res.once('close', this.#ender());
      return true;
    }
    if (this.#waiting.length >= this.#maxWaiting) throw this.#refusal(`${this.#max} sessions are starting and ${this.#waiting.length} wait`);
    return new Promise<boolean>((resolve, reject) => {
      const leave = (): void => {
        clearTimeout(timer);
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
      };
      const waiter: Waiter = {
        admitted: () => {
          leave();
          res.off('close', gone);
          res.once('close', this.#ender());
          resolve(true);
        },
        refused: (error) => {
          leave();
          res.off('close', gone);
          reject(error);
        },
      };
      const gone = (): void => {
        leave();
        resolve(false);
      };
      const timer = setTimeout(() => waiter.refused(this.#refusal(`no session could start within ${this.#maxWaitMs} ms`)), this.#maxWaitMs);
      this.#waiting.push(waiter);
      res.once('close', gone);
    });
  }

  /** The function that ends one start: its place goes to the first in line, or is freed. */
  #ender(): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = this.#waiting[0];
      if (next) next.admitted();
      else this.#starting -= 1;
    };
  }

  #refusal(why: string): HttpError {
    this.#refused += 1;
    return new HttpError(503, `Service Unavailable: ${why}; try again shortly`, { headers: { 'retry-after': this.#retryAfter } });
  }
}

function wholeNumber(name: string, value: number, least: number): void {
  if (!Number.isInteger(value) || value < least) {
    throw new RangeError(`SessionAdmission: ${name} must be a whole number of at least ${least}, not ${value}`);
  }
}

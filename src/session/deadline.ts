import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { currentWheel, type DeadlineWheel, type WheelEntry } from './deadline-wheel.js';

/**
 * Calls `expire` with -32001 "Request timed out" after `timeoutMs`. `extend()` (called on
 * progress) restarts the countdown, but never past `maxMs` from the start.
 *
 * Deadlines share one timer ({@link DeadlineWheel}): starting and clearing one costs a heap push
 * and a mark, not a timer each. It may fire a few ms late, never early; while it is pending it
 * keeps the process alive, as a timer of its own would.
 */
export class Deadline {
  readonly #expire: (error: McpError) => void;
  readonly #timeoutMs: number;
  readonly #hardStop: number;
  readonly #wheel: DeadlineWheel;
  #entry: WheelEntry | undefined;

  constructor(timeoutMs: number, maxMs: number, expire: (error: McpError) => void) {
    this.#expire = expire;
    this.#timeoutMs = timeoutMs;
    const wheel = (this.#wheel = currentWheel());
    const now = wheel.now();
    this.#hardStop = now + Math.max(maxMs, timeoutMs);
    this.#entry = wheel.schedule(now, timeoutMs, Deadline.#fire, this);
  }

  extend(): void {
    if (this.#entry === undefined) return;
    const wheel = this.#wheel;
    wheel.cancel(this.#entry);
    const now = wheel.now();
    this.#entry = wheel.schedule(now, Math.max(0, Math.min(this.#timeoutMs, this.#hardStop - now)), Deadline.#fire, this);
  }

  clear(): void {
    if (this.#entry === undefined) return;
    this.#wheel.cancel(this.#entry);
    this.#entry = undefined;
  }

  /** One callback for every deadline's entry (no closure per deadline). */
  static #fire(deadline: Deadline): void {
    deadline.#entry = undefined;
    deadline.#expire(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: deadline.#timeoutMs }));
  }
}

import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';

/**
 * Calls `expire` with -32001 "Request timed out" after `timeoutMs`. `extend()` (called on
 * progress) restarts the countdown, but never past `maxMs` from the start.
 */
export class Deadline {
  readonly #expire: (error: McpError) => void;
  readonly #timeoutMs: number;
  readonly #hardStop: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, maxMs: number, expire: (error: McpError) => void) {
    this.#expire = expire;
    this.#timeoutMs = timeoutMs;
    this.#hardStop = Date.now() + Math.max(maxMs, timeoutMs);
    this.#timer = setTimeout(this.#fire, timeoutMs);
  }

  extend(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#fire, Math.max(0, Math.min(this.#timeoutMs, this.#hardStop - Date.now())));
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#expire(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: this.#timeoutMs }));
  };
}

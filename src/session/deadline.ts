import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';

/**
 * Aborts a controller with -32001 "Request timed out" after `timeoutMs`. `extend()` (called on
 * progress) restarts the countdown, but never past `maxMs` from the start.
 */
export class Deadline {
  readonly #controller: AbortController;
  readonly #timeoutMs: number;
  readonly #hardStop: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(controller: AbortController, timeoutMs: number, maxMs: number) {
    this.#controller = controller;
    this.#timeoutMs = timeoutMs;
    this.#hardStop = Date.now() + Math.max(maxMs, timeoutMs);
    this.#arm(timeoutMs);
  }

  extend(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#arm(Math.min(this.#timeoutMs, this.#hardStop - Date.now()));
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: this.#timeoutMs }));
    }, Math.max(0, ms));
  }
}

import { ErrorCode } from './error-code.js';
import { McpError } from './mcp-error.js';

/**
 * The reason a request's signal aborts when the side that sent it cancelled it
 * (`notifications/cancelled`). No answer is sent for such a request, so it never reaches the wire;
 * it lets middleware tell a cancel from a timeout (-32001) or a session that ended (-32000).
 */
const BRAND = Symbol.for('mcp-chain.CancelledError');

export class CancelledError extends McpError {
  override name = 'CancelledError';
  readonly [BRAND] = true;

  /** Recognized across copies of this module, like McpError (and not true of other McpErrors). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  constructor(reason: string) {
    super(ErrorCode.ConnectionClosed, reason);
  }
}

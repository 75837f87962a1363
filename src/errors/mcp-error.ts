/**
 * The only error that becomes a JSON-RPC error response. Its `code`, `message` and `data` go on
 * the wire unchanged; anything else thrown inside the chain becomes -32603 with a generic message.
 */
const BRAND = Symbol.for('mcp-chain.McpError');

export class McpError extends Error {
  override name = 'McpError';
  readonly [BRAND] = true;

  /**
   * `instanceof McpError` also holds for an McpError made by another copy of this module (a chain
   * file, or a package that bundles its own mcp-chain), so its code is never lost.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.data = data;
  }

  /** The JSON-RPC error object for this error. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

const BRAND = Symbol.for('mcp-chain.ChainError');

/**
 * A local failure of mcp-chain itself (bad configuration, a command that cannot start, use of a
 * closed object). It never goes on the wire: the CLI prints it, and on the request path it is
 * mapped to -32603 like any other unexpected error.
 */
export class ChainError extends Error {
  override name = 'ChainError';
  readonly [BRAND] = true;
  readonly code: ChainErrorCode;

  /** Holds across copies of this module too (the CLI's bundle, a chain file's import). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  constructor(code: ChainErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

export type ChainErrorCode = 'CONFIG' | 'SPAWN' | 'CLOSED' | 'USAGE' | 'LOAD';

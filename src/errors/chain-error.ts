/**
 * A local failure of mcp-chain itself (bad configuration, a command that cannot start, use of a
 * closed object). It never goes on the wire: the CLI prints it, and on the request path it is
 * mapped to -32603 like any other unexpected error.
 */
export class ChainError extends Error {
  override name = 'ChainError';
  readonly code: ChainErrorCode;

  constructor(code: ChainErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

export type ChainErrorCode = 'CONFIG' | 'SPAWN' | 'CLOSED' | 'USAGE' | 'LOAD';

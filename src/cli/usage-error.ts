import { ChainError } from '../errors/chain-error.js';

const BRAND = Symbol.for('mcp-chain.UsageError');

/**
 * A mistake on the command line (an unknown option, a missing value, a bad number): the CLI
 * prints its message on one line with a pointer to the help of the command it was given to, and
 * exits 2.
 */
export class UsageError extends ChainError {
  override name = 'UsageError';
  readonly [BRAND] = true;
  /** The command word (`run`), or undefined for the default command: whose `--help` to point to. */
  readonly command: string | undefined;

  /** Its own brand: ChainError's check (inherited otherwise) would call every ChainError a UsageError. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  constructor(message: string, command?: string) {
    super('USAGE', message);
    this.command = command;
  }
}

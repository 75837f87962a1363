import { ChainError } from '../errors/chain-error.js';

const BRAND = Symbol.for('mcp-chain.ConfigError');

/** One thing wrong with a config file, where it is and what to do about it. Never holds a secret. */
export interface ConfigProblem {
  /** The file, as it was given (absolute once loaded). */
  file: string;
  /** 1-based, when the format gives positions (JSON, YAML; a syntax error in TOML). */
  line?: number;
  /** 1-based. */
  column?: number;
  /** Where in the file: `mcpServers.github.env.GITHUB_TOKEN`, `middleware[0]`; '' for the file as a whole. */
  path: string;
  /** What was expected and what was found, or what to do. */
  message: string;
}

/**
 * A config file that cannot be used: unreadable, not valid JSON/YAML/TOML, or not what mcp-chain
 * expects. Its message has every problem, one per line, as `<file>:<line>:<column>: <path>: <message>`
 * (an editor or terminal turns that into a link). A ChainError ('CONFIG').
 */
export class ConfigError extends ChainError {
  override name = 'ConfigError';
  readonly [BRAND] = true;
  readonly problems: readonly ConfigProblem[];

  /** Holds across copies of this module too. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  constructor(problems: readonly ConfigProblem[], options?: ErrorOptions) {
    super('CONFIG', problems.map(formatProblem).join('\n'), options);
    this.problems = problems;
  }
}

/** `<file>:<line>:<column>: <path>: <message>`, leaving out what is unknown. */
export function formatProblem(problem: ConfigProblem): string {
  const position = problem.line === undefined ? '' : `:${problem.line}${problem.column === undefined ? '' : `:${problem.column}`}`;
  return `${problem.file}${position}: ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}`;
}

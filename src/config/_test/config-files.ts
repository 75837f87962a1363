/**
 * @module
 * Config files for tests: a temporary directory per suite (removed after it), files written in
 * it, and a logger that keeps what it is told.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import type { LogFields, Logger } from '../../log/logger.js';
import type { BuiltinMiddleware } from '../builtin-middleware.js';
import { ConfigError } from '../config-error.js';
import { problemsFromIssues } from '../zod-problems.js';

/** A temporary directory, removed when the suite (file) ends. */
export function tempDir(prefix = 'mcp-chain-config-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `text` (an object: as JSON) at `name` under `dir`, creating folders; returns its path. */
export function write(dir: string, name: string, text: string | object): string {
  const path = join(dir, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof text === 'string' ? text : JSON.stringify(text, null, 2));
  return path;
}

export interface LoggedLine {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly message: string;
  readonly fields: LogFields;
}

/** A logger that keeps every line (children write to the same list). */
export function captureLogger(lines: LoggedLine[] = []): Logger & { readonly lines: LoggedLine[] } {
  const add = (level: LoggedLine['level']) => (message: string, fields: LogFields = {}) => void lines.push({ level, message, fields });
  return { lines, error: add('error'), warn: add('warn'), info: add('info'), debug: add('debug'), child: () => captureLogger(lines) };
}

/** The ConfigError `promise` rejects with (fails the test if it resolves or rejects otherwise). */
export async function configErrorOf(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError, but the config loaded');
}

/** What a config file would be told about `options` of `builtin`: `path: message` per problem (none: valid). */
export function optionProblems(builtin: BuiltinMiddleware, options: unknown): string[] {
  const parsed = builtin.options.safeParse(options);
  if (parsed.success) return [];
  return problemsFromIssues(parsed.error.issues, { file: 'config.json', schema: builtin.options, data: options, locate: () => undefined }).map(
    (problem) => `${problem.path}: ${problem.message}`,
  );
}

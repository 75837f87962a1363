import { readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/stderr-logger.js';
import { ConfigError, type ConfigProblem } from './config-error.js';
import { CONFIG_SCHEMA } from './config-schema.js';
import { describeOsError } from './describe-os-error.js';
import type { GatewayConfig } from './gateway-config.js';
import { importModule } from './import-module.js';
import { normalizeConfig } from './normalize-config.js';
import { parseConfigText, type ParsedText, type TextFormat } from './parse-config-text.js';
import { problemsFromIssues } from './zod-problems.js';

export interface LoadConfigOptions {
  /** Where `${VAR}` references are looked up. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where ignored keys (debug) and keys that do not apply (warn) are told. Default: nowhere. */
  log?: Logger;
}

const FORMATS: Readonly<Record<string, TextFormat | 'module'>> = {
  '.json': 'json',
  '.jsonc': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.ts': 'module',
  '.mts': 'module',
  '.js': 'module',
  '.mjs': 'module',
};

/**
 * Reads, validates and normalizes a config file: JSON (comments and trailing commas allowed),
 * YAML, TOML (Codex's `[mcp_servers.<name>]`), or a TypeScript/JavaScript module whose default
 * export (or `config` export) is the config, usually `defineConfig({...})`. It takes the shapes
 * of the files MCP clients already have (`mcpServers`, VS Code's `servers`, Codex's
 * `mcp_servers`) unchanged, resolves `${VAR}`, `${VAR:-default}` and `${env:VAR}`, and reads
 * `envFile`s. Nothing is started.
 *
 * Throws a {@link ConfigError} with every problem found, each with its place
 * (`<file>:<line>:<column>: <path>: <message>`), what was expected and what was found, never
 * the value of a secret.
 */
export async function loadConfig(file: string, options: LoadConfigOptions = {}): Promise<GatewayConfig> {
  const path = resolve(file);
  const dir = dirname(path);
  const format = FORMATS[extname(path).toLowerCase()];
  if (format === undefined) {
    throw new ConfigError([{ file: path, path: '', message: `unknown format: expected a file ending in ${Object.keys(FORMATS).join(', ')}` }]);
  }
  const parsed = format === 'module' ? await loadModule(path) : deeplyNested(path, () => parseConfigText(readText(path), format, path));
  return deeplyNested(path, () => validate(path, dir, parsed, options));
}

/**
 * Runs `read`, turning the stack overflow of a parser or a check that recurses (jsonc-parser does,
 * on JSON nested some thousands of levels deep) into a ConfigError for the file.
 */
function deeplyNested<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) throw error;
    throw new ConfigError([{ file, path: '', message: 'nested too deeply to read' }], { cause: error });
  }
}

function validate(path: string, dir: string, parsed: ParsedText, options: LoadConfigOptions): GatewayConfig {
  const checked = CONFIG_SCHEMA.safeParse(parsed.data);
  if (!checked.success) {
    throw new ConfigError(inFileOrder(problemsFromIssues(checked.error.issues, { file: path, schema: CONFIG_SCHEMA, data: parsed.data, locate: parsed.locate })));
  }
  const result = normalizeConfig(checked.data, {
    file: path,
    dir,
    order: Object.keys(parsed.data as object),
    variables: { env: options.env ?? process.env, workspaceFolder: workspaceFolderOf(dir) },
    locate: parsed.locate,
    log: options.log ?? silentLogger,
  });
  if (result.problems) throw new ConfigError(inFileOrder(result.problems));
  return result.config;
}

/** Problems by line and column where the format gives them (otherwise as found). */
function inFileOrder(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([{ file: path, path: '', message: `cannot read: ${describeOsError(error)}` }], { cause: error });
  }
}

/** A TypeScript or JavaScript config: its default export, or its export named `config`. */
async function loadModule(path: string): Promise<ParsedText> {
  readText(path); // an unreadable file says so, as for the other formats
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(path);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // A compile error in the file itself: at its place.
    const at = /^(.*):(\d+):(\d+): (.*)$/s.exec(message);
    if (at?.[1] === path) throw new ConfigError([{ file: path, line: Number(at[2]), column: Number(at[3]), path: '', message: `cannot compile: ${at[4]}` }], { cause: error });
    throw new ConfigError([{ file: path, path: '', message: `cannot load: ${message}` }], { cause: error });
  }
  const data = mod.default ?? mod.config;
  if (data === undefined) throw new ConfigError([{ file: path, path: '', message: 'expected a default export (or an export named "config"): `export default defineConfig({ ... })`' }]);
  return { data, locate: () => undefined };
}

/** What `${workspaceFolder}` means: the folder a `.vscode/` or `.cursor/` file belongs to, else the file's own. */
function workspaceFolderOf(dir: string): string {
  return ['.vscode', '.cursor'].includes(basename(dir)) ? dirname(dir) : dir;
}

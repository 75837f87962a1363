import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

/**
 * Compiled TypeScript chain files, kept between runs so that a start whose sources did not change
 * skips the compiler (loading esbuild and compiling cost ~50 ms of every cold start). An entry is
 * keyed by the chain file's path and holds the compiled code with the SHA-256 of every local file
 * that went into it: it is used only while each of them still has that content.
 *
 * The directory is `MCP_CHAIN_CACHE_DIR`, or `mcp-chain-<uid>` in the system's temp directory,
 * created private (0700). A directory that another user owns, or that others may write to, is
 * not used: its code would run as ours. Every failure to read or write means "no cache".
 */
export class CompileCache {
  readonly #dir: string | undefined;
  /** Whatever changes the compiled output besides the sources (our version, esbuild's). */
  readonly #salt: string;

  constructor(salt: string, dir = process.env.MCP_CHAIN_CACHE_DIR ?? join(tmpdir(), `mcp-chain-${process.getuid?.() ?? 'user'}`)) {
    this.#salt = salt;
    this.#dir = privateDirectory(dir);
  }

  /** The compiled code of `file`, if every input still has the content it was compiled from. */
  get(file: string): string | undefined {
    if (this.#dir === undefined) return undefined;
    try {
      const entry = JSON.parse(readFileSync(this.#entryPath(file), 'utf8')) as Partial<Entry>;
      if (typeof entry.code !== 'string' || typeof entry.inputs !== 'object' || entry.inputs === null) return undefined;
      for (const [path, hash] of Object.entries(entry.inputs)) {
        if (hashOf(path) !== hash) return undefined;
      }
      return entry.code;
    } catch {
      return undefined;
    }
  }

  /** Keeps `code`, compiled from `inputs` (absolute paths of the local files it contains). */
  set(file: string, code: string, inputs: readonly string[]): void {
    if (this.#dir === undefined) return;
    const path = this.#entryPath(file);
    const temporary = `${path}.${process.pid}.tmp`;
    try {
      const entry: Entry = { code, inputs: Object.fromEntries(inputs.map((input) => [input, hashOf(input)])) };
      writeFileSync(temporary, JSON.stringify(entry), { mode: 0o600 });
      renameSync(temporary, path); // atomic: a concurrent start reads the old entry or this one
    } catch {
      rmSync(temporary, { force: true });
    }
  }

  #entryPath(file: string): string {
    const key = createHash('sha256').update(this.#salt).update('\0').update(file).digest('hex').slice(0, 32);
    return join(this.#dir ?? '', `${key}.json`);
  }
}

interface Entry {
  code: string;
  /** path → SHA-256 of its content when compiled */
  inputs: Record<string, string>;
}

function hashOf(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** `dir`, created if missing; undefined if it is not ours alone. */
function privateDirectory(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    const uid = process.getuid?.();
    if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

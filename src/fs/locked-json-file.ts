/**
 * @module
 * A JSON file shared safely between processes: every change is a read-modify-write under a lock
 * file (`<file>.lock`, O_EXCL, taken over when its process is gone or it is stale), written to a
 * temporary file and renamed into place, mode 0600 in a directory made 0700; reads are cached and
 * done again only when the file changed (inode, size or mtime). A file that does not parse is an
 * error naming the file, and is never overwritten. Generic over the function that checks the
 * parsed JSON.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** The file is unreadable, corrupt, or its lock could not be taken (the default error of a `LockedJsonFile`). */
export class LockedJsonFileError extends Error {
  override readonly name: string = 'LockedJsonFileError';
}

/** Thrown by a `parse` function: the file holds JSON, but not the expected shape; `message` says why. */
export class CorruptContentError extends Error {
  override readonly name: string = 'CorruptContentError';
}

/** What a `LockedJsonFile` holds, and how it waits for another process's lock. */
export interface LockedJsonFileOptions<T> {
  /** What the file is, for messages (`pin store`, `token store`). */
  label: string;
  /** Checks the parsed JSON and returns it typed; throws (a `CorruptContentError`, or any Error) saying what is wrong. Must not put values from the file in the message. */
  parse: (value: unknown) => T;
  /** The content when there is no file yet. */
  empty: () => T;
  /** Makes the errors thrown (default: `LockedJsonFileError`), so that a user keeps its own class. */
  error?: ((message: string) => Error) | undefined;
  /** How long to wait for another process's lock before failing (ms, default 10 000). */
  lockTimeoutMs?: number | undefined;
  /** A lock file older than this (ms, default 30 000), or whose process is gone, is taken over. */
  staleLockMs?: number | undefined;
}

interface Snapshot<T> {
  key: string;
  data: T;
}

/**
 * One JSON file, read and changed by many processes. `read` returns the cached content while the
 * file is unchanged (do not mutate it); `update` changes a copy under the lock.
 */
export class LockedJsonFile<T> {
  readonly file: string;
  readonly #lockFile: string;
  readonly #label: string;
  readonly #parse: (value: unknown) => T;
  readonly #empty: () => T;
  readonly #error: (message: string) => Error;
  readonly #lockTimeoutMs: number;
  readonly #staleLockMs: number;
  #snapshot: Snapshot<T> | undefined;
  /** Changes made through this object, one at a time (another object on the same file waits on the lock file). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(file: string, options: LockedJsonFileOptions<T>) {
    this.file = file;
    this.#lockFile = `${file}.lock`;
    this.#label = options.label;
    this.#parse = options.parse;
    this.#empty = options.empty;
    this.#error = options.error ?? ((message) => new LockedJsonFileError(message));
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.#staleLockMs = options.staleLockMs ?? 30_000;
  }

  /** The file's content (`empty()` when there is no file yet). Throws for a corrupt or unreadable file. */
  async read(): Promise<T> {
    const key = await this.#statKey();
    if (key === undefined) return this.#empty();
    if (this.#snapshot?.key === key) return this.#snapshot.data;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if (isNotFound(error)) return this.#empty();
      throw this.#error(`${this.#label} ${this.file}: cannot read it (${describe(error)})`);
    }
    const data = this.parseText(text);
    this.#snapshot = { key, data };
    return data;
  }

  /** Parses and checks a file's text; the error says the file is corrupt, and why. */
  parseText(text: string): T {
    const corrupt = (why: string): Error =>
      this.#error(`${this.#label} ${this.file} is corrupt (${why}); fix it or move it away (it is never overwritten)`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      // V8's message quotes the text, which may be a secret: only where it went wrong is said.
      throw corrupt(`not JSON${whereInvalid(text, error)}`);
    }
    try {
      return this.#parse(value);
    } catch (error) {
      throw corrupt(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * Read-modify-write under the lock: `change` gets a copy of the current content (read again
   * under the lock) to change in place, and returns whether it changed anything (only then is it
   * written). Resolves with the content after the change.
   */
  async update(change: (data: T) => boolean): Promise<T> {
    const run = async (): Promise<T> => {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      const release = await this.#lock();
      try {
        this.#snapshot = undefined;
        const data = structuredClone(await this.read());
        if (!change(data)) return data;
        await this.#write(data);
        return data;
      } finally {
        await release();
      }
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #write(data: T): Promise<void> {
    const temporary = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const text = `${JSON.stringify(data, null, 2)}\n`;
    try {
      await writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw this.#error(`${this.#label} ${this.file}: cannot write it (${describe(error)})`);
    }
    const key = await this.#statKey();
    // What a later read would parse (no undefined members), never the object the caller holds.
    if (key !== undefined) this.#snapshot = { key, data: JSON.parse(text) as T };
  }

  async #statKey(): Promise<string | undefined> {
    try {
      const info = await stat(this.file, { bigint: true });
      return `${info.ino}:${info.size}:${info.mtimeNs}`;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw this.#error(`${this.#label} ${this.file}: cannot read it (${describe(error)})`);
    }
  }

  /** Takes the lock file (O_EXCL), waiting for another holder; a stale one is taken over. */
  async #lock(): Promise<() => Promise<void>> {
    const deadline = Date.now() + this.#lockTimeoutMs;
    const token = `${process.pid} ${randomBytes(8).toString('hex')}`;
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await open(this.#lockFile, 'wx', 0o600);
        await handle.writeFile(token);
        await handle.close();
        return async () => {
          const holder = await readFile(this.#lockFile, 'utf8').catch(() => undefined);
          if (holder === token) await unlink(this.#lockFile).catch(() => undefined);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw this.#error(`${this.#label} ${this.file}: cannot take its lock ${this.#lockFile} (${describe(error)})`);
        }
      }
      if (await this.#breakStaleLock()) continue;
      if (Date.now() > deadline) {
        throw this.#error(`${this.#label} ${this.file}: still locked after ${this.#lockTimeoutMs} ms by ${this.#lockFile}; remove it if no mcp-chain is running`);
      }
      await delay(Math.min(50, 2 + attempt * 2) + Math.random() * 5);
    }
  }

  /** Removes the lock file when its holder's process is gone or it is older than staleLockMs. */
  async #breakStaleLock(): Promise<boolean> {
    let holder: string;
    let age: number;
    try {
      holder = await readFile(this.#lockFile, 'utf8');
      age = Date.now() - (await stat(this.#lockFile)).mtimeMs;
    } catch {
      return false; // gone meanwhile: try again at once
    }
    const pid = Number(holder.split(' ')[0]);
    const gone = holder !== '' && Number.isInteger(pid) && pid > 0 && !processAlive(pid);
    // An empty file is a holder between open and write: stale only by age.
    if (!gone && age < this.#staleLockMs) return false;
    const again = await readFile(this.#lockFile, 'utf8').catch(() => undefined);
    if (again !== holder) return false;
    await unlink(this.#lockFile).catch(() => undefined);
    return true;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** ` at line L column C` from a JSON.parse error that gives a position, else ''. */
function whereInvalid(text: string, error: unknown): string {
  const position = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  if (position === undefined) return text.trim() === '' ? ': empty' : '';
  const before = text.slice(0, Number(position)).split('\n');
  return ` at line ${before.length} column ${(before.at(-1)?.length ?? 0) + 1}`;
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

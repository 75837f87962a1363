/**
 * @module
 * The file where `pin` keeps the tool definitions it trusts: JSON, shared safely between
 * processes (every change is a read-modify-write under a lock file, written to a temporary file
 * and renamed into place, mode 0600 in a directory made 0700), and read again whenever another
 * process changed it. A file that is not a pin store is an error, never overwritten.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { JsonObject } from '../../message/jsonrpc.js';

/** A definition seen that differs from the pinned one, waiting for `mcp-chain pin accept`. */
export interface PendingChange {
  hash: string;
  definition: JsonObject;
  /** When it was first seen (ISO 8601). */
  seenAt: string;
}

/** One trusted tool. */
export interface PinEntry {
  /** `sha256:<hex>` of the canonical JSON of `definition`. */
  hash: string;
  /** The pinned fields of the definition (see `PINNED_FIELDS`). */
  definition: JsonObject;
  /** When it was first pinned (ISO 8601). */
  firstSeen: string;
  /** When it was last accepted by a person, if ever (ISO 8601). */
  acceptedAt?: string;
  pending?: PendingChange;
}

/**
 * The whole file: namespace → tool name → entry, and the tools held back as new (`onNew: 'hide'`):
 * namespace → tool name → the definition seen, not pinned until accepted. `pendingNew` is absent
 * from files that have none (and from files written before it existed: they read as they are).
 */
export interface PinFile {
  version: 1;
  namespaces: Record<string, Record<string, PinEntry>>;
  pendingNew?: Record<string, Record<string, PendingChange>>;
}

/** A tool as a `tools/list` presented it, for `PinStore.check`. */
export interface SeenTool {
  name: string;
  hash: string;
  definition: JsonObject;
}

/**
 * What `check` found for one tool: `'new'` first seen at the first listing of its namespace (now
 * pinned); `'same'` as pinned; `'changed'` different (now pending); `'added'` first seen in a
 * namespace that already had pins, now pinned; `'held'` likewise but not pinned (`onNew: 'hold'`):
 * recorded as pending-new, waiting for `accept`.
 */
export type PinVerdict = 'new' | 'same' | 'changed' | 'added' | 'held';

/** What `check` does with a tool first seen in a namespace that already has pins. */
export interface PinCheckOptions {
  /** `'pin'` (the default): pin it; `'hold'`: record it as pending-new (`PinFile.pendingNew`), unpinned. */
  onNew?: 'pin' | 'hold';
}

/** A change `accept` recorded. */
export interface AcceptedChange {
  namespace: string;
  tool: string;
  /** The hash pinned before; absent for a tool that was new (pending-new), pinned for the first time. */
  from?: string;
  to: string;
}

/** The store file is unreadable, not a pin store, or its lock could not be taken. */
export class PinStoreError extends Error {
  override readonly name = 'PinStoreError';
}

export interface PinStoreOptions {
  /** How long to wait for another process's lock before failing (ms, default 10 000). */
  lockTimeoutMs?: number;
  /** A lock file older than this (ms, default 30 000), or whose process is gone, is taken over. */
  staleLockMs?: number;
  /** The clock, for `firstSeen` and `seenAt`. */
  now?: () => Date;
}

/**
 * `$XDG_CONFIG_HOME/mcp-chain/pins.json`, or `~/.config/mcp-chain/pins.json` when
 * `XDG_CONFIG_HOME` is not set.
 */
export function defaultPinStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'mcp-chain', 'pins.json');
}

interface Snapshot {
  key: string;
  data: PinFile;
}

/**
 * A pin store file. Reads are cached and re-done only when the file changed (inode, size or
 * mtime); `check` and `accept` change it under a lock so that processes sharing it never lose
 * each other's entries.
 */
export class PinStore {
  readonly file: string;
  readonly #lockFile: string;
  readonly #lockTimeoutMs: number;
  readonly #staleLockMs: number;
  readonly #now: () => Date;
  #snapshot: Snapshot | undefined;
  /** Changes of this process, one at a time (the lock file is per process, not per instance). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(file: string, options: PinStoreOptions = {}) {
    this.file = file;
    this.#lockFile = `${file}.lock`;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.#staleLockMs = options.staleLockMs ?? 30_000;
    this.#now = options.now ?? (() => new Date());
  }

  /** The file's content (an empty store when there is no file yet). Throws a PinStoreError for a corrupt file. */
  async read(): Promise<PinFile> {
    const key = await this.#statKey();
    if (key === undefined) return emptyFile();
    if (this.#snapshot?.key === key) return this.#snapshot.data;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if (isNotFound(error)) return emptyFile();
      throw new PinStoreError(`pin store ${this.file}: cannot read it (${describe(error)})`);
    }
    const data = parsePinFile(text, this.file);
    this.#snapshot = { key, data };
    return data;
  }

  /**
   * Compares the tools a server presented with the pinned ones of `namespace`: at the first
   * listing of a namespace (no pins yet) every tool is pinned; later, a tool never seen is pinned,
   * or with `onNew: 'hold'` recorded as pending-new (its definition updated if it changes again);
   * a different definition is recorded as `pending` (the pinned one stays); the pinned definition
   * seen again clears a pending change. Writes only when something changed.
   */
  async check(namespace: string, tools: readonly SeenTool[], options: PinCheckOptions = {}): Promise<Map<string, PinVerdict>> {
    const hold = options.onNew === 'hold';
    const verdicts = (data: PinFile): { verdicts: Map<string, PinVerdict>; dirty: boolean } => {
      const entries = data.namespaces[namespace] ?? {};
      const held = data.pendingNew?.[namespace] ?? {};
      const known = Object.keys(entries).length > 0;
      const result = new Map<string, PinVerdict>();
      let dirty = false;
      for (const tool of tools) {
        const entry = Object.hasOwn(entries, tool.name) ? entries[tool.name] : undefined;
        if (entry === undefined) {
          if (!known) result.set(tool.name, 'new');
          else if (!hold) result.set(tool.name, 'added');
          else {
            result.set(tool.name, 'held');
            if (!Object.hasOwn(held, tool.name) || held[tool.name]?.hash !== tool.hash) dirty = true;
            continue;
          }
          dirty = true;
        } else if (entry.hash === tool.hash) {
          result.set(tool.name, 'same');
          if (entry.pending !== undefined) dirty = true;
        } else {
          result.set(tool.name, 'changed');
          if (entry.pending?.hash !== tool.hash) dirty = true;
        }
      }
      return { verdicts: result, dirty };
    };
    const first = verdicts(await this.read());
    if (!first.dirty) return first.verdicts;
    let outcome = first.verdicts;
    await this.update((data) => {
      const now = this.#now().toISOString();
      const fresh = verdicts(data);
      const entries = (data.namespaces[namespace] ??= {});
      outcome = fresh.verdicts;
      for (const tool of tools) {
        const verdict = fresh.verdicts.get(tool.name);
        const entry = Object.hasOwn(entries, tool.name) ? entries[tool.name] : undefined;
        if (verdict === 'held') {
          const held = ((data.pendingNew ??= {})[namespace] ??= {});
          if (held[tool.name]?.hash !== tool.hash) held[tool.name] = { hash: tool.hash, definition: tool.definition, seenAt: now };
          continue;
        }
        if (verdict === 'new' || verdict === 'added') {
          entries[tool.name] = { hash: tool.hash, definition: tool.definition, firstSeen: now };
          forgetHeld(data, namespace, tool.name);
        }
        else if (entry !== undefined && verdict === 'same') delete entry.pending;
        else if (entry !== undefined && verdict === 'changed' && entry.pending?.hash !== tool.hash) {
          entry.pending = { hash: tool.hash, definition: tool.definition, seenAt: now };
        }
      }
      return fresh.dirty;
    });
    return outcome;
  }

  /**
   * Makes pending definitions (changed, and new ones held back) the pinned ones: of every
   * namespace, or of `namespace`; of every tool, or of those named. Resolves with what it accepted.
   */
  async accept(filter: { namespace?: string; tools?: readonly string[] } = {}): Promise<AcceptedChange[]> {
    return this.#accept((namespace, tool) =>
      (filter.namespace === undefined || namespace === filter.namespace) && (filter.tools === undefined || filter.tools.length === 0 || filter.tools.includes(tool)),
    );
  }

  /**
   * Accepts exactly the pending changes (and pending-new tools) listed, each only if its pending
   * hash is still the one given (the one a person reviewed): a definition that changed again
   * meanwhile stays pending.
   */
  async acceptChanges(changes: readonly { namespace: string; tool: string; hash: string }[]): Promise<AcceptedChange[]> {
    return this.#accept((namespace, tool, pending) => changes.some((change) => change.namespace === namespace && change.tool === tool && change.hash === pending.hash));
  }

  async #accept(chosen: (namespace: string, tool: string, pending: PendingChange) => boolean): Promise<AcceptedChange[]> {
    const accepted: AcceptedChange[] = [];
    await this.update((data) => {
      accepted.length = 0;
      const now = this.#now().toISOString();
      for (const [namespace, entries] of Object.entries(data.namespaces)) {
        for (const [tool, entry] of Object.entries(entries)) {
          if (entry.pending === undefined || !chosen(namespace, tool, entry.pending)) continue;
          accepted.push({ namespace, tool, from: entry.hash, to: entry.pending.hash });
          entries[tool] = { hash: entry.pending.hash, definition: entry.pending.definition, firstSeen: entry.firstSeen, acceptedAt: now };
        }
      }
      for (const [namespace, held] of Object.entries(data.pendingNew ?? {})) {
        for (const [tool, pending] of Object.entries(held)) {
          if (!chosen(namespace, tool, pending)) continue;
          const entries = (data.namespaces[namespace] ??= {});
          forgetHeld(data, namespace, tool);
          if (Object.hasOwn(entries, tool)) continue; // pinned meanwhile (an onNew that pins): nothing to accept
          accepted.push({ namespace, tool, to: pending.hash });
          entries[tool] = { hash: pending.hash, definition: pending.definition, firstSeen: pending.seenAt, acceptedAt: now };
        }
      }
      return accepted.length > 0;
    });
    return accepted;
  }

  /**
   * Read-modify-write under the lock: `change` gets the current content (read again under the
   * lock) to change in place, and returns whether it changed anything (only then is it written).
   */
  async update(change: (data: PinFile) => boolean): Promise<PinFile> {
    const run = async (): Promise<PinFile> => {
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

  async #write(data: PinFile): Promise<void> {
    const temporary = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw new PinStoreError(`pin store ${this.file}: cannot write it (${describe(error)})`);
    }
    const key = await this.#statKey();
    if (key !== undefined) this.#snapshot = { key, data };
  }

  async #statKey(): Promise<string | undefined> {
    try {
      const info = await stat(this.file, { bigint: true });
      return `${info.ino}:${info.size}:${info.mtimeNs}`;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new PinStoreError(`pin store ${this.file}: cannot read it (${describe(error)})`);
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
          throw new PinStoreError(`pin store ${this.file}: cannot take its lock ${this.#lockFile} (${describe(error)})`);
        }
      }
      if (await this.#breakStaleLock()) continue;
      if (Date.now() > deadline) {
        throw new PinStoreError(`pin store ${this.file}: still locked after ${this.#lockTimeoutMs} ms by ${this.#lockFile}; remove it if no mcp-chain is running`);
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

/** Removes a tool's pending-new record, and the maps it leaves empty. */
function forgetHeld(data: PinFile, namespace: string, tool: string): void {
  const all = data.pendingNew;
  const held = all?.[namespace];
  if (all === undefined || held === undefined || !Object.hasOwn(held, tool)) return;
  const rest = Object.fromEntries(Object.entries(held).filter(([name]) => name !== tool));
  const others = Object.fromEntries(Object.entries(all).filter(([name]) => name !== namespace));
  if (Object.keys(rest).length > 0) others[namespace] = rest;
  if (Object.keys(others).length > 0) data.pendingNew = others;
  else delete data.pendingNew;
}

function emptyFile(): PinFile {
  return { version: 1, namespaces: {} };
}

/** The content of a store file, checked; a PinStoreError saying what is wrong otherwise. */
export function parsePinFile(text: string, file: string): PinFile {
  const corrupt = (why: string): PinStoreError =>
    new PinStoreError(`pin store ${file} is corrupt (${why}); fix it or move it away (it is never overwritten)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(`not JSON: ${describe(error)}`);
  }
  if (!isObject(value) || value.version !== 1 || !isObject(value.namespaces)) throw corrupt('expected { "version": 1, "namespaces": { … } }');
  for (const [namespace, entries] of Object.entries(value.namespaces)) {
    if (!isObject(entries)) throw corrupt(`namespace ${JSON.stringify(namespace)} is not an object`);
    for (const [tool, entry] of Object.entries(entries)) {
      const where = `${namespace}/${tool}`;
      if (!isObject(entry) || typeof entry.hash !== 'string' || !isObject(entry.definition) || typeof entry.firstSeen !== 'string') {
        throw corrupt(`entry ${JSON.stringify(where)} needs hash, definition and firstSeen`);
      }
      const pending = entry.pending;
      if (pending !== undefined && (!isObject(pending) || typeof pending.hash !== 'string' || !isObject(pending.definition) || typeof pending.seenAt !== 'string')) {
        throw corrupt(`entry ${JSON.stringify(where)} has a pending change without hash, definition and seenAt`);
      }
    }
  }
  const pendingNew = value.pendingNew;
  if (pendingNew !== undefined) {
    if (!isObject(pendingNew)) throw corrupt('pendingNew is not an object');
    for (const [namespace, held] of Object.entries(pendingNew)) {
      if (!isObject(held)) throw corrupt(`pendingNew ${JSON.stringify(namespace)} is not an object`);
      for (const [tool, pending] of Object.entries(held)) {
        if (!isObject(pending) || typeof pending.hash !== 'string' || !isObject(pending.definition) || typeof pending.seenAt !== 'string') {
          throw corrupt(`pendingNew ${JSON.stringify(`${namespace}/${tool}`)} needs hash, definition and seenAt`);
        }
      }
    }
  }
  return value as unknown as PinFile;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

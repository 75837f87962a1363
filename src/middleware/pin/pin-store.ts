/**
 * @module
 * The file where `pin` keeps the tool definitions it trusts: JSON, shared safely between
 * processes (every change is a read-modify-write under a lock file, written to a temporary file
 * and renamed into place, mode 0600 in a directory made 0700), and read again whenever another
 * process changed it. A file that is not a pin store is an error, never overwritten.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CorruptContentError, LockedJsonFile } from '../../fs/locked-json-file.js';
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

/**
 * A pin store file. Reads are cached and re-done only when the file changed (inode, size or
 * mtime); `check` and `accept` change it under a lock so that processes sharing it never lose
 * each other's entries.
 */
export class PinStore {
  readonly file: string;
  readonly #file: LockedJsonFile<PinFile>;
  readonly #now: () => Date;

  constructor(file: string, options: PinStoreOptions = {}) {
    this.file = file;
    this.#file = pinFile(file, options);
    this.#now = options.now ?? (() => new Date());
  }

  /** The file's content (an empty store when there is no file yet). Throws a PinStoreError for a corrupt file. */
  async read(): Promise<PinFile> {
    return this.#file.read();
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
    return this.#file.update(change);
  }
}

function pinFile(file: string, options: PinStoreOptions): LockedJsonFile<PinFile> {
  return new LockedJsonFile<PinFile>(file, {
    label: 'pin store',
    parse: checkPinFile,
    empty: emptyFile,
    error: (message) => new PinStoreError(message),
    lockTimeoutMs: options.lockTimeoutMs,
    staleLockMs: options.staleLockMs,
  });
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
  return pinFile(file, {}).parseText(text);
}

/** Checks the JSON of a store file; the error says what is wrong. */
function checkPinFile(value: unknown): PinFile {
  const corrupt = (why: string): CorruptContentError => new CorruptContentError(why);
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



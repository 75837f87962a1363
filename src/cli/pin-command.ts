/**
 * @module
 * What `mcp-chain pin status` and `mcp-chain pin accept` do, on a pin store file (see
 * middleware/pin/pin-store.ts), or on the stores a config file's `pin` entries name. Loaded by
 * commands/pin.ts only when one of them runs; the config loader only when a config file is given.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { ConfigError } from '../config/config-error.js';
import { defaultPinStorePath, PinStore, PinStoreError, type PendingChange, type PinEntry, type PinFile } from '../middleware/pin/pin-store.js';
import { unifiedDiff } from './unified-diff.js';

/** Where the command reads answers and writes: the process's streams, or a test's. */
export interface PinCommandIo {
  readonly input: Readable & { readonly isTTY?: boolean };
  /** The report (diffs, counts, what was accepted). */
  readonly output: Writable;
  /** Errors and refusals. */
  readonly error: Writable;
}

const processIo = (): PinCommandIo => ({ input: process.stdin, output: process.stdout, error: process.stderr });

export interface PinStatusOptions {
  /** The store file; default `defaultPinStorePath()`, or the stores of `config`. */
  readonly store?: string | undefined;
  /**
   * A config file whose `pin` entries (the gateway's `middleware` and the servers' own) name the
   * stores, and for `accept` without `namespace`, the namespaces. Not with `store`.
   */
  readonly config?: string | undefined;
}

export interface PinAcceptOptions extends PinStatusOptions {
  /** Only the changes of these tools (any namespace unless `namespace`); all when empty. */
  readonly tools: readonly string[];
  readonly namespace?: string | undefined;
  /** Accept without asking. */
  readonly yes: boolean;
}

/** A pin store a config file uses, and the namespaces its `pin` entries give it. */
export interface ConfiguredPinStore {
  /** Absolute: a relative `store` is relative to the config file; the default store when none is named. */
  readonly store: string;
  /** In the order of the file, without repeats. */
  readonly namespaces: readonly string[];
}

/** A config file that cannot say which pin stores it uses: no `pin` entry, or only middleware given as functions. */
export class PinConfigError extends Error {
  override readonly name = 'PinConfigError';
}

/**
 * The pin stores of a config file's `pin` entries, each with its namespaces (a server's name in a
 * server's own list, `"gateway"` in the gateway's, unless the entry names one). Loads the file
 * with `loadConfig` (so a file with problems is a ConfigError); a file without a `pin` entry is a
 * PinConfigError, which says so when some middleware are functions (a TypeScript config), whose
 * options cannot be read.
 */
export async function pinStoresOfConfig(file: string): Promise<ConfiguredPinStore[]> {
  const { loadConfig } = await import('../config/load-config.js');
  const config = await loadConfig(file);
  const dir = dirname(config.file);
  const stores = new Map<string, string[]>();
  let functions = 0;
  const lists = [{ server: undefined, middleware: config.middleware }, ...config.servers.map((server) => ({ server: server.name, middleware: server.middleware }))];
  for (const { server, middleware } of lists) {
    for (const entry of middleware) {
      if (entry.kind === 'function') functions++;
      if (entry.kind !== 'builtin' || entry.name !== 'pin') continue;
      const { store, namespace } = entry.options;
      const path = typeof store === 'string' && store !== '' ? (isAbsolute(store) ? store : resolve(dir, store)) : defaultPinStorePath();
      const name = typeof namespace === 'string' && namespace !== '' ? namespace : (server ?? 'gateway');
      const namespaces = stores.get(path) ?? [];
      if (!namespaces.includes(name)) namespaces.push(name);
      stores.set(path, namespaces);
    }
  }
  if (stores.size === 0) {
    const why =
      functions > 0
        ? `; ${functions === 1 ? 'one of its middleware is a function' : `${functions} of its middleware are functions`} (a TypeScript config), whose options cannot be read this way: give the store with --store`
        : ': give the store with --store';
    throw new PinConfigError(`${config.file} has no pin middleware (in its middleware list or a server's), so it names no pin store${why}`);
  }
  return [...stores].map(([store, namespaces]) => ({ store, namespaces }));
}

/** A store to act on, and the namespaces to accept in (all when undefined). */
interface Target {
  readonly store: PinStore;
  readonly namespaces: readonly string[] | undefined;
}

/** The stores to act on: the one given (or the default), or those of the config file; undefined when the config cannot be used (said on `io.error`). */
async function targetsOf(options: PinStatusOptions, io: PinCommandIo): Promise<Target[] | undefined> {
  if (options.config === undefined) return [{ store: new PinStore(options.store ?? defaultPinStorePath()), namespaces: undefined }];
  try {
    return (await pinStoresOfConfig(options.config)).map(({ store, namespaces }) => ({ store: new PinStore(store), namespaces }));
  } catch (error) {
    if (error instanceof ConfigError) {
      const count = error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`;
      io.error.write(`mcp-chain pin: cannot read the pin stores of ${options.config} (${count}):\n${error.message}\n`);
      return undefined;
    }
    if (error instanceof PinConfigError) {
      io.error.write(`mcp-chain pin: ${error.message}\n`);
      return undefined;
    }
    throw error;
  }
}

/**
 * `pin status`: pinned tools per namespace, the tools with pending changes and the new tools held
 * back; of each store of the config file, when one is given. Exit 0; 1 when a store or the config
 * file cannot be read.
 */
export async function pinStatus(options: PinStatusOptions, io: PinCommandIo = processIo()): Promise<number> {
  const targets = await targetsOf(options, io);
  if (targets === undefined) return 1;
  let code = 0;
  for (const { store } of targets) {
    const data = await readStore(store, io);
    if (data === undefined) {
      code = 1;
      continue;
    }
    const lines = [`Pin store: ${store.file}`];
    const namespaces = [...new Set([...Object.keys(data.namespaces), ...Object.keys(data.pendingNew ?? {})])].sort((a, b) => a.localeCompare(b));
    if (namespaces.length === 0) lines.push('No tools pinned yet: they are pinned the first time a chain with `pin` lists them.');
    let pending = 0;
    for (const namespace of namespaces) {
      const entries = data.namespaces[namespace] ?? {};
      const changed = Object.entries(entries)
        .filter(([, entry]) => entry.pending !== undefined)
        .map(([tool]) => tool)
        .sort();
      const added = Object.keys(data.pendingNew?.[namespace] ?? {}).sort();
      pending += changed.length + added.length;
      const count = Object.keys(entries).length;
      lines.push(
        `  ${namespace}: ${count} ${count === 1 ? 'tool' : 'tools'} pinned${changed.length === 0 ? '' : `, ${changed.length} changed: ${changed.join(', ')}`}${added.length === 0 ? '' : `, ${added.length} new (not pinned): ${added.join(', ')}`}`,
      );
    }
    if (pending > 0) {
      const where = options.config !== undefined ? ` --config ${shellWord(options.config)}` : options.store !== undefined ? ` --store ${shellWord(options.store)}` : '';
      lines.push(`${pending} pending ${pending === 1 ? 'change' : 'changes'}: review and accept with \`mcp-chain pin accept${where}\``);
    }
    io.output.write(`${lines.join('\n')}\n`);
  }
  return code;
}

/**
 * `pin accept`: shows each pending change as a unified diff of the pretty-printed definitions
 * (pinned vs pending; a new tool held back as a diff from nothing) and accepts it if the person
 * says so on a terminal, or at once with `--yes`. With a config file: in each of its stores (named
 * before its changes), in the namespaces its `pin` entries give that store unless `namespace`.
 * Exit 0 when done (declined changes stay pending); 1 when a store or the config file cannot be
 * read or written, a tool named has no pending change, or there is no terminal to ask and no `--yes`.
 */
export async function pinAccept(options: PinAcceptOptions, io: PinCommandIo = processIo()): Promise<number> {
  const targets = await targetsOf(options, io);
  if (targets === undefined) return 1;
  const changes: Change[] = [];
  for (const target of targets) {
    const data = await readStore(target.store, io);
    if (data === undefined) return 1;
    const namespaces = options.namespace !== undefined ? [options.namespace] : target.namespaces;
    changes.push(...pendingChanges(target.store, data, namespaces, options.tools));
  }
  const files = targets.map((target) => target.store.file).join(', ');
  const missing = options.tools.filter((tool) => !changes.some((change) => change.tool === tool));
  if (missing.length > 0) {
    const where = options.namespace === undefined ? '' : ` in namespace "${options.namespace}"`;
    io.error.write(`mcp-chain pin accept: no pending change for ${missing.map((tool) => `"${tool}"`).join(', ')}${where} in ${files} (see mcp-chain pin status)\n`);
    return 1;
  }
  const named = options.config !== undefined;
  if (changes.length === 0) {
    for (const { store, namespaces } of targets) {
      const of = named && options.namespace === undefined && namespaces !== undefined ? ` (${namespaces.length === 1 ? 'namespace' : 'namespaces'} ${namespaces.join(', ')})` : '';
      io.output.write(`No pending changes in ${store.file}${of}.\n`);
    }
    return 0;
  }
  const ask = options.yes ? undefined : io.input.isTTY === true ? createInterface({ input: io.input, output: io.output }) : undefined;
  // End of input (Ctrl-D) answers no to the question asked and to every later one.
  const closed = ask === undefined ? undefined : new Promise<string>((resolve) => ask.once('close', () => resolve('')));
  try {
    const chosen: Change[] = [];
    let shownStore: PinStore | undefined;
    for (const change of changes) {
      if (named && change.store !== shownStore) io.output.write(`Pin store: ${change.store.file}\n`);
      shownStore = change.store;
      io.output.write(describeChange(change));
      if (options.yes) chosen.push(change);
      else if (ask !== undefined) {
        const answer = await Promise.race([ask.question('Accept? [y/N] ').catch(() => ''), closed ?? '']);
        if (/^\s*y(es)?\s*$/i.test(answer)) chosen.push(change);
        else io.output.write(`Left pending: ${change.namespace}/${change.tool}\n\n`);
      }
    }
    if (!options.yes && ask === undefined) {
      io.error.write('mcp-chain pin accept: not asking without a terminal; review the changes above and run again with --yes to accept them\n');
      return 1;
    }
    let code = 0;
    for (const { store } of targets) {
      const mine = chosen.filter((change) => change.store === store);
      if (mine.length === 0) continue;
      const accepted = await store.acceptChanges(mine.map(({ namespace, tool, pending }) => ({ namespace, tool, hash: pending.hash })));
      const inStore = named ? ` in ${store.file}` : '';
      for (const change of accepted) io.output.write(`Accepted: ${change.namespace}/${change.tool} (${change.to})${inStore}\n`);
      const stale = mine.filter((change) => !accepted.some((done) => done.namespace === change.namespace && done.tool === change.tool));
      for (const change of stale) {
        io.error.write(`mcp-chain pin accept: ${change.namespace}/${change.tool} changed again while you reviewed it; it stays pending (run pin accept again)\n`);
      }
      if (stale.length > 0) code = 1;
    }
    return code;
  } catch (error) {
    if (error instanceof PinStoreError) {
      io.error.write(`mcp-chain pin accept: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    ask?.close();
  }
}

/** A pending change of a pinned tool (`entry`), or a new tool held back (no `entry`). */
interface Change {
  store: PinStore;
  namespace: string;
  tool: string;
  entry: PinEntry | undefined;
  pending: PendingChange;
}

function pendingChanges(store: PinStore, data: PinFile, namespaces: readonly string[] | undefined, tools: readonly string[]): Change[] {
  const changes: Change[] = [];
  const all = [...new Set([...Object.keys(data.namespaces), ...Object.keys(data.pendingNew ?? {})])].sort((a, b) => a.localeCompare(b));
  for (const namespace of all) {
    if (namespaces !== undefined && !namespaces.includes(namespace)) continue;
    const found: Change[] = [];
    for (const [tool, entry] of Object.entries(data.namespaces[namespace] ?? {})) {
      if (entry.pending !== undefined) found.push({ store, namespace, tool, entry, pending: entry.pending });
    }
    for (const [tool, pending] of Object.entries(data.pendingNew?.[namespace] ?? {})) found.push({ store, namespace, tool, entry: undefined, pending });
    found.sort((a, b) => a.tool.localeCompare(b.tool));
    changes.push(...found.filter((change) => tools.length === 0 || tools.includes(change.tool)));
  }
  return changes;
}

function describeChange({ namespace, tool, entry, pending }: Change): string {
  const after = `${JSON.stringify(pending.definition, null, 2)}\n`;
  if (entry === undefined) {
    const diff = unifiedDiff('', after, `not pinned ${namespace}/${tool}`, `new        ${namespace}/${tool} (${pending.hash}, seen ${pending.seenAt})`);
    return `Tool "${tool}" of "${namespace}" is new since its tools were pinned:\n${diff}\n`;
  }
  const diff = unifiedDiff(
    `${JSON.stringify(entry.definition, null, 2)}\n`,
    after,
    `pinned  ${namespace}/${tool} (${entry.hash}, since ${entry.acceptedAt ?? entry.firstSeen})`,
    `pending ${namespace}/${tool} (${pending.hash}, seen ${pending.seenAt})`,
  );
  return `Tool "${tool}" of "${namespace}" changed since it was pinned:\n${diff}\n`;
}

async function readStore(store: PinStore, io: PinCommandIo): Promise<PinFile | undefined> {
  try {
    return await store.read();
  } catch (error) {
    if (!(error instanceof PinStoreError)) throw error;
    io.error.write(`mcp-chain pin: ${error.message}\n`);
    return undefined;
  }
}

/** A shell word: as is when safe, single-quoted otherwise. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

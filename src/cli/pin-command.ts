/**
 * @module
 * What `mcp-chain pin status` and `mcp-chain pin accept` do, on a pin store file (see
 * middleware/pin/pin-store.ts). Loaded by commands/pin.ts only when one of them runs.
 */
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { defaultPinStorePath, PinStore, PinStoreError, type PinEntry, type PinFile } from '../middleware/pin/pin-store.js';
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
  /** The store file; default `defaultPinStorePath()`. */
  readonly store?: string | undefined;
}

export interface PinAcceptOptions extends PinStatusOptions {
  /** Only the changes of these tools (any namespace unless `namespace`); all when empty. */
  readonly tools: readonly string[];
  readonly namespace?: string | undefined;
  /** Accept without asking. */
  readonly yes: boolean;
}

/** `pin status`: pinned tools per namespace and the tools with pending changes. Exit 0; 1 when the store cannot be read. */
export async function pinStatus(options: PinStatusOptions, io: PinCommandIo = processIo()): Promise<number> {
  const store = new PinStore(options.store ?? defaultPinStorePath());
  const data = await readStore(store, io);
  if (data === undefined) return 1;
  const lines = [`Pin store: ${store.file}`];
  const namespaces = Object.entries(data.namespaces).sort(([a], [b]) => a.localeCompare(b));
  if (namespaces.length === 0) lines.push('No tools pinned yet: they are pinned the first time a chain with `pin` lists them.');
  let pending = 0;
  for (const [namespace, entries] of namespaces) {
    const changed = Object.entries(entries)
      .filter(([, entry]) => entry.pending !== undefined)
      .map(([tool]) => tool)
      .sort();
    pending += changed.length;
    const count = Object.keys(entries).length;
    lines.push(`  ${namespace}: ${count} ${count === 1 ? 'tool' : 'tools'} pinned${changed.length === 0 ? '' : `, ${changed.length} changed: ${changed.join(', ')}`}`);
  }
  if (pending > 0) {
    lines.push(`${pending} pending ${pending === 1 ? 'change' : 'changes'}: review and accept with \`mcp-chain pin accept${storeArg(options.store)}\``);
  }
  io.output.write(`${lines.join('\n')}\n`);
  return 0;
}

/**
 * `pin accept`: shows each pending change as a unified diff of the pretty-printed definitions
 * (pinned vs pending) and accepts it if the person says so on a terminal, or at once with `--yes`.
 * Exit 0 when done (declined changes stay pending); 1 when the store cannot be read or written,
 * a tool named has no pending change, or there is no terminal to ask and no `--yes`.
 */
export async function pinAccept(options: PinAcceptOptions, io: PinCommandIo = processIo()): Promise<number> {
  const store = new PinStore(options.store ?? defaultPinStorePath());
  const data = await readStore(store, io);
  if (data === undefined) return 1;
  const changes = pendingChanges(data, options);
  const missing = options.tools.filter((tool) => !changes.some((change) => change.tool === tool));
  if (missing.length > 0) {
    const where = options.namespace === undefined ? '' : ` in namespace "${options.namespace}"`;
    io.error.write(`mcp-chain pin accept: no pending change for ${missing.map((tool) => `"${tool}"`).join(', ')}${where} in ${store.file} (see mcp-chain pin status)\n`);
    return 1;
  }
  if (changes.length === 0) {
    io.output.write(`No pending changes in ${store.file}.\n`);
    return 0;
  }
  const ask = options.yes ? undefined : io.input.isTTY === true ? createInterface({ input: io.input, output: io.output }) : undefined;
  // End of input (Ctrl-D) answers no to the question asked and to every later one.
  const closed = ask === undefined ? undefined : new Promise<string>((resolve) => ask.once('close', () => resolve('')));
  try {
    const chosen: typeof changes = [];
    for (const change of changes) {
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
    if (chosen.length === 0) return 0;
    const accepted = await store.acceptChanges(chosen.map(({ namespace, tool, entry }) => ({ namespace, tool, hash: entry.pending?.hash ?? '' })));
    for (const change of accepted) io.output.write(`Accepted: ${change.namespace}/${change.tool} (${change.to})\n`);
    const stale = chosen.filter((change) => !accepted.some((done) => done.namespace === change.namespace && done.tool === change.tool));
    for (const change of stale) {
      io.error.write(`mcp-chain pin accept: ${change.namespace}/${change.tool} changed again while you reviewed it; it stays pending (run pin accept again)\n`);
    }
    return stale.length > 0 ? 1 : 0;
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

interface Change {
  namespace: string;
  tool: string;
  entry: PinEntry;
}

function pendingChanges(data: PinFile, options: PinAcceptOptions): Change[] {
  const changes: Change[] = [];
  for (const [namespace, entries] of Object.entries(data.namespaces).sort(([a], [b]) => a.localeCompare(b))) {
    if (options.namespace !== undefined && namespace !== options.namespace) continue;
    for (const [tool, entry] of Object.entries(entries).sort(([a], [b]) => a.localeCompare(b))) {
      if (entry.pending === undefined) continue;
      if (options.tools.length > 0 && !options.tools.includes(tool)) continue;
      changes.push({ namespace, tool, entry });
    }
  }
  return changes;
}

function describeChange({ namespace, tool, entry }: Change): string {
  const pending = entry.pending;
  if (pending === undefined) return '';
  const diff = unifiedDiff(
    `${JSON.stringify(entry.definition, null, 2)}\n`,
    `${JSON.stringify(pending.definition, null, 2)}\n`,
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

function storeArg(store: string | undefined): string {
  return store === undefined ? '' : ` --store ${/^[\w@%+=:,./-]+$/.test(store) ? store : `'${store.replace(/'/g, `'\\''`)}'`}`;
}

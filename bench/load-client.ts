/**
 * The benchmark's load client: raw JSON-RPC (not the SDK client, whose own cost would hide ours),
 * its own line splitting, one `JSON.parse` per line, a pending map by id, `process.hrtime.bigint()`
 * for time and `/proc` for the target process's own CPU and memory accounting.
 *
 * Transports: stdio today. HTTP (Streamable HTTP, `POST /mcp`) comes later: an `HttpClient`
 * implementing {@link RpcClient}, and a `case 'http'` in {@link connect}; the scenarios below are
 * written against `RpcClient` only and need no change.
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** How to start one target. */
export interface TargetSpec {
  /** Short id, used on the command line (`--targets`) and in the JSONL. */
  id: string;
  /** Column heading in the tables. */
  label: string;
  /** True for the targets that put mcp-chain in front of the upstream (they get CPU figures). */
  proxy: boolean;
  /** `'stdio'` only for now; `'http'` targets come later (see the module comment). */
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A JSON-RPC session with a target, whatever carries it. */
export interface RpcClient {
  /** The process whose CPU and memory we account: the one we started (the proxy, or the upstream). */
  readonly pid: number;
  request(method: string, params?: JsonObject): Promise<Json>;
  notify(method: string, params?: JsonObject): void;
  /** Ends the session and waits until the process has exited (killing it if it will not). */
  close(): Promise<void>;
}

/** Starts a target; the client is connected but not yet initialized. */
export function connect(spec: TargetSpec, options: { requestTimeoutMs?: number } = {}): RpcClient {
  switch (spec.transport) {
    case 'stdio':
      return new StdioClient(spec, options.requestTimeoutMs ?? 30_000);
    // case 'http': later.
  }
}

const NEWLINE = 0x0a;
const STDERR_TAIL = 4096;

/** Every process started here, so that none outlives the benchmark (see {@link killAll}). */
const live = new Set<ChildProcess>();

/** Kills every target still running (synchronous, for `process.on('exit')` and signal handlers). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

interface Pending {
  resolve: (result: Json) => void;
  reject: (error: Error) => void;
}

class StdioClient implements RpcClient {
  readonly pid: number;
  readonly #child: ChildProcess;
  readonly #name: string;
  readonly #pending = new Map<number, Pending>();
  readonly #exited: Promise<void>;
  readonly #watchdog: NodeJS.Timeout;
  #nextId = 1;
  #partial: Buffer[] = [];
  #stderr = '';
  #answered = 0;
  #exitReason: string | undefined;

  constructor(spec: TargetSpec, requestTimeoutMs: number) {
    this.#name = spec.id;
    const child = spawn(spec.command, spec.args, { env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] });
    if (child.pid === undefined || !child.stdin || !child.stdout || !child.stderr) {
      child.kill('SIGKILL');
      throw new Error(`${spec.id}: cannot start ${spec.command}`);
    }
    this.#child = child;
    this.pid = child.pid;
    live.add(child);
    child.stdout.on('data', (chunk: Buffer) => this.#onData(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    child.stdin.on('error', () => undefined); // EPIPE once it died: reported by 'exit'
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        this.#exitReason = signal ? `signal ${signal}` : `code ${String(code)}`;
        this.#failAll(new Error(`${this.#name} exited (${this.#exitReason}) with requests pending${this.#stderrNote()}`));
        resolve();
      });
    });
    child.once('error', (error) => {
      live.delete(child);
      this.#failAll(new Error(`${this.#name}: ${error.message}`));
    });
    // No timer per request (that would cost every call): a request pending while nothing at all
    // was answered for `requestTimeoutMs` fails everything in flight.
    let seen = 0;
    let idleSince = Date.now();
    this.#watchdog = setInterval(() => {
      if (this.#pending.size === 0 || this.#answered !== seen) {
        seen = this.#answered;
        idleSince = Date.now();
      } else if (Date.now() - idleSince > requestTimeoutMs) {
        this.#failAll(new Error(`${this.#name}: no answer for ${requestTimeoutMs} ms${this.#stderrNote()}`));
      }
    }, 250);
    this.#watchdog.unref();
  }

  request(method: string, params?: JsonObject): Promise<Json> {
    const id = this.#nextId++;
    const message = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    return new Promise<Json>((resolve, reject) => {
      if (this.#exitReason !== undefined) {
        reject(new Error(`${this.#name} has exited (${this.#exitReason})${this.#stderrNote()}`));
        return;
      }
      this.#pending.set(id, { resolve, reject });
      this.#child.stdin?.write(JSON.stringify(message) + '\n');
    });
  }

  notify(method: string, params?: JsonObject): void {
    const message = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    this.#child.stdin?.write(JSON.stringify(message) + '\n');
  }

  async close(): Promise<void> {
    clearInterval(this.#watchdog);
    if (this.#exitReason === undefined) {
      this.#child.stdin?.end();
      if (!(await within(this.#exited, 5000))) {
        this.#child.kill('SIGTERM');
        if (!(await within(this.#exited, 2000))) this.#child.kill('SIGKILL');
      }
    }
    await this.#exited;
  }

  #onData(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE, start);
    while (nl !== -1) {
      const piece = chunk.subarray(start, nl);
      if (this.#partial.length > 0) {
        this.#partial.push(piece);
        this.#onLine(Buffer.concat(this.#partial));
        this.#partial = [];
      } else {
        this.#onLine(piece);
      }
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.#partial.push(chunk.subarray(start));
  }

  #onLine(line: Buffer): void {
    if (line.length === 0) return;
    let message: unknown;
    try {
      message = JSON.parse(line.toString('utf8'));
    } catch {
      this.#failAll(new Error(`${this.#name} wrote a line that is not JSON: ${line.subarray(0, 200).toString('utf8')}`));
      return;
    }
    if (!isObject(message)) return;
    const { id } = message;
    if ('method' in message) {
      // A request from the server (none expected from our upstream): refuse it, stay correct.
      if (id !== undefined) this.#child.stdin?.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }) + '\n');
      return;
    }
    if (typeof id !== 'number') return;
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    this.#answered++;
    const { error } = message;
    if (isObject(error)) pending.reject(new Error(`${this.#name}: error ${String(error.code)}: ${String(error.message)}`));
    else pending.resolve(message.result ?? null);
  }

  #failAll(error: Error): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const { reject } of pending) reject(error);
  }

  #stderrNote(): string {
    return this.#stderr === '' ? '' : `; its stderr ends with:\n${this.#stderr}`;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function within(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Protocol helpers

export const PROTOCOL_VERSION = '2025-06-18';

/** Sends `initialize` and `notifications/initialized`; returns the initialize result. */
export async function initialize(client: RpcClient): Promise<Json> {
  const result = await client.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'mcp-chain-bench', version: '1.0.0' },
  });
  client.notify('notifications/initialized');
  return result;
}

/** `tools/call` of `echo`; checks the text came back. */
export async function echo(client: RpcClient, text = 'hello'): Promise<void> {
  const result = await client.request('tools/call', { name: 'echo', arguments: { text } });
  if (firstText(result) !== text) throw new Error(`echo returned ${JSON.stringify(result).slice(0, 200)}`);
}

/** `tools/call` of `payload`; checks the size of what came back. */
export async function payload(client: RpcClient, kib: number): Promise<void> {
  const result = await client.request('tools/call', { name: 'payload', arguments: { kib } });
  if (firstText(result)?.length !== kib * 1024) throw new Error(`payload ${kib} KiB returned a text of ${String(firstText(result)?.length)} characters`);
}

/** `tools/list`; checks it has `expected` tools. */
export async function listTools(client: RpcClient, expected: number): Promise<void> {
  const result = await client.request('tools/list');
  const tools = isObject(result) ? result.tools : undefined;
  if (!Array.isArray(tools) || tools.length !== expected) throw new Error(`tools/list returned ${Array.isArray(tools) ? tools.length : 'no'} tools, expected ${expected}`);
}

function firstText(result: Json): string | undefined {
  const content = isObject(result) ? result.content : undefined;
  const first = Array.isArray(content) ? content[0] : undefined;
  return isObject(first) && typeof first.text === 'string' ? first.text : undefined;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/** Nanoseconds now. */
export const now = (): bigint => process.hrtime.bigint();
const usSince = (t0: bigint): number => Number(now() - t0) / 1000;

/** Starts the target, initializes it, and measures spawn → initialize result. */
export async function coldStart(spec: TargetSpec): Promise<{ client: RpcClient; ms: number }> {
  const t0 = now();
  const client = connect(spec);
  try {
    await initialize(client);
    return { client, ms: usSince(t0) / 1000 };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Runs `call` `n` times one after the other; the duration of each, in µs. */
export async function sequential(n: number, call: () => Promise<void>): Promise<number[]> {
  const durations: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await call();
    durations[i] = usSince(t0);
  }
  return durations;
}

/** Makes `total` calls keeping `concurrency` in flight; calls per second. */
export async function throughput(concurrency: number, total: number, call: () => Promise<void>): Promise<number> {
  const t0 = now();
  await new Promise<void>((resolve, reject) => {
    let issued = 0;
    let done = 0;
    let failed = false;
    const launch = (): void => {
      issued++;
      call().then(
        () => {
          done++;
          if (done === total) resolve();
          else if (issued < total && !failed) launch();
        },
        (error: unknown) => {
          failed = true;
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    };
    for (let i = 0; i < Math.min(concurrency, total); i++) launch();
  });
  return total / (usSince(t0) / 1e6);
}

/** The `p`th percentile (nearest rank) of unsorted `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

// ---------------------------------------------------------------------------------------------
// The process's own accounting (Linux /proc)

let clockTicks: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`, normally 100). */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    let ticks = Number.NaN;
    try {
      ticks = Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim());
    } catch {
      // no getconf: the Linux default below
    }
    clockTicks = Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  }
  return clockTicks;
}

/**
 * CPU time of the process itself, all its threads, in µs: utime and stime (fields 14 and 15 of
 * /proc/<pid>/stat), not its children's (16, 17): the proxy's upstream is its child. Resolution is
 * one clock tick (10 ms at 100 Hz): measure over batches of hundreds of milliseconds.
 */
export function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // "<pid> (<comm>) <state> <ppid> ..." — comm may hold spaces and parentheses; field 3 (state) is
  // index 0 after the last ')', so field n is index n - 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const perTick = 1e6 / clockTicksPerSecond();
  return { user: Number(fields[14 - 3]) * perTick, system: Number(fields[15 - 3]) * perTick };
}

/** User + system CPU time of the process itself, in µs (see {@link cpuTimes}). */
export function cpuMicros(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** Resident set size (VmRSS of /proc/<pid>/status) in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Samples the RSS of `pid` every `everyMs` while `work` runs; the largest sample, in MiB. */
export async function peakRss<T>(pid: number, everyMs: number, work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch {
      // exited meanwhile: the work fails and says why
    }
  }, everyMs);
  try {
    const result = await work();
    peak = Math.max(peak, rssMiB(pid));
    return { result, peakMiB: peak };
  } finally {
    clearInterval(timer);
  }
}

// Helpers for the gateway suites (test/e2e/gateway*.test.ts): `mcp-chain serve <config-file>` in
// front of real servers from npm, a Streamable HTTP member on a loopback port, the servers' own
// lists read directly to compare with, and the process table (every server the gateway started
// must be gone once its client is).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { commandLine, descendants as descendantsOf } from '../../bench/soak/proc.js';
import { processAlive } from '../integration/_process.js';
import { withTimeout } from './client.js';
import { fixtureCommand, proxyEnv, proxyMain, type Target } from './targets.js';

const require = createRequire(import.meta.url);

/** The reference servers the gateway suites use, by package. */
export type ReferenceServer = 'server-everything' | 'server-filesystem' | 'server-memory';

/** Absolute path of a reference server's bin (from its package.json), to start with `node <bin>`. */
export function serverBin(server: ReferenceServer): string {
  const pkgJson = require.resolve(`@modelcontextprotocol/${server}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin ?? {})[0];
  if (bin === undefined) throw new Error(`@modelcontextprotocol/${server} has no bin`);
  return join(dirname(pkgJson), bin);
}

/** A temporary directory for one suite; `remove()` deletes it and everything in it. */
export interface Workspace {
  readonly dir: string;
  /** A path inside it. */
  path(...parts: string[]): string;
  /** Writes a file (making its directories); returns its path. */
  write(relative: string, text: string): string;
  /** Makes a directory; returns its path. */
  mkdir(relative: string): string;
  remove(): void;
}

export function workspace(prefix = 'mcp-chain-gateway-'): Workspace {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = (...parts: string[]): string => join(dir, ...parts);
  return {
    dir,
    path,
    write(relative, text) {
      const file = path(relative);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    mkdir(relative) {
      const made = path(relative);
      mkdirSync(made, { recursive: true });
      return made;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** How a config file names one stdio server. */
export interface StdioEntry {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** A reference server started with this very node: `{ command, args }` of a config entry. */
export function referenceEntry(server: ReferenceServer, args: readonly string[] = [], env?: Record<string, string>): StdioEntry {
  return { command: process.execPath, args: [serverBin(server), ...args], ...(env ? { env } : {}) };
}

/** A fixture server of test/fixtures/servers/ (run under tsx) as a config entry. */
export function fixtureEntry(name: string, env?: Record<string, string>): StdioEntry {
  const { command, args } = fixtureCommand(name);
  return { command, args, ...(env ? { env } : {}) };
}

/** A Target to connect the SDK client to an entry directly (no gateway): the server's own answers. */
export function directTarget(entry: StdioEntry, name = 'direct'): Target {
  return { name, command: entry.command, args: [...entry.args], ...(entry.env ? { env: { ...entry.env } } : {}) };
}

/**
 * `mcp-chain serve <file>` as a Target: on stdio, or with `http` on `--http 127.0.0.1:0` (the client
 * connects where it says it listens). The child gets the test run's compile cache, nothing else of
 * our environment but what `env` adds.
 */
export function gatewayTarget(file: string, options: { http?: boolean; args?: readonly string[]; env?: Record<string, string>; name?: string } = {}): Target {
  const http = options.http === true;
  const args = [...(http ? ['--http', '127.0.0.1:0'] : []), ...(options.args ?? [])];
  return {
    name: options.name ?? `mcp-chain serve ${file}${http ? ' --http' : ''}`,
    command: process.execPath,
    args: [proxyMain, 'serve', file, ...args],
    env: { ...proxyEnv(), ...options.env },
    ...(http ? { http: true } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Lists, walked to the end
// ---------------------------------------------------------------------------------------------

export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

export interface ListItemOf {
  tools: Tool;
  prompts: Prompt;
  resources: Resource;
  resourceTemplates: ResourceTemplate;
}

/** One page of a list, with the cursor that asked for it. */
export interface ListPage<K extends ListKind> {
  readonly cursor: string | undefined;
  readonly items: ListItemOf[K][];
  readonly nextCursor: string | undefined;
}

/** One page of `kind`. */
export async function listPage<K extends ListKind>(client: Client, kind: K, cursor?: string): Promise<ListPage<K>> {
  const params = cursor === undefined ? {} : { cursor };
  const page = await (async (): Promise<{ items: unknown[]; nextCursor?: string | undefined }> => {
    switch (kind) {
      case 'tools': {
        const r = await client.listTools(params);
        return { items: r.tools, nextCursor: r.nextCursor };
      }
      case 'prompts': {
        const r = await client.listPrompts(params);
        return { items: r.prompts, nextCursor: r.nextCursor };
      }
      case 'resources': {
        const r = await client.listResources(params);
        return { items: r.resources, nextCursor: r.nextCursor };
      }
      default: {
        const r = await client.listResourceTemplates(params);
        return { items: r.resourceTemplates, nextCursor: r.nextCursor };
      }
    }
  })();
  return { cursor, items: page.items as ListItemOf[K][], nextCursor: page.nextCursor };
}

/** Every page of `kind`, following nextCursor to the end (at most `maxPages`, a net against loops). */
export async function listAll<K extends ListKind>(client: Client, kind: K, maxPages = 100): Promise<{ items: ListItemOf[K][]; pages: ListPage<K>[] }> {
  const pages: ListPage<K>[] = [];
  let cursor: string | undefined;
  do {
    const page = await listPage(client, kind, cursor);
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length >= maxPages) throw new Error(`${kind}: still a nextCursor after ${maxPages} pages`);
  } while (cursor !== undefined);
  return { items: pages.flatMap((p) => p.items), pages };
}

/** The identifying field of an item of `kind`. */
export function keyOf(kind: ListKind, item: Tool | Prompt | Resource | ResourceTemplate): string {
  if (kind === 'resources') return (item as Resource).uri;
  if (kind === 'resourceTemplates') return (item as ResourceTemplate).uriTemplate;
  return (item as Tool | Prompt).name;
}

/** Names as the gateway shows a member's tools and prompts: `<server>__<name>` (the key mapped to [A-Za-z0-9_-]). */
export function exposedName(server: string, name: string): string {
  return `${server.replace(/[^A-Za-z0-9_-]/g, '_')}__${name}`;
}

// ---------------------------------------------------------------------------------------------
// A Streamable HTTP member: the conformance fixture on a loopback port
// ---------------------------------------------------------------------------------------------

export interface HttpMember {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, and the exit. */
  stop(): Promise<void>;
}

/** Starts test/fixtures/servers/conformance.ts on Streamable HTTP at 127.0.0.1:<port>/mcp (default: a free port). */
export async function startHttpMember(port = 0): Promise<HttpMember> {
  const { command, args } = fixtureCommand('conformance');
  const child: ChildProcess = spawn(command, [...args, '--port', String(port), '--host', '127.0.0.1'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  try {
    const url = await withTimeout(
      new Promise<string>((resolve, reject) => {
        child.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString();
          const match = /listening on (http:\S+)/.exec(stderr);
          if (match?.[1]) resolve(match[1]);
        });
        void exited.then(() => reject(new Error(`the HTTP member exited: ${stderr}`)));
      }),
      20_000,
      () => `the HTTP member to listen; stderr: ${stderr}`,
    );
    return {
      url,
      pid: child.pid ?? -1,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await withTimeout(exited, 10_000, () => 'the HTTP member to exit').catch(() => {
          child.kill('SIGKILL');
          return exited;
        });
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
}

/** An SDK client connected straight to a Streamable HTTP server (the member's own answers). */
export async function connectHttpDirect(url: string): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: 'mcp-chain-e2e-direct', version: '0.0.0' }, { capabilities: { sampling: {}, elicitation: { form: {} } } });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await withTimeout(client.connect(transport), 20_000, () => `initialize ${url}`);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The process table
// ---------------------------------------------------------------------------------------------

export { commandLine, descendantsOf };

/** A process's working directory (undefined once it is gone). */
export function workingDirectory(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/** The live descendants of `root` whose command line contains `needle` (and, if given, that run in `cwd`). */
export function descendantsRunning(root: number, needle: string, cwd?: string): number[] {
  const dir = cwd === undefined ? undefined : realpathSync(cwd);
  return descendantsOf(root).filter((pid) => commandLine(pid).includes(needle) && (dir === undefined || workingDirectory(pid) === dir));
}

/**
 * Every process that was ever seen below a root: `record()` whenever servers may have been started
 * (after start-up, after a restart), then `remaining()` once the root is gone.
 */
export class ProcessRecord {
  readonly #root: number;
  readonly #seen = new Map<number, string>();

  constructor(root: number) {
    this.#root = root;
  }

  /** Adds the live descendants of the root; returns them. */
  record(): number[] {
    const now = descendantsOf(this.#root);
    for (const pid of now) if (!this.#seen.has(pid)) this.#seen.set(pid, commandLine(pid));
    return now;
  }

  /** Every pid seen, with its command line. */
  get seen(): ReadonlyMap<number, string> {
    return this.#seen;
  }

  /** Those still running, as `pid: command line` lines (empty when none is). */
  remaining(): string[] {
    return [...this.#seen].filter(([pid]) => processAlive(pid)).map(([pid, cmd]) => `${pid}: ${cmd}`);
  }

  /** Resolves once every recorded process is gone; rejects, naming those left, after `safetyMs` (a net, not a timing). */
  async allGone(safetyMs = 10_000): Promise<void> {
    const deadline = Date.now() + safetyMs;
    while (this.remaining().length > 0) {
      if (Date.now() > deadline) throw new Error(`server processes left running:\n${this.remaining().join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** Polls `check` until it returns a value other than undefined; rejects after `safetyMs` (a net, not a timing). */
export async function eventually<T>(check: () => T | undefined, what: () => string, safetyMs = 10_000): Promise<T> {
  const deadline = Date.now() + safetyMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${safetyMs} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** file:// URL of a directory, as a root. */
export function rootOf(dir: string, name: string): { uri: string; name: string } {
  return { uri: pathToFileURL(dir).href, name };
}

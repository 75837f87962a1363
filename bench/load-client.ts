/**
 * The benchmark's load client: raw JSON-RPC (not the SDK client, whose own cost would hide ours),
 * its own line splitting, one `JSON.parse` per line, a pending map by id, `process.hrtime.bigint()`
 * for time and `/proc` for the target process's own CPU and memory accounting.
 *
 * Transports: stdio ({@link StdioClient}) and raw Streamable HTTP ({@link HttpClient}: `POST /mcp`
 * over keep-alive connections, `Mcp-Session-Id` and `MCP-Protocol-Version` headers, a JSON or an
 * SSE body, our own SSE parsing). The scenarios are written against {@link RpcClient} only.
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { connect as netConnect, createServer as createNetServer, type AddressInfo } from 'node:net';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** How to start one target. */
export interface TargetSpec {
  /** Short id, used on the command line (`--targets`) and in the JSONL. */
  id: string;
  /** Column heading in the tables. */
  label: string;
  /** True for the targets that put a proxy in front of the upstream (they get CPU figures). */
  proxy: boolean;
  /**
   * `'stdio'`: JSON-RPC on the process's stdin/stdout. `'http'`: the process serves Streamable
   * HTTP; where its URL comes from is {@link TargetSpec.url}.
   */
  transport: 'stdio' | 'http';
  command: string;
  /** For `http` targets with `url: 'port'`, {@link PORT} in an argument is replaced by a free port. */
  args: string[];
  env: Record<string, string>;
  /**
   * `http` only. `'printed'`: the process writes its URL (`http://127.0.0.1:PORT/mcp`, alone or in
   * a JSON log line) to stderr or stdout. `'port'`: we pick a free loopback port, pass it in the
   * arguments, and poll until it accepts connections; the endpoint is `/mcp`.
   */
  url?: 'printed' | 'port';
  /**
   * How many copies of the upstream the target serves, merged (an aggregate of that many members);
   * default 1. Its `tools/list` holds that many times the upstream's tools.
   */
  members?: number;
  /** How many tools the upstream (each copy of it) lists, when not the benchmark's usual count. */
  tools?: number;
  /** Put before the upstream's tool names in calls through this target (`a__` behind an aggregate's member `a`). */
  toolPrefix?: string;
  /**
   * `'modern'`: the client speaks 2026-07-28 (stdio only): every request carries the `_meta`
   * envelope, and `initialize` is `server/discover`. Default: the session era.
   */
  era?: 'modern';
}

/** Placeholder for a free port in the arguments of an `http` target with `url: 'port'`. */
export const PORT = '{port}';

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
    case 'stdio': {
      const client = new StdioClient(spec, options.requestTimeoutMs ?? 30_000);
      return spec.era === 'modern' ? modernClient(client) : client;
    }
    case 'http':
      return new HttpClient(spec, options.requestTimeoutMs ?? 30_000);
  }
}

const NEWLINE = 0x0a;
const STDERR_TAIL = 4096;

/** Every process started here, so that none outlives the benchmark (see {@link killAll}). */
const live = new Set<ChildProcess>();

/** Kills every target still running, and their descendants (synchronous, for `process.on('exit')` and signal handlers). */
export function killAll(): void {
  for (const child of live) {
    const family = child.pid === undefined ? [] : descendants(child.pid);
    child.kill('SIGKILL');
    for (const pid of family) killQuietly(pid, 'SIGKILL');
  }
  live.clear();
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
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

// ---------------------------------------------------------------------------------------------
// Streamable HTTP

/**
 * A target that cannot serve what we asked at all, as opposed to one that failed: an `http`
 * target that exited with code 2 (a usage error, e.g. an mcp-chain without `--http`) before it
 * listened. The benchmark skips such a target with this message as the note.
 */
export class TargetUnavailable extends Error {}

const URL_PATTERN = /http:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+\/mcp\b/;
const ACCEPT = 'application/json, text/event-stream';

/** A free loopback port (closed again before it is returned: the target binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `port` accepts a TCP connection (polled every few ms), rejects if `gone()` says the process exited. */
async function acceptsConnections(port: number, gone: () => string | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = netConnect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    const reason = gone();
    if (reason !== undefined) throw new Error(reason);
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  /** The JSON-RPC response to the request sent, if the body held one. */
  message: JsonObject | undefined;
}

/** The messages of an SSE body (`data:` lines of each event joined; events without data skipped). */
export function sseMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  let data: string[] = [];
  const flush = (): void => {
    const joined = data.join('\n');
    data = [];
    if (joined.trim() !== '') messages.push(JSON.parse(joined));
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') flush();
    else if (line.startsWith('data:')) data.push(line.slice(line.charCodeAt(5) === 0x20 ? 6 : 5));
    // event:, id:, retry: and comments say nothing we need
  }
  flush();
  return messages;
}

function findResponse(messages: readonly unknown[], id: number): JsonObject | undefined {
  for (const message of messages) {
    if (isObject(message) && message.id === id && !('method' in message)) return message;
  }
  return undefined;
}

/** Parses a finished reply: a JSON body or an SSE body, whichever the content type says. */
function parseReply(res: IncomingMessage, body: Buffer, id: number | undefined): HttpReply {
  const status = res.statusCode ?? 0;
  const reply: HttpReply = { status, headers: res.headers, message: undefined };
  if (status === 202 || body.length === 0) return reply;
  const text = body.toString('utf8');
  if (status >= 400 && !String(res.headers['content-type']).includes('json')) return reply;
  const type = String(res.headers['content-type'] ?? '');
  let messages: unknown[];
  if (type.startsWith('text/event-stream')) {
    messages = sseMessages(text);
  } else {
    const parsed: unknown = JSON.parse(text);
    messages = Array.isArray(parsed) ? parsed : [parsed];
  }
  if (id !== undefined) reply.message = findResponse(messages, id);
  else if (status >= 400) reply.message = messages.find(isObject);
  return reply;
}

/** One MCP session over Streamable HTTP (one `Mcp-Session-Id`); a client may hold several. */
export class HttpSession {
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #nextId = 1;
  /** A notification still being posted: the next request waits for it (initialized before anything else). */
  #barrier: Promise<void> | undefined;
  #notifyError: Error | undefined;

  constructor(readonly owner: HttpClient) {}

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  async request(method: string, params?: JsonObject): Promise<Json> {
    if (this.#barrier) await this.#barrier;
    if (this.#notifyError) throw this.#notifyError;
    const id = this.#nextId++;
    const message = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    const reply = await this.owner.post(JSON.stringify(message), this.#headers(), id);
    if (method === 'initialize') {
      const session = reply.headers['mcp-session-id'];
      this.#sessionId = Array.isArray(session) ? session[0] : session;
    }
    const answer = reply.message;
    if (reply.status !== 200 || !answer) {
      const error = answer && isObject(answer.error) ? `: ${String(answer.error.message)}` : '';
      throw new Error(`${this.owner.name}: ${method} got HTTP ${reply.status}${answer ? '' : ' without its response'}${error}`);
    }
    if (isObject(answer.error)) throw new Error(`${this.owner.name}: error ${String(answer.error.code)}: ${String(answer.error.message)}`);
    const result = answer.result ?? null;
    if (method === 'initialize' && isObject(result) && typeof result.protocolVersion === 'string') this.#protocolVersion = result.protocolVersion;
    return result;
  }

  notify(method: string, params?: JsonObject): void {
    const message = params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    const previous = this.#barrier;
    const posted = (async (): Promise<void> => {
      if (previous) await previous;
      const reply = await this.owner.post(JSON.stringify(message), this.#headers(), undefined);
      if (reply.status !== 202 && reply.status !== 200) throw new Error(`${this.owner.name}: ${method} got HTTP ${reply.status}`);
    })();
    const barrier = posted.then(
      () => undefined,
      (error: unknown) => {
        this.#notifyError = error instanceof Error ? error : new Error(String(error));
      },
    );
    this.#barrier = barrier;
    void barrier.then(() => {
      if (this.#barrier === barrier) this.#barrier = undefined;
    });
  }

  /** Ends the session (`DELETE`); a server that does not allow it (405) or already forgot it is fine. */
  async end(): Promise<void> {
    if (this.#barrier) await this.#barrier;
    if (this.#sessionId === undefined) return;
    await this.owner.send('DELETE', undefined, this.#headers(), undefined).catch(() => undefined);
    this.#sessionId = undefined;
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion !== undefined) headers['mcp-protocol-version'] = this.#protocolVersion;
    return headers;
  }
}

/**
 * A target serving Streamable HTTP: starts its process, learns its URL, and speaks raw HTTP/1.1 to
 * it over keep-alive connections (a `node:http` Agent; as many connections as calls in flight).
 * The client itself is one session ({@link RpcClient}); {@link HttpClient.openSession} opens more.
 */
export class HttpClient implements RpcClient {
  readonly name: string;
  readonly #agent = new Agent({ keepAlive: true });
  readonly #main: HttpSession;
  readonly #sessions = new Set<HttpSession>();
  readonly #ready: Promise<URL>;
  readonly #exited: Promise<void>;
  readonly #watchdog: NodeJS.Timeout;
  #resolveExited: () => void = () => undefined;
  #child: ChildProcess | undefined;
  #url: URL | undefined;
  #output = '';
  #exitReason: string | undefined;
  readonly #inFlight = new Set<{ fail(error: Error): void }>();
  #answered = 0;

  constructor(spec: TargetSpec, requestTimeoutMs: number) {
    this.name = spec.id;
    this.#exited = new Promise((resolve) => (this.#resolveExited = resolve));
    this.#ready = this.#start(spec);
    this.#ready.catch(() => undefined); // reported by the first request
    this.#main = this.openSession();
    let seen = 0;
    let idleSince = Date.now();
    this.#watchdog = setInterval(() => {
      if (this.#inFlight.size === 0 || this.#answered !== seen) {
        seen = this.#answered;
        idleSince = Date.now();
      } else if (Date.now() - idleSince > requestTimeoutMs) {
        const error = new Error(`${this.name}: no answer for ${requestTimeoutMs} ms${this.#outputNote()}`);
        for (const call of [...this.#inFlight]) call.fail(error);
      }
    }, 250);
    this.#watchdog.unref();
  }

  /** The target process (proxy or server). Known once it is started: after the first request settles. */
  get pid(): number {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error(`${this.name} is not started yet`);
    return pid;
  }

  /** The endpoint, once the target listens. */
  get url(): URL | undefined {
    return this.#url;
  }

  request(method: string, params?: JsonObject): Promise<Json> {
    return this.#main.request(method, params);
  }

  notify(method: string, params?: JsonObject): void {
    this.#main.notify(method, params);
  }

  /** Another session on the same target and connections (not initialized yet). */
  openSession(): HttpSession {
    const session = new HttpSession(this);
    this.#sessions.add(session);
    return session;
  }

  /** Ends a session opened with {@link openSession} (`DELETE`). */
  async closeSession(session: HttpSession): Promise<void> {
    this.#sessions.delete(session);
    await session.end();
  }

  async close(): Promise<void> {
    clearInterval(this.#watchdog);
    if (this.#child && this.#exitReason === undefined) {
      // Polite first: end the sessions, then SIGTERM; the family is noted before, so that
      // upstreams the target leaves behind are killed too.
      await Promise.all([...this.#sessions].map((session) => within(session.end(), 2000)));
      const pid = this.#child.pid;
      const family = pid === undefined ? [] : descendants(pid);
      this.#child.kill('SIGTERM');
      if (!(await within(this.#exited, 5000))) this.#child.kill('SIGKILL');
      await this.#exited;
      for (const member of family) killQuietly(member, 'SIGKILL');
    } else if (this.#child) {
      await this.#exited;
    }
    this.#agent.destroy();
  }

  /** Sends a POST with a JSON-RPC body; resolves with the status, headers and the response to `id`. */
  post(body: string, headers: Record<string, string>, id: number | undefined): Promise<HttpReply> {
    return this.send('POST', body, headers, id);
  }

  async send(method: 'POST' | 'DELETE', body: string | undefined, headers: Record<string, string>, id: number | undefined): Promise<HttpReply> {
    const url = this.#url ?? (await this.#ready);
    return new Promise<HttpReply>((resolve, reject) => {
      if (this.#exitReason !== undefined) {
        reject(new Error(`${this.name} has exited (${this.#exitReason})${this.#outputNote()}`));
        return;
      }
      const all: Record<string, string> = { accept: ACCEPT, ...headers };
      if (body !== undefined) {
        all['content-type'] = 'application/json';
        all['content-length'] = String(Buffer.byteLength(body));
      }
      const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname, method, agent: this.#agent, headers: all });
      const call = {
        fail: (error: Error): void => {
          this.#inFlight.delete(call);
          req.destroy();
          reject(error);
        },
      };
      this.#inFlight.add(call);
      req.once('error', (error) => call.fail(error));
      req.once('response', (res) => {
        const settle = (reply: () => HttpReply): void => {
          this.#inFlight.delete(call);
          this.#answered++;
          try {
            resolve(reply());
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        };
        res.once('error', (error) => call.fail(error));
        const status = res.statusCode ?? 0;
        if (id !== undefined && status === 200 && String(res.headers['content-type']).startsWith('text/event-stream')) {
          // A stream: the response counts as soon as its event is complete, whether or not the
          // server closes the stream then (it should); the rest is read to free the connection.
          res.setEncoding('utf8');
          let text = '';
          let scanned = 0;
          let done = false;
          res.on('data', (chunk: string) => {
            if (done) return;
            text += chunk;
            const boundary = Math.max(text.lastIndexOf('\n\n'), text.lastIndexOf('\r\n\r\n'));
            if (boundary < scanned) return;
            const complete = text.slice(scanned, boundary);
            scanned = boundary;
            const message = findResponse(sseMessages(complete), id);
            if (message) {
              done = true;
              text = '';
              settle(() => ({ status, headers: res.headers, message }));
            }
          });
          res.once('end', () => {
            if (!done) settle(() => ({ status, headers: res.headers, message: findResponse(sseMessages(text.slice(scanned)), id) }));
          });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () => settle(() => parseReply(res, chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks), id)));
      });
      req.end(body);
    });
  }

  async #start(spec: TargetSpec): Promise<URL> {
    const port = spec.url === 'port' ? await freePort() : undefined;
    const args = port === undefined ? spec.args : spec.args.map((arg) => arg.replaceAll(PORT, String(port)));
    const child = spawn(spec.command, args, { env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    if (child.pid === undefined || !child.stdout || !child.stderr) {
      child.kill('SIGKILL');
      throw new Error(`${spec.id}: cannot start ${spec.command}`);
    }
    live.add(child);
    child.stdin?.on('error', () => undefined);
    let found: ((url: URL) => void) | undefined;
    const onOutput = (chunk: Buffer): void => {
      this.#output = (this.#output + chunk.toString('utf8')).slice(-STDERR_TAIL);
      if (found) {
        const match = URL_PATTERN.exec(this.#output);
        if (match) found(new URL(match[0]));
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    let failed: ((error: Error) => void) | undefined;
    child.once('exit', (code, signal) => {
      live.delete(child);
      this.#exitReason = signal ? `signal ${signal}` : `code ${String(code)}`;
      const error =
        this.#url === undefined && code === 2
          ? new TargetUnavailable(`${this.name} exited with code 2 (a usage error) before listening: ${this.#output.trim().split('\n').at(-1) ?? ''}`)
          : new Error(`${this.name} exited (${this.#exitReason})${this.#outputNote()}`);
      failed?.(error);
      for (const call of [...this.#inFlight]) call.fail(error);
      this.#resolveExited();
    });
    child.once('error', (error) => failed?.(new Error(`${this.name}: ${error.message}`)));
    const url = await new Promise<URL>((resolve, reject) => {
      failed = reject;
      if (port === undefined) {
        found = resolve;
        const match = URL_PATTERN.exec(this.#output);
        if (match) resolve(new URL(match[0]));
      } else {
        acceptsConnections(port, () => (this.#exitReason === undefined ? undefined : `${this.name} exited (${this.#exitReason})`), 30_000).then(
          () => resolve(new URL(`http://127.0.0.1:${port}/mcp`)),
          reject,
        );
      }
    });
    found = undefined;
    failed = undefined;
    this.#url = url;
    return url;
  }

  #outputNote(): string {
    return this.#output === '' ? '' : `; its output ends with:\n${this.#output}`;
  }
}

/** Pids of all descendants of `pid` (children, their children, ...), from /proc. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of parents.get(next) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
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

/** What a 2026-07-28 client sends with every request. */
const MODERN_ENVELOPE: JsonObject = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-chain-bench', version: '1.0.0' },
};

/** A client of the stateless era over `client`: the envelope on every request, discover for initialize. */
function modernClient(client: RpcClient): RpcClient {
  return {
    pid: client.pid,
    request: (method, params = {}) => {
      const meta = isObject(params._meta) ? params._meta : {};
      const enveloped = { ...params, _meta: { ...meta, ...MODERN_ENVELOPE } };
      return client.request(method === 'initialize' ? 'server/discover' : method, method === 'initialize' ? { _meta: MODERN_ENVELOPE } : enveloped);
    },
    notify: (method, params) => {
      if (method !== 'notifications/initialized') client.notify(method, params);
    },
    close: () => client.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// Protocol helpers

export const PROTOCOL_VERSION = '2025-06-18';

/** Sends `initialize` and `notifications/initialized`; returns the initialize result. */
export async function initialize(client: Pick<RpcClient, 'request' | 'notify'>): Promise<Json> {
  const result = await client.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'mcp-chain-bench', version: '1.0.0' },
  });
  client.notify('notifications/initialized');
  return result;
}

/** `tools/call` of `echo` (or the name it has through the target, `tool`); checks the text came back. */
export async function echo(client: RpcClient, text = 'hello', tool = 'echo'): Promise<void> {
  const result = await client.request('tools/call', { name: tool, arguments: { text } });
  if (firstText(result) !== text) throw new Error(`echo returned ${JSON.stringify(result).slice(0, 200)}`);
}

/** `tools/call` of `payload` (or the name it has through the target, `tool`); checks the size of what came back. */
export async function payload(client: RpcClient, kib: number, tool = 'payload'): Promise<void> {
  const result = await client.request('tools/call', { name: tool, arguments: { kib } });
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

/** RSS of `pid` and all its descendants (VmRSS summed: pages they share count once per process), in MiB. */
export function treeRssMiB(pid: number): number {
  let total = rssMiB(pid);
  for (const member of descendants(pid)) {
    try {
      total += rssMiB(member);
    } catch {
      // exited meanwhile
    }
  }
  return total;
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

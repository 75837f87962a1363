// An SDK client connected over stdio to a Target, instrumented for end-to-end tests:
// every notification without a dedicated handler is recorded (and can be awaited),
// the child's stderr is drained and its tail kept for diagnostics, and close() is
// idempotent and guarantees the child process has exited.
import { ChildProcess, spawn } from 'node:child_process';
import type { Stream } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities, Notification, Root } from '@modelcontextprotocol/sdk/types.js';
import type { Target } from './targets.js';

export interface ConnectOptions {
  /** clientInfo.name; default "mcp-chain-e2e". */
  clientName?: string;
  /** Capabilities to advertise; default: sampling, elicitation (form), roots with listChanged. */
  capabilities?: ClientCapabilities;
  /** Roots served to roots/list; default one root, DEFAULT_ROOT. */
  roots?: Root[];
  /** Extra environment for the child, merged over target.env. */
  env?: Record<string, string>;
  /** How long close() waits after ending stdin before sending SIGTERM; default 1500 ms. */
  closeGraceMs?: number;
  /** How long close() waits after SIGTERM before sending SIGKILL; default 1500 ms. */
  killGraceMs?: number;
  /** Safety net for the initialize handshake; default 20 s. */
  connectTimeoutMs?: number;
  /** Stderr lines kept for diagnostics; default 200. */
  stderrLines?: number;
  /** Keep everything the child writes to stderr, for `stderrText()` (e.g. to prove a secret is in none of it). */
  keepAllStderr?: boolean;
}

export interface CloseReport {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Whether close() had to signal the child: 'none' means it exited after stdin was closed. */
  escalation: 'none' | 'SIGTERM' | 'SIGKILL';
}

export interface Connection {
  readonly target: Target;
  readonly client: Client;
  /** StdioClientTransport, or StreamableHTTPClientTransport for an HTTP target. */
  readonly transport: Transport;
  readonly pid: number;
  /** Notifications received so far that have no dedicated handler (progress/cancelled do). */
  readonly notifications: readonly Notification[];
  /** Errors the SDK reported through Client.onerror (unparsable lines, unknown progress tokens, ...). */
  readonly errors: readonly Error[];
  /** Mutable: the roots the client answers roots/list with. Use setRoots() to change and notify. */
  roots: Root[];
  /** Resolves when the child process has exited. */
  readonly exited: Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>;
  hasExited(): boolean;
  /** Resolves with the first notification (already received or future) with `method` matching `predicate`. */
  waitForNotification(
    method: string,
    predicate?: (n: Notification) => boolean,
    timeoutMs?: number,
  ): Promise<Notification>;
  /** Resolves with the match of the first stderr line (kept or future) matching `pattern`. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Replace the roots and send notifications/roots/list_changed. */
  setRoots(roots: Root[]): Promise<void>;
  /** Last stderr lines, joined (each cut at 2000 characters: for diagnostics, not for proofs). */
  stderrTail(lines?: number): string;
  /**
   * Everything the child wrote to stderr, exactly (only with `keepAllStderr`), once the stream has
   * ended: after close(), the last lines may still be on their way when the child has exited.
   */
  stderrText(): Promise<string>;
  /** Total bytes read from the child's stderr. */
  stderrBytes(): number;
  /** Idempotent; resolves once the child process is gone. */
  close(): Promise<CloseReport>;
}

export const DEFAULT_ROOT: Root = { uri: 'file:///tmp/mcp-chain-e2e-root', name: 'e2e-root' };
export const DEFAULT_TIMEOUT_MS = 20_000;

export const defaultCapabilities = (): ClientCapabilities => ({
  sampling: {},
  elicitation: { form: {} },
  roots: { listChanged: true },
});

/** Race `promise` against a safety-net timer; the timer never outlives the race. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what()}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface Waiter<T> {
  test: (value: T) => boolean;
  resolve: (value: T) => void;
}

export async function connectClient(target: Target, opts: ConnectOptions = {}): Promise<Connection> {
  const keepLines = opts.stderrLines ?? 200;
  const env = { ...target.env, ...opts.env };
  // An HTTP target is a process that serves MCP on HTTP and says where on stderr; the client
  // connects to that URL. A stdio target is spawned by the SDK's stdio transport.
  let httpChild: ChildProcess | undefined;
  let stdioTransport: StdioClientTransport | undefined;
  let stderr: Stream | null;
  if (target.http) {
    httpChild = spawn(target.command, target.args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], ...(target.cwd === undefined ? {} : { cwd: target.cwd }) });
    stderr = httpChild.stderr;
  } else {
    stdioTransport = new StdioClientTransport({ command: target.command, args: target.args, env, stderr: 'pipe', ...(target.cwd === undefined ? {} : { cwd: target.cwd }) });
    stderr = stdioTransport.stderr;
  }

  // --- stderr: drain always (a full pipe would block the child), keep the tail ---
  const stderrLines: string[] = [];
  let stderrPartial = '';
  let stderrTotal = 0;
  const stderrAll: Buffer[] = [];
  const stderrWaiters: Waiter<string>[] = [];
  const pushLine = (line: string): void => {
    stderrLines.push(line.length > 2000 ? `${line.slice(0, 2000)}…` : line);
    if (stderrLines.length > keepLines) stderrLines.splice(0, stderrLines.length - keepLines);
    for (const w of [...stderrWaiters]) {
      if (w.test(line)) {
        stderrWaiters.splice(stderrWaiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  if (!stderr) throw new Error('the target did not expose a stderr stream');
  const stderrEnded = new Promise<void>((resolve) => {
    stderr?.once('end', resolve);
    stderr?.once('close', resolve);
  });
  const decoder = new StringDecoder('utf8');
  stderr.on('data', (data: Buffer) => {
    stderrTotal += data.length;
    if (opts.keepAllStderr) stderrAll.push(data);
    const parts = (stderrPartial + decoder.write(data)).split('\n');
    stderrPartial = parts.pop() ?? '';
    for (const line of parts) pushLine(line);
    if (stderrPartial.length > 65_536) {
      pushLine(stderrPartial);
      stderrPartial = '';
    }
  });
  const stderrTail = (n = 30): string => stderrLines.slice(-n).join('\n');
  /** The first stderr line (kept or future) matching `pattern`, matched. */
  const waitForStderrLine = (pattern: RegExp): Promise<RegExpMatchArray> => {
    const kept = stderrLines.map((line) => pattern.exec(line)).find((m) => m !== null);
    if (kept) return Promise.resolve(kept);
    return new Promise((resolve) => {
      stderrWaiters.push({ test: (line) => pattern.test(line), resolve: (line) => resolve(pattern.exec(line) ?? [line]) });
    });
  };

  // --- client ---
  const client = new Client(
    { name: opts.clientName ?? 'mcp-chain-e2e', version: '0.0.0' },
    { capabilities: opts.capabilities ?? defaultCapabilities() },
  );
  const notifications: Notification[] = [];
  const notificationWaiters: Waiter<Notification>[] = [];
  const errors: Error[] = [];
  client.fallbackNotificationHandler = async (n) => {
    notifications.push(n);
    for (const w of [...notificationWaiters]) {
      if (w.test(n)) {
        notificationWaiters.splice(notificationWaiters.indexOf(w), 1);
        w.resolve(n);
      }
    }
  };
  client.onerror = (e) => {
    errors.push(e);
  };

  const conn: { roots: Root[] } = { roots: opts.roots ?? [DEFAULT_ROOT] };
  if ((opts.capabilities ?? defaultCapabilities()).roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: conn.roots }));
  }

  const diag = (): string =>
    `target=${target.name} (${[target.command, ...target.args].join(' ')}); ` +
    `notifications seen: [${notifications.map((n) => n.method).join(', ')}]; ` +
    `client errors: [${errors.map((e) => e.message.slice(0, 200)).join(' | ')}]; stderr tail:\n${stderrTail(20)}`;

  // --- connect; on failure make sure nothing is left running ---
  let transport: Transport | undefined = stdioTransport;
  const childOf = (): unknown => httpChild ?? Reflect.get(stdioTransport ?? {}, '_process');
  try {
    if (!transport) {
      const [, url = ''] = await withTimeout(
        waitForStderrLine(/^(?=.*"msg":"listening").*"url":"([^"]+)"/),
        opts.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
        () => 'the HTTP front to listen',
      );
      transport = new StreamableHTTPClientTransport(new URL(url));
    }
    await withTimeout(client.connect(transport), opts.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS, () => 'initialize');
  } catch (error) {
    const proc = childOf();
    if (proc instanceof ChildProcess && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await client.close().catch(() => undefined);
    throw new Error(`connect failed: ${error instanceof Error ? error.message : String(error)}; ${diag()}`, {
      cause: error,
    });
  }
  // The SDK transport keeps its ChildProcess private; we need it for exit code and signalling.
  const proc = childOf();
  if (!(proc instanceof ChildProcess) || proc.pid === undefined) {
    await client.close().catch(() => undefined);
    throw new Error('could not reach the ChildProcess inside StdioClientTransport (SDK changed?)');
  }
  const child: ChildProcess = proc;
  const pid = proc.pid;

  let exitInfo: { exitCode: number | null; signal: NodeJS.Signals | null } | undefined =
    child.exitCode !== null || child.signalCode !== null
      ? { exitCode: child.exitCode, signal: child.signalCode }
      : undefined;
  const exited = exitInfo
    ? Promise.resolve(exitInfo)
    : new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>((resolve) => {
        child.once('exit', (exitCode, signal) => {
          exitInfo = { exitCode, signal };
          resolve(exitInfo);
        });
      });

  const waitForNotification = (
    method: string,
    predicate: (n: Notification) => boolean = () => true,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<Notification> => {
    const test = (n: Notification): boolean => n.method === method && predicate(n);
    const found = notifications.find(test);
    if (found) return Promise.resolve(found);
    let waiter: Waiter<Notification> | undefined;
    const p = new Promise<Notification>((resolve) => {
      waiter = { test, resolve };
      notificationWaiters.push(waiter);
    });
    return withTimeout(p, timeoutMs, () => `waiting for notification ${method}; ${diag()}`).finally(() => {
      const i = waiter ? notificationWaiters.indexOf(waiter) : -1;
      if (i >= 0) notificationWaiters.splice(i, 1);
    });
  };

  const waitForStderr = (pattern: RegExp, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RegExpMatchArray> => {
    const test = (line: string): boolean => pattern.test(line);
    const match = (line: string): RegExpMatchArray => {
      const m = line.match(pattern);
      if (!m) throw new Error('unreachable: line matched test but not match');
      return m;
    };
    const found = stderrLines.find(test);
    if (found !== undefined) return Promise.resolve(match(found));
    let waiter: Waiter<string> | undefined;
    const p = new Promise<string>((resolve) => {
      waiter = { test, resolve };
      stderrWaiters.push(waiter);
    });
    return withTimeout(p, timeoutMs, () => `waiting for stderr ${String(pattern)}; ${diag()}`)
      .then(match)
      .finally(() => {
        const i = waiter ? stderrWaiters.indexOf(waiter) : -1;
        if (i >= 0) stderrWaiters.splice(i, 1);
      });
  };

  let closing: Promise<CloseReport> | undefined;
  const doClose = async (): Promise<CloseReport> => {
    let escalation: CloseReport['escalation'] = 'none';
    const signal = (sig: 'SIGTERM' | 'SIGKILL'): void => {
      if (exitInfo) return;
      escalation = escalation === 'SIGKILL' ? 'SIGKILL' : sig;
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    };
    const exitedWithin = async (ms: number): Promise<boolean> =>
      withTimeout(exited, ms, () => '').then(
        () => true,
        () => false,
      );
    // Ends the child's stdin and waits for it to exit (the SDK itself would escalate only
    // after 2 s + 2 s; we do it on our own, shorter schedule).
    if (httpChild) {
      // An HTTP client ends its session (DELETE); the server process then gets SIGTERM, as a
      // service manager would stop it.
      if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
      signal('SIGTERM');
      if (!(await exitedWithin(opts.killGraceMs ?? 5000))) {
        signal('SIGKILL');
        if (!(await exitedWithin(5000))) throw new Error(`child ${pid} did not exit after SIGKILL; ${diag()}`);
      }
      const info = exitInfo ?? (await exited);
      return { exitCode: info.exitCode, signal: info.signal, escalation };
    }
    const closed = client.close().catch(() => undefined);
    if (!(await exitedWithin(opts.closeGraceMs ?? 1500))) {
      signal('SIGTERM');
      if (!(await exitedWithin(opts.killGraceMs ?? 1500))) {
        signal('SIGKILL');
        if (!(await exitedWithin(5000))) throw new Error(`child ${pid} did not exit after SIGKILL; ${diag()}`);
      }
    }
    await closed;
    const info = exitInfo ?? (await exited);
    return { exitCode: info.exitCode, signal: info.signal, escalation };
  };

  return {
    target,
    client,
    transport,
    pid,
    notifications,
    errors,
    get roots() {
      return conn.roots;
    },
    set roots(r: Root[]) {
      conn.roots = r;
    },
    exited,
    hasExited: () => exitInfo !== undefined,
    waitForNotification,
    waitForStderr,
    setRoots: async (roots) => {
      conn.roots = roots;
      await client.sendRootsListChanged();
    },
    stderrTail,
    stderrBytes: () => stderrTotal,
    stderrText: async () => {
      if (!opts.keepAllStderr) throw new Error('stderrText() needs connectClient(..., { keepAllStderr: true })');
      await withTimeout(stderrEnded, DEFAULT_TIMEOUT_MS, () => `the end of the child's stderr; ${diag()}`);
      return Buffer.concat(stderrAll).toString('utf8');
    },
    close: () => {
      closing ??= doClose();
      return closing;
    },
  };
}

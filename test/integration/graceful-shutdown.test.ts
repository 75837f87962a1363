// Graceful shutdown under load, as an operator sees it: a real `mcp-chain` process (build first:
// `npm run build`), on HTTP (`serve <config> --http`) and on stdio, gets SIGTERM or SIGINT while
// calls are in flight. Every call either completes or gets an error (none hangs, none vanishes),
// a new session or request during the drain is refused (HTTP: 503 with Retry-After), the calls
// left at the drain deadline are cancelled upstream, the process exits 0, and no server process
// (nor anything in its process group) is left. The fixture server (test/fixtures/servers/held.ts)
// answers its `held` calls when the test sends it SIGUSR1, and never answers `hang`.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { withTimeout } from '../helpers/client.js';
import { answerTo, initializeRequest, openSession, send, type HttpReply } from '../helpers/http.js';
import { fixtureCommand, proxyEnv, proxyMain } from '../helpers/targets.js';
import { processAlive, processGone } from './_process.js';

/** Per-test safety net; every test waits on real events and finishes far sooner. */
const T = { timeout: 45_000 };
/** Safety net for one awaited event (a log line, an answer). */
const EVENT_MS = 15_000;
/** How much longer than its drain deadline the CLI may take to exit (start-up of nothing, reaping servers). */
const EXIT_MARGIN_MS = 10_000;

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-drain-'));
const started = new Set<Gateway>();

after(async () => {
  for (const gateway of [...started]) await gateway.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** One JSON log line of the CLI (its own, or a server's stderr relayed with `stream: 'stderr'`). */
type LogLine = Record<string, unknown> & { msg?: unknown; stream?: unknown };

/** A `mcp-chain` process: its log lines, its stdout messages (stdio front), how it exits. */
class Gateway {
  readonly child: ChildProcessWithoutNullStreams;
  readonly logs: LogLine[] = [];
  readonly messages: Record<string, unknown>[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Server pids, from the fixture's "held: ready pid=N" lines. */
  readonly serverPids = new Set<number>();
  #stderr = '';
  readonly #waiters = new Set<() => void>();

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [proxyMain, ...args], { env: { PATH: process.env.PATH ?? '', ...proxyEnv() }, stdio: 'pipe' });
    started.add(this);
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    let out = '';
    this.child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      for (let cut = out.indexOf('\n'); cut !== -1; cut = out.indexOf('\n')) {
        this.messages.push(JSON.parse(out.slice(0, cut)) as Record<string, unknown>);
        out = out.slice(cut + 1);
      }
      this.#wake();
    });
    let err = '';
    this.child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.#stderr += text;
      err += text;
      for (let cut = err.indexOf('\n'); cut !== -1; cut = err.indexOf('\n')) {
        const line = err.slice(0, cut);
        err = err.slice(cut + 1);
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as LogLine;
        this.logs.push(parsed);
        const pid = /^held: ready pid=(\d+)$/.exec(String(parsed.msg))?.[1];
        if (pid !== undefined) this.serverPids.add(Number(pid));
      }
      this.#wake();
    });
    void this.exited.then(() => this.#wake());
  }

  /** Resolves once `find` finds something in what came so far; fails naming `what` after EVENT_MS. */
  async until<T>(find: () => T | undefined, what: string): Promise<T> {
    return withTimeout(new Promise<T>((resolve, reject) => {
      const check = (): void => {
        const found = find();
        if (found !== undefined) {
          this.#waiters.delete(check);
          resolve(found);
        } else if (this.child.exitCode !== null || this.child.signalCode !== null) {
          this.#waiters.delete(check);
          reject(new Error(`${what}: the CLI has exited; stderr:\n${this.#stderr.slice(-3000)}`));
        }
      };
      this.#waiters.add(check);
      check();
    }), EVENT_MS, () => `${what}; stderr:\n${this.#stderr.slice(-3000)}`);
  }

  /** The first log line whose msg matches `pattern` (of the CLI itself unless `server`). */
  log(pattern: RegExp, server = false): Promise<LogLine> {
    return this.until(() => this.logs.find((line) => (line.stream === 'stderr') === server && pattern.test(String(line.msg))), `a log line matching ${String(pattern)}`);
  }

  /** Waits until the servers have logged `count` lines matching `pattern`. */
  serverLines(pattern: RegExp, count: number): Promise<LogLine[]> {
    return this.until(() => {
      const lines = this.logs.filter((line) => line.stream === 'stderr' && pattern.test(String(line.msg)));
      return lines.length >= count ? lines : undefined;
    }, `${count} server lines matching ${String(pattern)}`);
  }

  /** The URL it listens on (HTTP front). */
  async url(): Promise<string> {
    return String((await this.log(/^listening$/)).url);
  }

  /** stdio front: sends a request, resolves with its answer. */
  call(id: number, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return this.until(() => this.messages.find((message) => message.id === id && !('method' in message)), `the answer to ${method} (id ${id})`);
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  /** Sends SIGUSR1 to every server still running (an idle session's has ended): their held calls answer. */
  release(): void {
    for (const pid of this.serverPids) {
      try {
        process.kill(pid, 'SIGUSR1');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
  }

  /** How it exits, within `deadlineMs` (the drain deadline) plus a margin. */
  exit(deadlineMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return withTimeout(this.exited, deadlineMs + EXIT_MARGIN_MS, () => `the CLI to exit within its drain deadline of ${deadlineMs} ms + ${EXIT_MARGIN_MS} ms; stderr:\n${this.#stderr.slice(-3000)}`);
  }

  /** Asserts that no server process, nor anything in a server's process group, is left. */
  async assertNoServerLeft(): Promise<void> {
    assert.ok(this.serverPids.size > 0, 'the servers said their pids');
    for (const pid of this.serverPids) {
      await processGone(pid, EVENT_MS);
      assert.deepEqual(processGroupMembers(pid), [], `nothing left in the process group of server ${pid}`);
    }
  }

  async destroy(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      for (const pid of this.serverPids) killQuietly(-pid);
      this.child.kill('SIGKILL');
      await this.exited;
    }
    for (const pid of this.serverPids) for (const member of processGroupMembers(pid)) killQuietly(member);
    started.delete(this);
  }

  #wake(): void {
    for (const check of [...this.#waiters]) check();
  }
}

/** Live processes whose process group is `pgid`. */
function processGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && processAlive(Number(entry))) members.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A config file of one stdio member, the held fixture (one member: its tools keep their names). */
function configFile(): string {
  const { command, args } = fixtureCommand('held');
  const path = join(dir, `config-${started.size}-${Date.now()}.json`);
  writeFileSync(path, JSON.stringify({ mcpServers: { slow: { command, args } } }));
  return path;
}

function call(id: number, name: string): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } };
}

/** The one answer a call got: a result or an error, never both, never none. */
function outcome(reply: HttpReply, id: number): { result?: unknown; error?: { code: number; message: string } } {
  const answers = reply.messages.filter((m) => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id && !('method' in m));
  assert.equal(answers.length, 1, `exactly one answer to ${id}: ${reply.text}`);
  const answer = answerTo(reply, id) ?? {};
  assert.notEqual('result' in answer, 'error' in answer, `a result or an error: ${reply.text}`);
  return answer;
}

describe('graceful shutdown of `mcp-chain serve --http`', () => {
  test('SIGTERM with calls in flight: a new session gets 503 with Retry-After, every call completes, the CLI exits 0, no server is left', T, async () => {
    const gateway = new Gateway(['serve', configFile(), '--http', '127.0.0.1:0', '--drain-ms', '60000']);
    const url = await gateway.url();
    // Two busy sessions and an idle one (each starts its own server).
    const [one, two] = await Promise.all([openSession(url), openSession(url), openSession(url)]);
    const busy = [one, two];
    const calls = [
      { id: 1, reply: send(url, { body: call(1, 'held'), headers: busy[0]?.headers ?? {} }) },
      { id: 2, reply: send(url, { body: call(2, 'held'), headers: busy[0]?.headers ?? {} }) },
      { id: 3, reply: send(url, { body: call(3, 'held'), headers: busy[1]?.headers ?? {} }) },
    ];
    await gateway.serverLines(/^request \d+ held$/, calls.length);
    assert.equal(gateway.serverPids.size, 3, 'one server per session');

    gateway.child.kill('SIGTERM');
    const draining = await gateway.log(/^draining/);
    assert.deepEqual([draining.sessions, draining.inFlight, draining.deadlineMs], [3, 3, 60_000]);
    const refused = await send(url, { body: initializeRequest(undefined, 'late') });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '60');
    assert.deepEqual((refused.json as { id: unknown; error: { code: number } }).id, 'late');
    assert.equal((refused.json as { error: { code: number } }).error.code, -32000);
    const request = await send(url, { body: call(4, 'echo'), headers: busy[0]?.headers ?? {} });
    assert.deepEqual([request.status, (request.json as { id: unknown }).id], [503, 4]);

    gateway.release();
    for (const { id, reply } of calls) {
      assert.deepEqual(outcome(await reply, id).result, { content: [{ type: 'text', text: 'released' }] }, `call ${id} completed`);
    }
    assert.deepEqual(await gateway.exit(60_000), { code: 0, signal: null });
    const drained = await gateway.log(/^drained$/);
    assert.deepEqual([drained.finished, drained.cancelled], [3, 0]);
    await gateway.assertNoServerLeft();
  });

  test('SIGINT: a call still in flight at the deadline is cancelled upstream and answered -32000, the CLI exits 0, no server is left', T, async () => {
    const gateway = new Gateway(['serve', configFile(), '--http', '127.0.0.1:0', '--drain-ms', '300']);
    const url = await gateway.url();
    const { headers } = await openSession(url);
    const held = send(url, { body: call(1, 'held'), headers });
    const hung = send(url, { body: call(2, 'hang'), headers });
    const [first] = await gateway.serverLines(/^request \d+ (held|hang)$/, 2);
    assert.ok(first);

    gateway.child.kill('SIGINT');
    const started = Date.now();
    for (const [id, reply] of [[1, held], [2, hung]] as const) {
      assert.deepEqual(outcome(await reply, id).error, {
        code: -32000,
        message: 'The gateway is shutting down: the call was cancelled after the drain deadline of 300 ms',
      }, `call ${id} was cancelled at the deadline`);
    }
    assert.deepEqual(await gateway.exit(300), { code: 0, signal: null });
    assert.ok(Date.now() - started >= 300, 'not before the deadline');
    // The server was told, as when a client cancels.
    await gateway.serverLines(/^cancelled \d+$/, 2);
    const drained = await gateway.log(/^drained$/);
    assert.deepEqual([drained.finished, drained.cancelled], [0, 2]);
    await gateway.assertNoServerLeft();
  });
});

describe('impatience: a second signal during the drain', () => {
  test('exits 0 at once: the call in flight gets its connection closed (no hang), no server is left', T, async () => {
    const gateway = new Gateway(['serve', configFile(), '--http', '127.0.0.1:0', '--drain-ms', '60000']);
    const url = await gateway.url();
    const { headers } = await openSession(url);
    const held = send(url, { body: call(1, 'held'), headers }).then(
      (reply) => ({ answered: reply.text }),
      (error: unknown) => ({ failed: String(error) }),
    );
    await gateway.serverLines(/^request \d+ held$/, 1);
    gateway.child.kill('SIGTERM');
    await gateway.log(/^draining/);
    gateway.child.kill('SIGTERM');
    assert.deepEqual(await gateway.exit(0), { code: 0, signal: null });
    assert.ok('failed' in (await held), 'the client sees its connection end');
    await gateway.assertNoServerLeft();
  });
});

describe('graceful shutdown of `mcp-chain` on stdio', () => {
  const { command, args } = fixtureCommand('held');

  async function initialized(gateway: Gateway): Promise<void> {
    await gateway.call(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'drain-test', version: '1' } });
    gateway.notify('notifications/initialized');
  }

  test('SIGTERM with a call in flight: a new request gets -32000, the call completes, the CLI exits 0, the server is gone', T, async () => {
    const gateway = new Gateway(['--drain-ms', '60000', '--', command, ...args]);
    await initialized(gateway);
    const held = gateway.call(1, 'tools/call', { name: 'held', arguments: {} });
    await gateway.serverLines(/^request \d+ held$/, 1);

    gateway.child.kill('SIGTERM');
    const draining = await gateway.log(/^draining/);
    assert.deepEqual([draining.inFlight, draining.deadlineMs], [1, 60_000]);
    const refused = await gateway.call(2, 'tools/list');
    assert.equal((refused.error as { code: number }).code, -32000);
    assert.match((refused.error as { message: string }).message, /shutting down/);

    gateway.release();
    assert.deepEqual((await held).result, { content: [{ type: 'text', text: 'released' }] });
    assert.deepEqual(await gateway.exit(60_000), { code: 0, signal: null });
    await gateway.assertNoServerLeft();
  });

  test('SIGINT: a call past the deadline is cancelled upstream and answered -32000; the CLI exits 0, the server is gone', T, async () => {
    const gateway = new Gateway(['--drain-ms', '200', '--', command, ...args]);
    await initialized(gateway);
    const hung = gateway.call(1, 'tools/call', { name: 'hang', arguments: {} });
    await gateway.serverLines(/^request \d+ hang$/, 1);

    gateway.child.kill('SIGINT');
    assert.deepEqual((await hung).error, {
      code: -32000,
      message: 'The gateway is shutting down: the call was cancelled after the drain deadline of 200 ms',
    });
    await gateway.serverLines(/^cancelled \d+$/, 1);
    assert.deepEqual(await gateway.exit(200), { code: 0, signal: null });
    await gateway.assertNoServerLeft();
  });
});

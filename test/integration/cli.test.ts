// The mcp-chain command line, as a client and an operator see it: a real `node dist/cli/main.js`
// process (build first: `npm run build`) in front of the fault-injection fixtures of
// test/fixtures/servers/. What it writes on stdout, what it logs on stderr, how it exits, and
// that it never leaves a server (or a server's own children) running behind it.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { withTimeout } from '../helpers/client.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, fixtureCommand, fixturePath, fixtureTarget, proxyMain, repoRoot, viaProxy } from '../helpers/targets.js';
import { childrenOf, parentPid, processAlive, processGone, processesMatching } from './_process.js';

/** Per-test safety net; every test waits on real events and finishes far sooner. */
const T = { timeout: 30_000 };
/** Safety net for one awaited event (a response, a log line, an exit). */
const EVENT_MS = 15_000;
const PROTOCOL_VERSION = '2025-06-18';
const CLIENT_INFO = { name: 'cli-test', version: '0.0.0' };

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-cli-'));

// ---------------------------------------------------------------------------------------------
// A CLI process driven with raw newline-delimited JSON-RPC.
// ---------------------------------------------------------------------------------------------

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One stdout line, parsed. */
type Message = Record<string, unknown>;

/** One stderr line of the CLI's pino logger. */
interface LogLine {
  msg?: unknown;
  stream?: unknown;
  upstream?: unknown;
  [field: string]: unknown;
}

interface Waiter<T> {
  test: (item: T) => boolean;
  resolve: (item: T) => void;
  reject: (error: Error) => void;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every CLI started by this file, so `after` can reap whatever a failed test left running. */
const started = new Set<Cli>();
/** Server and grandchild pids seen during the tests, killed in `after` if they are still there. */
const seenPids = new Set<number>();

class Cli {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Resolves once the process has exited and its stdout and stderr are drained. */
  readonly exited: Promise<Exit>;
  /** Every line written to stdout, raw. */
  readonly stdoutLines: string[] = [];
  /** The stdout lines that parsed as JSON objects. */
  readonly messages: Message[] = [];
  /** Every stderr line that is not a JSON log line (usage text, fatal messages). */
  readonly stderrText: string[] = [];
  /** Every stderr line that is a JSON log line. */
  readonly logs: LogLine[] = [];
  readonly #stdoutChunks: Buffer[] = [];
  readonly #messageWaiters = new Set<Waiter<Message>>();
  readonly #logWaiters = new Set<Waiter<LogLine>>();
  #exit: Exit | undefined;
  #nextId = 1;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [proxyMain, ...args], { stdio: 'pipe' });
    if (this.child.pid === undefined) throw new Error(`could not start the CLI: ${args.join(' ')}`);
    this.pid = this.child.pid;
    started.add(this);
    this.child.stdin.on('error', () => undefined); // EPIPE once the CLI has exited
    const out = lines((line) => {
      this.stdoutLines.push(line);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return;
      }
      if (isObject(value)) this.#deliver(value, this.messages, this.#messageWaiters);
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.#stdoutChunks.push(chunk);
      out.push(chunk);
    });
    const err = lines((line) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = undefined;
      }
      if (isObject(value)) this.#deliver(value, this.logs, this.#logWaiters);
      else this.stderrText.push(line);
    });
    this.child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    this.exited = new Promise<Exit>((resolve) => {
      this.child.once('close', (code, signal) => {
        out.flush();
        err.flush();
        this.#exit = { code, signal };
        const error = new Error(`the CLI exited (${String(code ?? signal)}) first; ${this.diagnostics()}`);
        for (const w of [...this.#messageWaiters, ...this.#logWaiters]) w.reject(error);
        this.#messageWaiters.clear();
        this.#logWaiters.clear();
        resolve(this.#exit);
      });
    });
  }

  /** All bytes written to stdout so far, as text. */
  stdout(): string {
    return Buffer.concat(this.#stdoutChunks).toString('utf8');
  }

  sendRaw(text: string): void {
    this.child.stdin.write(text);
  }

  send(message: Message): void {
    this.sendRaw(`${JSON.stringify(message)}\n`);
  }

  notify(method: string, params?: Message): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Sends a request with the next id and resolves with its response (result or error). */
  request(method: string, params?: Message): Promise<Message> {
    const id = this.#nextId++;
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.response(id, method);
  }

  /** The response to request `id`, received or to come. */
  response(id: number | string, what = `request ${id}`): Promise<Message> {
    return this.waitForMessage((m) => m.id === id && ('result' in m || 'error' in m), `the response to ${what}`);
  }

  /** A request whose result is expected; fails with the error otherwise. */
  async result(method: string, params?: Message): Promise<Message> {
    const response = await this.request(method, params);
    if (!isObject(response.result)) throw new Error(`${method} failed: ${JSON.stringify(response)}`);
    return response.result;
  }

  /** initialize + notifications/initialized; resolves with the initialize result. */
  async initialize(): Promise<Message> {
    const result = await this.result('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
    this.notify('notifications/initialized');
    return result;
  }

  waitForMessage(test: (m: Message) => boolean, what: string): Promise<Message> {
    return this.#wait(test, this.messages, this.#messageWaiters, what);
  }

  /** The first log line (kept or future) whose `msg` matches `pattern`. */
  waitForLog(pattern: RegExp, what = `a log line matching ${String(pattern)}`): Promise<LogLine> {
    return this.#wait((l) => typeof l.msg === 'string' && pattern.test(l.msg), this.logs, this.#logWaiters, what);
  }

  /** A relayed stderr line of the upstream whose text matches `pattern`; resolves with its match. */
  async waitForServerLine(pattern: RegExp): Promise<RegExpMatchArray> {
    const line = await this.#wait(
      (l) => l.stream === 'stderr' && typeof l.msg === 'string' && pattern.test(l.msg),
      this.logs,
      this.#logWaiters,
      `the server's stderr line ${String(pattern)}`,
    );
    const match = String(line.msg).match(pattern);
    if (!match) throw new Error('unreachable: the line matched the test but not the pattern');
    return match;
  }

  /** The pid of the server, from a line it prints at start (`hang: ready pid=N`, …). */
  async serverPid(pattern: RegExp): Promise<number> {
    const [, pid] = await this.waitForServerLine(pattern);
    const n = Number(pid);
    assert.ok(Number.isInteger(n) && n > 0, `a pid in ${String(pattern)}`);
    seenPids.add(n);
    return n;
  }

  /** Whether the relayed stderr of the server holds a line equal to `text`. */
  serverSaid(text: string): boolean {
    return this.logs.some((l) => l.stream === 'stderr' && l.msg === text);
  }

  /** Resolves with how the CLI exited; fails (after a safety net) if it does not. */
  exit(what = 'the CLI to exit'): Promise<Exit> {
    return withTimeout(this.exited, EVENT_MS, () => `${what}; ${this.diagnostics()}`);
  }

  diagnostics(): string {
    const tail = [...this.stderrText.slice(-10), ...this.logs.slice(-15).map((l) => JSON.stringify(l).slice(0, 300))];
    return `CLI pid ${this.pid}, exit ${JSON.stringify(this.#exit)}; stdout: ${this.stdoutLines.slice(-10).join(' | ').slice(0, 2000)}; stderr tail:\n${tail.join('\n')}`;
  }

  /** Reaps the CLI and its servers' process groups, whatever state they are in. Idempotent. */
  async destroy(): Promise<void> {
    if (this.#exit === undefined) {
      for (const pid of childrenOf(this.pid)) killQuietly(-pid); // servers are process-group leaders
      killQuietly(this.pid);
      await this.exited;
    }
    started.delete(this);
  }

  #deliver<T>(item: T, kept: T[], waiters: Set<Waiter<T>>): void {
    kept.push(item);
    for (const w of waiters) {
      if (w.test(item)) {
        waiters.delete(w);
        w.resolve(item);
      }
    }
  }

  #wait<T>(test: (item: T) => boolean, kept: T[], waiters: Set<Waiter<T>>, what: string): Promise<T> {
    const found = kept.find(test);
    if (found !== undefined) return Promise.resolve(found);
    if (this.#exit !== undefined) return Promise.reject(new Error(`${what}: the CLI has already exited; ${this.diagnostics()}`));
    let waiter: Waiter<T> | undefined;
    const promise = new Promise<T>((resolve, reject) => {
      waiter = { test, resolve, reject };
      waiters.add(waiter);
    });
    return withTimeout(promise, EVENT_MS, () => `${what}; ${this.diagnostics()}`).finally(() => {
      if (waiter) waiters.delete(waiter);
    });
  }
}

/** Splits a byte stream into lines (without the newline); `flush` hands over an unterminated tail. */
function lines(onLine: (line: string) => void): { push(chunk: Buffer): void; flush(): void } {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  return {
    push(chunk) {
      const parts = (partial + decoder.write(chunk)).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) onLine(line);
    },
    flush() {
      const rest = partial + decoder.end();
      partial = '';
      if (rest !== '') onLine(rest);
    },
  };
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** `-- node --import tsx <fixture>`: the CLI's arguments for serving a fixture server. */
function fixtureArgs(name: string): string[] {
  const { command, args } = fixtureCommand(name);
  return ['--', command, ...args];
}

/** A JSON-RPC 2.0 message: a request, a notification, or a response with exactly one of result/error. */
function isJsonRpc(m: Message): boolean {
  if (m.jsonrpc !== '2.0') return false;
  if (typeof m.method === 'string') return true;
  return 'id' in m && ('result' in m) !== ('error' in m);
}

function errorOf(response: Message): { code: unknown; message: unknown; data?: unknown } {
  assert.ok(isObject(response.error), `expected an error response, got ${JSON.stringify(response)}`);
  return response.error as { code: unknown; message: unknown; data?: unknown };
}

function contentOf(result: Message): unknown {
  return result.content;
}

after(async () => {
  for (const cli of [...started]) await cli.destroy();
  for (const pid of seenPids) if (processAlive(pid)) killQuietly(pid);
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------

describe('mcp-chain CLI: stdout carries nothing but JSON-RPC', () => {
  test('in front of a server that prints garbage on stdout and floods stderr, every stdout line is a JSON-RPC message, each request is answered once, and the server stderr goes to our stderr as log lines', T, async () => {
    const cli = new Cli(fixtureArgs('noisy'));
    try {
      const init = await cli.initialize();
      assert.equal(init.protocolVersion, PROTOCOL_VERSION);
      assert.deepEqual(init.serverInfo, { name: 'noisy', version: '1.0.0' });

      const { tools } = await cli.result('tools/list');
      assert.deepEqual((tools as Array<{ name: string }>).map((t) => t.name), ['echo']);
      for (const text of ['one', 'two', 'three']) {
        assert.deepEqual(contentOf(await cli.result('tools/call', { name: 'echo', arguments: { text } })), [{ type: 'text', text }]);
      }
      assert.deepEqual(await cli.result('ping'), {});

      // Bad input from the client side: answered with id null, in order, and the session goes on.
      cli.sendRaw('{"jsonrpc":"2.0","id":99,"method":"ping"\n');
      cli.send({ jsonrpc: '2.0', id: null, method: 'ping' });
      assert.deepEqual(contentOf(await cli.result('tools/call', { name: 'echo', arguments: { text: 'after bad input' } })), [
        { type: 'text', text: 'after bad input' },
      ]);

      cli.child.stdin.end();
      assert.deepEqual(await cli.exit('the CLI to exit once its stdin ends'), { code: 0, signal: null });

      // All of stdout, byte for byte: complete lines, each one JSON-RPC.
      const stdout = cli.stdout();
      assert.ok(stdout.endsWith('\n'), 'stdout ends with a complete line');
      const stdoutLines = stdout.slice(0, -1).split('\n');
      for (const line of stdoutLines) {
        let parsed: unknown;
        assert.doesNotThrow(() => {
          parsed = JSON.parse(line);
        }, `stdout line is JSON: ${line.slice(0, 200)}`);
        assert.ok(isObject(parsed) && isJsonRpc(parsed), `stdout line is JSON-RPC 2.0: ${line.slice(0, 200)}`);
      }
      // Exactly one answer per request (ids 1..7), plus the two answers to the bad input.
      assert.deepEqual(
        cli.messages.map((m) => m.id),
        [1, 2, 3, 4, 5, 6, null, null, 7],
      );
      const nullAnswers = cli.messages.filter((m) => m.id === null).map((m) => errorOf(m).code);
      assert.deepEqual(nullAnswers, [-32700, -32600]);

      // None of the server's garbage (nor its stderr) reached our stdout.
      for (const garbage of ['noisy MCP server', 'loading plugins', 'this line is not JSON', '"hello":"world"', 'ANSI red garbage', 'lorem ipsum']) {
        assert.ok(!stdout.includes(garbage), `stdout holds no ${JSON.stringify(garbage)}`);
      }
      assert.ok(!stdoutLines.includes(''), 'stdout holds no empty line');

      // The server's stderr was relayed to ours, as JSON log lines naming the upstream by its
      // command's base name; the garbage it printed on stdout was logged as dropped.
      const relayed = cli.logs.filter((l) => l.stream === 'stderr');
      assert.ok(relayed.length > 1000, `relayed ${relayed.length} stderr lines`);
      assert.ok(relayed.every((l) => l.upstream === 'node'));
      assert.ok(relayed.some((l) => typeof l.msg === 'string' && l.msg.startsWith('startup: lorem ipsum')));
      assert.ok(relayed.some((l) => typeof l.msg === 'string' && l.msg.startsWith('call: lorem ipsum')));
      assert.ok(cli.logs.some((l) => l.msg === 'dropped a line that is not JSON-RPC' && l.upstream === 'node'));
      assert.deepEqual(cli.stderrText, [], 'every stderr line is a JSON log line');
    } finally {
      await cli.destroy();
    }
  });
});

describe('mcp-chain CLI: a server that crashes mid-call (official SDK client)', () => {
  test('the call in flight fails with -32000 naming the exit code, the next call restarts the server, and the crashed one is gone', T, async () => {
    const state = join(dir, 'crashy-starts');
    const conn = await connectClient(viaProxy(fixtureTarget('crashy', { CRASHY_STATE_FILE: state })));
    try {
      const first = textOf(await callTool(conn.client, { name: 'echo', arguments: { text: 'one' } })).split('\n');
      assert.deepEqual(first.slice(0, 2), ['one', 'start=1']);
      const firstPid = Number(first[2]?.replace('pid=', ''));
      assert.ok(Number.isInteger(firstPid) && firstPid > 0, `a pid in ${first.join(', ')}`);
      seenPids.add(firstPid);

      await assert.rejects(callTool(conn.client, { name: 'crash', arguments: {} }), (e: unknown) => {
        assert.ok(e instanceof McpError, String(e));
        assert.equal(e.code, -32000);
        assert.match(e.message, /Upstream node exited \(code 3\) before answering/);
        return true;
      });

      const second = textOf(await callTool(conn.client, { name: 'echo', arguments: { text: 'two' } })).split('\n');
      assert.deepEqual(second.slice(0, 2), ['two', 'start=2']);
      const secondPid = Number(second[2]?.replace('pid=', ''));
      seenPids.add(secondPid);
      assert.notEqual(secondPid, firstPid);
      assert.equal(processAlive(firstPid), false, `the crashed server ${firstPid} is gone`);
      await conn.waitForStderr(/"msg":"upstream exited \(code 3\)"/, EVENT_MS);
    } finally {
      await conn.close();
    }
  });
});

describe('mcp-chain CLI: no process is left behind when the chain exits', () => {
  /** The CLI in front of `spawner`, initialized: its server pid and the server's grandchild pid. */
  async function spawnerBehindCli(): Promise<{ cli: Cli; server: number; grandchild: number }> {
    const cli = new Cli(fixtureArgs('spawner'));
    await cli.initialize();
    const answer = await cli.result('tools/call', { name: 'grandchild', arguments: {} });
    const grandchild = Number((answer.content as Array<{ text: string }>)[0]?.text);
    assert.ok(Number.isInteger(grandchild) && grandchild > 0, `a pid in ${JSON.stringify(answer)}`);
    seenPids.add(grandchild);
    // The CLI's own command line names spawner.ts too (after `--`); its server is its child.
    const servers = processesMatching(fixturePath('spawner')).filter((pid) => parentPid(pid) === cli.pid);
    assert.equal(servers.length, 1, `one spawner server under the CLI, got ${servers.join(', ')}`);
    const server = servers[0] as number;
    seenPids.add(server);
    assert.equal(parentPid(grandchild), server, 'the grandchild was started by the server');
    assert.ok(processAlive(grandchild));
    return { cli, server, grandchild };
  }

  test('when its stdin closes, the CLI exits 0 and the server and its grandchild are gone', T, async () => {
    const { cli, server, grandchild } = await spawnerBehindCli();
    try {
      cli.child.stdin.end();
      assert.deepEqual(await cli.exit(), { code: 0, signal: null });
      await processGone(server);
      await processGone(grandchild);
    } finally {
      await cli.destroy();
    }
  });

  test('on SIGTERM, the CLI exits 0 and the server and its grandchild are gone', T, async () => {
    const { cli, server, grandchild } = await spawnerBehindCli();
    try {
      cli.child.kill('SIGTERM');
      assert.deepEqual(await cli.exit('the CLI to exit on SIGTERM'), { code: 0, signal: null });
      await processGone(server);
      await processGone(grandchild);
    } finally {
      await cli.destroy();
    }
  });

  // Each of these waits out two shutdown grace periods (1 s each), idle: they run side by side.
  describe('a server that ignores stdin EOF and SIGTERM', { concurrency: true }, () => {
    test('SIGTERM to the CLI while it is already shutting down (as clients send when we are slow) exits at once, and the server still dies', T, async () => {
      const cli = new Cli(['--env', 'HANG_IGNORE_EOF=1', '--env', 'HANG_IGNORE_SIGTERM=1', ...fixtureArgs('hang')]);
      try {
        await cli.initialize();
        const server = await cli.serverPid(/^hang: ready pid=(\d+)$/);
        cli.child.stdin.end();
        cli.child.kill('SIGTERM');
        assert.deepEqual(await withTimeout(cli.exited, 20_000, () => `the CLI to exit; ${cli.diagnostics()}`), { code: 0, signal: null });
        await processGone(server);
      } finally {
        await cli.destroy();
      }
    });
    test(
      'is killed when the CLI stdin closes: stdin closed first, exactly one SIGTERM once the grace period is over, then SIGKILL; the CLI exits 0',
      T,
      async () => {
        const cli = new Cli(['--env', 'HANG_IGNORE_EOF=1', '--env', 'HANG_IGNORE_SIGTERM=1', ...fixtureArgs('hang')]);
        try {
          await cli.initialize();
          const server = await cli.serverPid(/^hang: ready pid=(\d+)$/);
          cli.child.stdin.end();
          assert.deepEqual(await withTimeout(cli.exited, 20_000, () => `the CLI to exit; ${cli.diagnostics()}`), { code: 0, signal: null });
          assert.equal(processAlive(server), false, `server ${server} is gone`);
          const sigterms = cli.logs.filter((l) => l.stream === 'stderr' && l.msg === 'ignoring SIGTERM').length;
          assert.equal(sigterms, 1, 'one SIGTERM (to the process group, after the stdin-close grace period), not one more at once');
        } finally {
          await cli.destroy();
        }
      },
    );
  });
});

describe('mcp-chain CLI: the chain exits when its client vanishes mid-call', () => {
  test('client stdin destroyed during a call: the server is told to cancel it, the call is not answered, the CLI exits 0, the server is gone', T, async () => {
    const cli = new Cli(fixtureArgs('hang'));
    try {
      await cli.initialize();
      const server = await cli.serverPid(/^hang: ready pid=(\d+)$/);
      const id = 'vanishing';
      cli.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hang', arguments: {} } });
      const [, upstreamId] = await cli.waitForServerLine(/^request tools\/call (\S+) hang$/);
      cli.child.stdin.destroy();
      assert.deepEqual(await cli.exit('the CLI to exit once its client is gone'), { code: 0, signal: null });
      assert.ok(cli.serverSaid(`cancelled ${String(upstreamId)}`), `the server logged "cancelled ${String(upstreamId)}"; ${cli.diagnostics()}`);
      assert.ok(!cli.messages.some((m) => m.id === id), 'no answer was written for the abandoned call');
      await processGone(server);
    } finally {
      await cli.destroy();
    }
  });

  test('all of the client pipes gone at once (the client process died): the CLI exits 0 without crashing on EPIPE, the server is gone', T, async () => {
    const cli = new Cli(fixtureArgs('hang'));
    try {
      await cli.initialize();
      const server = await cli.serverPid(/^hang: ready pid=(\d+)$/);
      cli.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hang', arguments: {} } });
      await cli.waitForServerLine(/^request tools\/call \S+ hang$/);
      cli.child.stdin.destroy();
      cli.child.stdout.destroy();
      cli.child.stderr.destroy();
      assert.deepEqual(await cli.exit('the CLI to exit once its client is gone'), { code: 0, signal: null });
      await processGone(server);
    } finally {
      await cli.destroy();
    }
  });
});

describe('mcp-chain CLI: usage errors', () => {
  /** Runs the CLI with `args` and its stdin closed; resolves once it has exited. */
  async function runCli(args: string[]): Promise<{ exit: Exit; stdout: string; stderr: string }> {
    const cli = new Cli(args);
    try {
      cli.child.stdin.end();
      const exit = await cli.exit();
      return { exit, stdout: cli.stdout(), stderr: cli.stderrText.join('\n') };
    } finally {
      await cli.destroy();
    }
  }

  test('no arguments: exit 2, the usage text on stderr, nothing on stdout', T, async () => {
    const { exit, stdout, stderr } = await runCli([]);
    assert.deepEqual(exit, { code: 2, signal: null });
    assert.match(stderr, /^mcp-chain — middleware proxy for MCP servers\n\nUsage:\n/);
    assert.match(stderr, /mcp-chain \[options\] -- <command> \[args\.\.\.\]/);
    assert.match(stderr, /--timeout <ms>/);
    assert.equal(stdout, '');
  });

  test('--timeout abc: exit 2 with a one-line message, nothing on stdout, no server started', T, async () => {
    const marker = join(dir, 'must-not-start');
    const { exit, stdout, stderr } = await runCli(['--timeout', 'abc', '--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`]);
    assert.deepEqual(exit, { code: 2, signal: null });
    assert.equal(stderr, 'mcp-chain: --timeout must be a positive integer, got abc (see mcp-chain --help)');
    assert.equal(stdout, '');
    assert.throws(() => rmSync(marker), { code: 'ENOENT' });
  });

  test('run missing-file.ts: exit 2 with a message naming the file, nothing on stdout', T, async () => {
    const missing = join(dir, 'missing-file.ts');
    const { exit, stdout, stderr } = await runCli(['run', missing]);
    assert.deepEqual(exit, { code: 2, signal: null });
    assert.equal(stderr.split('\n').length, 1, `one line: ${stderr}`);
    assert.ok(stderr.startsWith(`mcp-chain: cannot load ${missing}: `), stderr);
    assert.equal(stdout, '');
  });

  test('an unknown option: exit 2 with a message naming it, nothing on stdout', T, async () => {
    const { exit, stdout, stderr } = await runCli(['--bogus', ...fixtureArgs('hang')]);
    assert.deepEqual(exit, { code: 2, signal: null });
    assert.equal(stderr, 'mcp-chain: unknown option --bogus (see mcp-chain --help)');
    assert.equal(stdout, '');
  });

  test('one line each, exit 2, with the help to read: a missing value, a value that is an option, a bad number, a word that is no command, a missing chain file name', T, async () => {
    const cases: [string[], string][] = [
      [['--timeout'], 'mcp-chain: --timeout needs a value <ms> (see mcp-chain --help)'],
      [['--name', '--timeout', '5', ...fixtureArgs('hang')], 'mcp-chain: --name needs a value, not the option --timeout: write --name=--timeout if that is the value (see mcp-chain --help)'],
      [['--max-sessions', '0', '--http', '0', ...fixtureArgs('hang')], 'mcp-chain: --max-sessions must be a positive integer, got 0 (see mcp-chain --help)'],
      [['--http', '70000', ...fixtureArgs('hang')], 'mcp-chain: --http takes [host:]port, got 70000 (see mcp-chain --help)'],
      [['serv', ...fixtureArgs('hang')], "mcp-chain: unknown command 'serv' (see mcp-chain --help)"],
      [['run', '--timeout', '5'], 'mcp-chain: missing <chain-file> (see mcp-chain run --help)'],
      [['run', 'a.ts', 'b.ts'], "mcp-chain: unexpected argument 'b.ts' (see mcp-chain run --help)"],
      [['--sse=yes', '--http', '0', ...fixtureArgs('hang')], 'mcp-chain: --sse takes no value (see mcp-chain --help)'],
      [['--log-level', 'loud', ...fixtureArgs('hang')], 'mcp-chain: --log-level must be silent, error, warn, info or debug, got loud (see mcp-chain --help)'],
      [['--http', '0'], 'mcp-chain: nothing to serve: give a command after --, or --url <url> (see mcp-chain --help)'],
    ];
    for (const [args, message] of cases) {
      const { exit, stdout, stderr } = await runCli(args);
      assert.deepEqual(exit, { code: 2, signal: null }, args.join(' '));
      assert.equal(stderr, message);
      assert.equal(stdout, '');
    }
  });

  test('run --help: exit 0, the help of run (its usage, arguments and options) on stderr, nothing on stdout', T, async () => {
    const { exit, stdout, stderr } = await runCli(['run', '--help']);
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.match(stderr, /^mcp-chain run — serve the chain exported by a file/);
    assert.match(stderr, /\nUsage:\n {2}mcp-chain run <chain-file> \[options\] \[-- <command> \[args\.\.\.\]\]\n/);
    assert.match(stderr, /\n {2}<chain-file> +the chain file/);
    assert.match(stderr, /\n {2}--timeout <ms> +deadline of each forwarded request/);
    assert.equal(stdout, '');
  });

  test('--version and -v: exit 0, the version of package.json on stderr', T, async () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const { exit, stdout, stderr } = await runCli([flag]);
      assert.deepEqual(exit, { code: 0, signal: null });
      assert.equal(stderr, version);
      assert.equal(stdout, '');
    }
  });

  test('--help: exit 0, the usage text on stderr, nothing on stdout', T, async () => {
    const { exit, stdout, stderr } = await runCli(['--help']);
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.match(stderr, /^mcp-chain — middleware proxy for MCP servers\n\nUsage:\n/);
    assert.equal(stdout, '');
  });
});

describe('mcp-chain CLI: --name', () => {
  test('--name (given before the command word run) is the serverInfo the client sees, with mcp-chain\'s version', T, async () => {
    const file = join(dir, 'empty-chain.mjs');
    writeFileSync(file, `import { chain } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'dist', 'index.js')).href)};\nexport default chain();\n`);
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const cli = new Cli(['--name', 'acme-gateway', 'run', file, ...fixtureArgs('hang')]);
    try {
      const init = await cli.initialize();
      assert.deepEqual(init.serverInfo, { name: 'acme-gateway', version });
      cli.child.stdin.end();
      assert.deepEqual(await cli.exit(), { code: 0, signal: null });
    } finally {
      await cli.destroy();
    }
  });
});

describe('mcp-chain CLI: --timeout', () => {
  /** A chain file setting initialize's deadline explicitly, combined with the --timeout flag. */
  function chainFileWithInitializeDeadline(): string {
    const file = join(dir, 'initialize-deadline.mjs');
    const index = pathToFileURL(join(repoRoot, 'dist', 'index.js')).href;
    writeFileSync(
      file,
      `import { chain } from ${JSON.stringify(index)};\n` +
        'export default chain();\n' +
        'export const options = { timeouts: { methods: { initialize: 20000 } } };\n',
    );
    return file;
  }

  test('--timeout 300: a call that never ends gets -32001 "Request timed out", the server is told to cancel it, and the session goes on', T, async () => {
    const cli = new Cli(['run', chainFileWithInitializeDeadline(), '--timeout', '300', ...fixtureArgs('hang')]);
    try {
      await cli.initialize();
      const hung = await cli.request('tools/call', { name: 'hang', arguments: {} });
      assert.deepEqual(errorOf(hung), { code: -32001, message: 'Request timed out', data: { timeout: 300 } });
      const [, upstreamId] = await cli.waitForServerLine(/^request tools\/call (\S+) hang$/);
      await cli.waitForServerLine(new RegExp(`^cancelled ${String(upstreamId)}$`));
      assert.deepEqual(contentOf(await cli.result('tools/call', { name: 'echo', arguments: { text: 'alive' } })), [{ type: 'text', text: 'alive' }]);
      cli.child.stdin.end();
      assert.deepEqual(await cli.exit(), { code: 0, signal: null });
    } finally {
      await cli.destroy();
    }
  });

  test(
    '--timeout 300 alone: the first initialize succeeds although the server takes longer than 300 ms to start, and is never cancelled',
    T,
    async () => {
      const cli = new Cli(['--timeout', '300', ...fixtureArgs('hang')]);
      try {
        const init = await cli.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
        assert.ok(isObject(init.result), `initialize answered ${JSON.stringify(init)}`);
        await cli.waitForServerLine(/^request initialize \S+$/);
        cli.child.stdin.end();
        assert.deepEqual(await cli.exit(), { code: 0, signal: null });
        assert.ok(!cli.logs.some((l) => l.stream === 'stderr' && typeof l.msg === 'string' && l.msg.startsWith('cancelled ')), 'initialize was never cancelled');
      } finally {
        await cli.destroy();
      }
    },
  );
});

// Single faults on the session side, against the real CLI (`node dist/cli/main.js`; build first):
// stray responses (for ids nobody asked) and notifications/cancelled for unknown or answered ids,
// from the client and from a stdio upstream, are dropped quietly and never answered, and the next
// message is served; a client cancelling initialize (the spec forbids it) is ignored.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { withDeadline } from '../../src/testing/with-deadline.js';
import { answerTo, freePort, openSession, send } from '../helpers/http.js';
import { serveHttpCli } from '../helpers/serve-http-cli.js';
import { fixtureCommand, proxyEnv, proxyMain } from '../helpers/targets.js';

const T = { timeout: 30_000 };
const WAIT_MS = 15_000;
const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-single-faults-'));
after(() => rmSync(dir, { recursive: true, force: true }));

type Message = Record<string, unknown>;

/** The CLI on stdio in front of the stray fixture, driven with raw lines. */
class StdioCli {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Message[] = [];
  readonly logs: Message[] = [];
  readonly #waiters = new Set<() => void>();

  constructor(serverArgs: string[] = []) {
    const { command, args } = fixtureCommand('stray');
    this.child = spawn(process.execPath, [proxyMain, '--', command, ...args, ...serverArgs], {
      env: { PATH: process.env.PATH ?? '', ...proxyEnv(), MCP_CHAIN_LOG_LEVEL: 'debug' },
      stdio: 'pipe',
    });
    this.child.stdin.on('error', () => undefined);
    this.#lines(this.child.stdout, this.messages);
    this.#lines(this.child.stderr, this.logs);
  }

  send(message: Message): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  async waitFor<T extends Message>(kept: T[], test: (m: T) => boolean, what: string): Promise<T> {
    const found = (): T | undefined => kept.find(test);
    return withDeadline(new Promise<T>((resolve) => {
      const check = (): void => {
        const hit = found();
        if (hit) {
          this.#waiters.delete(check);
          resolve(hit);
        }
      };
      this.#waiters.add(check);
      check();
    }), { what: () => `${what}; stdout: ${JSON.stringify(this.messages).slice(0, 1500)}`, timeoutMs: WAIT_MS });
  }

  response(id: number | string): Promise<Message> {
    return this.waitFor(this.messages, (m) => m.id === id && !('method' in m), `the response to ${id}`);
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('close', () => resolve()));
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.stdin.end();
    await withDeadline(exited, { what: 'the CLI to exit once stdin ends', timeoutMs: WAIT_MS });
  }

  #lines(stream: NodeJS.ReadableStream, kept: Message[]): void {
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        try {
          const value: unknown = JSON.parse(line);
          if (typeof value === 'object' && value !== null && !Array.isArray(value)) kept.push(value as Message);
        } catch {
          // not a JSON line
        }
      }
      for (const waiter of [...this.#waiters]) waiter();
    });
  }
}

const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'single-faults', version: '1' } };

/** Log lines of the CLI itself at warn or above (pino levels: 40 warn, 50 error). */
function warnings(logs: Message[]): Message[] {
  return logs.filter((l) => typeof l.level === 'number' && l.level >= 40 && l.stream !== 'stderr');
}

describe('single faults on the stdio front (the real CLI, a stdio upstream that sends stray traffic)', () => {
  test('stray responses and cancellations from the client and from the upstream are dropped unanswered; the next request is served', T, async () => {
    const cli = new StdioCli();
    try {
      cli.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT });
      assert.ok('result' in (await cli.response(1)));
      cli.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      cli.send({ jsonrpc: '2.0', id: 'nobody-asked', result: {} });
      cli.send({ jsonrpc: '2.0', id: 424242, error: { code: -32603, message: 'stray' } });
      cli.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent' } });
      cli.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
      // Read in order, ping answered by the front itself: any answer to the strays comes before it.
      cli.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      assert.deepEqual((await cli.response(2)).result, {});
      cli.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } });
      assert.deepEqual((await cli.response(3)).result, { content: [{ type: 'text', text: 'still here' }] });
      assert.deepEqual(cli.messages.map((m) => m.id), [1, 2, 3], 'exactly one answer per request, none to the strays');
      assert.deepEqual(warnings(cli.logs), []);
      // The upstream's strays reached the gateway, and were dropped at debug level.
      assert.ok(cli.logs.some((l) => l.msg === 'dropped a response to no request in flight (late or cancelled)' && l.level === 20 && l.upstream !== undefined), JSON.stringify(cli.logs.slice(-10)));
    } finally {
      await cli.stop();
    }
  });

  test('a client cancelling initialize is ignored: initialize is answered once and the session works', T, async () => {
    const cli = new StdioCli(['--hold-initialize']);
    try {
      cli.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT });
      const held = await cli.waitFor(cli.logs, (l) => typeof l.msg === 'string' && /stray: initialize held pid=\d+/.test(l.msg), 'the upstream to hold initialize');
      const pid = Number(/pid=(\d+)/.exec(String(held.msg))?.[1]);
      cli.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'init', reason: 'changed my mind' } });
      cli.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
      await cli.response('p');
      process.kill(pid, 'SIGUSR1');
      const initialized = await cli.response('init');
      assert.equal((initialized.result as { protocolVersion?: unknown }).protocolVersion, '2025-11-25');
      cli.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      cli.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'echo', arguments: { text: 'ok' } } });
      assert.ok('result' in (await cli.response('call')));
      assert.equal(cli.messages.filter((m) => m.id === 'init').length, 1, 'initialize answered exactly once');
    } finally {
      await cli.stop();
    }
  });
});

describe('single faults on the HTTP front (`mcp-chain serve --http`, a stdio member that sends stray traffic)', () => {
  test('stray responses and cancellations are accepted with 202 and never answered; the next call is served', T, async () => {
    const { command, args } = fixtureCommand('stray');
    const config = join(dir, 'stray.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { stray: { command, args } } }));
    const port = await freePort();
    const cli = await serveHttpCli(config, port);
    try {
      const url = `http://127.0.0.1:${port}/mcp`;
      const { headers } = await openSession(url);
      for (const stray of [
        { jsonrpc: '2.0', id: 'nobody-asked', result: {} },
        { jsonrpc: '2.0', id: 424242, error: { code: -32603, message: 'stray' } },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent' } },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      ]) {
        const reply = await send(url, { body: stray, headers });
        assert.equal(reply.status, 202, `${JSON.stringify(stray)}: ${reply.text}`);
        assert.equal(reply.text, '');
      }
      const call = await send(url, { body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'stray__echo', arguments: { text: 'served' } } }, headers });
      assert.deepEqual(answerTo(call, 7)?.result, { content: [{ type: 'text', text: 'served' }] });
      assert.deepEqual(call.messages.filter((m) => typeof m === 'object' && m !== null && 'id' in m).length, 1);
    } finally {
      const exit = await cli.stop();
      assert.equal(exit.code, 0, cli.stderr());
    }
  });
});

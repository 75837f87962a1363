import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { LogFields, Logger } from '../../log/logger.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { scripted } from '../_test/scripted.js';
import { cache } from '../cache/index.js';
import { log, type LogEntry } from './index.js';

const server = local({
  tools: [
    { name: 'login', handler: (args) => ({ content: [{ type: 'text', text: `token for ${String(args.password)}` }] }) },
    { name: 'fail', handler: () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }) },
    {
      name: 'wait',
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
    },
  ],
  prompts: [{ name: 'greet', handler: () => ({ messages: [] }) }],
  resources: [{ uri: 'file:///a.txt', name: 'a', read: () => [{ uri: 'file:///a.txt', text: 'a' }] }],
});

/** A logger that keeps what it is given. */
function capture(): { logger: Logger; entries: LogFields[]; next(): Promise<LogFields> } {
  const entries: LogFields[] = [];
  let waiting: ((fields: LogFields) => void) | undefined;
  const logger: Logger = {
    error: () => undefined,
    warn: () => undefined,
    debug: () => undefined,
    info: (_message, fields = {}) => {
      entries.push(fields);
      waiting?.(fields);
      waiting = undefined;
    },
    child: () => logger,
  };
  return { logger, entries, next: () => new Promise((resolve) => (waiting = resolve)) };
}

/** The entries without the fields that change from run to run. */
function stable(entries: readonly (LogFields | LogEntry)[]): LogFields[] {
  return entries.map(({ time, session, durationMs, ...rest }) => {
    assert.match(String(time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(String(session), /^[0-9a-f-]{8}$/);
    assert.equal(typeof durationMs, 'number');
    return rest;
  });
}

describe('log', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-chain-log-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("level 'call' appends one line per request to a JSONL file, without arguments or results", async () => {
    const path = join(dir, 'calls.jsonl');
    const mw = log({ destination: path });
    const h = await harness(chain().use(mw).to(server));
    await h.request('tools/call', { name: 'login', arguments: { password: 'hunter2' } });
    await h.request('tools/call', { name: 'fail' });
    await h.call('tools/call', { name: 'nope' });
    await h.request('prompts/get', { name: 'greet' });
    await h.request('resources/read', { uri: 'file:///a.txt' });
    await h.close();
    await mw.close();

    const text = await readFile(path, 'utf8');
    assert.doesNotMatch(text, /hunter2/);
    const lines = text.trimEnd().split('\n').map((line) => JSON.parse(line) as LogEntry);
    const request = { direction: 'toUpstream', kind: 'request' };
    assert.deepEqual(stable(lines), [
      { ...request, method: 'initialize', outcome: 'ok' },
      { ...request, method: 'tools/call', tool: 'login', outcome: 'ok' },
      { ...request, method: 'tools/call', tool: 'fail', outcome: 'isError' },
      { ...request, method: 'tools/call', tool: 'nope', outcome: 'error', error: { code: -32602, message: 'Unknown tool: nope' } },
      { ...request, method: 'prompts/get', prompt: 'greet', outcome: 'ok' },
      { ...request, method: 'resources/read', uri: 'file:///a.txt', outcome: 'ok' },
    ]);
    assert.deepEqual(Object.keys(lines[1] ?? {}), ['time', 'session', 'direction', 'kind', 'method', 'tool', 'durationMs', 'outcome']);
  });

  test('the file is appended to, and close() may be called again', async () => {
    const path = join(dir, 'append.jsonl');
    for (let run = 0; run < 2; run++) {
      const mw = log({ destination: path });
      const h = await harness(chain().use(mw).to(server));
      await h.close();
      await mw.close();
      await mw.close();
    }
    assert.equal((await readFile(path, 'utf8')).trimEnd().split('\n').length, 2);
  });

  test("level 'message' logs notifications and server→client requests too, in both directions", async () => {
    const upstream = scripted({});
    const { logger, entries } = capture();
    const h = await harness(chain().use(log({ level: 'message', logger })).to(upstream));
    h.handle('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }));
    const changed = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    await changed;
    await upstream.ask('sampling/createMessage', { messages: [], maxTokens: 1 });
    await h.close();
    assert.deepEqual(stable(entries), [
      { direction: 'toUpstream', kind: 'request', method: 'initialize', outcome: 'ok' },
      { direction: 'toUpstream', kind: 'notification', method: 'notifications/initialized', outcome: 'ok' },
      { direction: 'toDownstream', kind: 'notification', method: 'notifications/tools/list_changed', outcome: 'ok' },
      { direction: 'toDownstream', kind: 'request', method: 'sampling/createMessage', outcome: 'ok' },
    ]);
  });

  test('includeParams adds the params', async () => {
    const { logger, entries } = capture();
    const h = await harness(chain().use(log({ logger, includeParams: true })).to(server));
    await h.request('tools/call', { name: 'login', arguments: { password: 'hunter2' } });
    await h.close();
    assert.deepEqual(entries.at(-1)?.params, { name: 'login', arguments: { password: 'hunter2' } });
  });

  test('a cancelled call is logged when it is cancelled; a timeout is an error -32001', async () => {
    const { logger, entries, next } = capture();
    const h = await harness(chain().use(log({ logger })).to(server), { timeouts: { tools: { wait: 50 } } });

    const logged = next();
    void h.call('tools/call', { name: 'wait' }, 'slow-1');
    // Sent after the call on the same stream, so the session already has the call in flight.
    h.notify('notifications/cancelled', { requestId: 'slow-1', reason: 'user pressed stop' });
    assert.equal((await logged).outcome, 'cancelled');

    const timedOut = await h.call('tools/call', { name: 'wait' });
    assert.equal((timedOut.error as JsonObject).code, -32001);
    await h.close();
    assert.deepEqual(stable(entries.slice(1)), [
      { direction: 'toUpstream', kind: 'request', method: 'tools/call', tool: 'wait', outcome: 'cancelled' },
      {
        direction: 'toUpstream',
        kind: 'request',
        method: 'tools/call',
        tool: 'wait',
        outcome: 'error',
        error: { code: -32001, message: 'Request timed out' },
      },
    ]);
  });

  test("'stderr' (the default) writes to stderr and never to stdout", async (t) => {
    const stderr = t.mock.method(process.stderr, 'write', () => true);
    const stdout = t.mock.method(process.stdout, 'write');
    const h = await harness(chain().use(log()).to(server));
    await h.request('tools/list');
    await h.close();
    const lines = stderr.mock.calls.map((call) => JSON.parse(String(call.arguments[0])) as LogEntry);
    stderr.mock.restore();
    assert.deepEqual(lines.map((line) => line.method), ['initialize', 'tools/list']);
    // (The test runner itself may report through stdout meanwhile; no log line may go there.)
    const logLinesOnStdout = stdout.mock.calls.filter((call) => String(call.arguments[0]).includes('"direction"'));
    assert.equal(logLinesOnStdout.length, 0);
  });
});

describe('log with cache behind it', () => {
  test("each call's line says whether the cache answered it", async () => {
    const { logger, entries } = capture();
    const h = await harness(chain().use(log({ logger }), cache({ tools: ['login'] })).to(server));
    try {
      await h.request('tools/call', { name: 'login', arguments: { password: 'x' } });
      await h.request('tools/call', { name: 'login', arguments: { password: 'x' } });
      const calls = entries.filter((entry) => entry.method === 'tools/call');
      assert.deepEqual(calls.map((entry) => entry.cache), ['miss', 'hit']);
    } finally {
      await h.close();
    }
  });
});

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { chain } from '../chain/chain.js';
import type { LogFields, Logger } from '../log/logger.js';
import { LineReader } from '../message/line-reader.js';
import { withDeadline } from '../testing/with-deadline.js';
import { local } from '../upstream/local.js';
import { serveStdio, type StdioFront } from './serve-stdio.js';

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The stdio front on in-memory streams, with a client that writes lines and waits for answers by id. */
async function stdioClient(drainMs?: number) {
  const release = deferred();
  const started = deferred();
  const aborted = deferred<string>();
  const upstream = chain().to(local({
    name: 'stdio-drain-test',
    tools: [
      {
        name: 'held',
        handler: async () => {
          started.resolve();
          await release.promise;
          return { content: [{ type: 'text', text: 'released' }] };
        },
      },
      {
        name: 'hang',
        handler: (_args, ctx) => new Promise(() => {
          started.resolve();
          ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason instanceof Error ? ctx.signal.reason.message : String(ctx.signal.reason)));
        }),
      },
    ],
  }));
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: { message: string; fields: LogFields }[] = [];
  const log: Logger = {
    error: () => undefined,
    warn: () => undefined,
    debug: () => undefined,
    info: (message, fields = {}) => void lines.push({ message, fields }),
    child: () => log,
  };
  const answers = new Map<unknown, { resolve: (value: Record<string, unknown>) => void }>();
  const reader = new LineReader({
    onValue: (value) => answers.get((value as { id?: unknown }).id)?.resolve(value as Record<string, unknown>),
    onMalformed: (error) => {
      throw error;
    },
  }, 1 << 20);
  output.on('data', (chunk: Buffer) => reader.push(chunk));
  const front: StdioFront = await serveStdio(upstream, { input, output, log, ...(drainMs === undefined ? {} : { drainMs }) });
  const call = (id: number, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const answer = deferred<Record<string, unknown>>();
    answers.set(id, answer);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return withDeadline(answer.promise, { what: `the answer to ${method} (id ${id})` });
  };
  await call(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return { front, call, release, started, aborted, lines };
}

describe('stdio front: drain (SIGINT, SIGTERM)', () => {
  test('a new request gets -32000 while the call in flight completes; then the session ends, said in two info lines', async () => {
    const client = await stdioClient();
    const inFlight = client.call(1, 'tools/call', { name: 'held' });
    await withDeadline(client.started.promise, { what: 'the held call to start' });
    const drained = client.front.drain();
    const refused = await client.call(2, 'tools/list');
    assert.equal((refused.error as { code: number }).code, -32000);
    assert.match((refused.error as { message: string }).message, /shutting down/);
    client.release.resolve();
    assert.deepEqual((await inFlight).result, { content: [{ type: 'text', text: 'released' }] });
    await withDeadline(drained, { what: 'the drain' });
    await withDeadline(client.front.closed, { what: 'the session to end' });
    assert.deepEqual(client.lines.map((line) => line.message), ['draining: no new requests; calls in flight may finish', 'drained']);
    assert.deepEqual(client.lines[0]?.fields, { inFlight: 1, deadlineMs: 10_000 });
  });

  test('past the drainMs option, the call is cancelled upstream and answered -32000 naming the deadline', async () => {
    const client = await stdioClient(40);
    const inFlight = client.call(1, 'tools/call', { name: 'hang' });
    await withDeadline(client.started.promise, { what: 'the hanging call to start' });
    const drained = client.front.drain();
    assert.deepEqual((await inFlight).error, {
      code: -32000,
      message: 'The gateway is shutting down: the call was cancelled after the drain deadline of 40 ms',
    });
    assert.match(await client.aborted.promise, /drain deadline of 40 ms/);
    await withDeadline(drained, { what: 'the drain' });
    await withDeadline(client.front.closed, { what: 'the session to end' });
    assert.deepEqual({ ...client.lines[1]?.fields, ms: 0 }, { finished: 0, cancelled: 1, ms: 0 });
  });
});

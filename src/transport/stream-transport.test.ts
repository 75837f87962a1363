import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { chain } from '../chain/chain.js';
import { Session } from '../session/session.js';
import type { Upstream } from '../core/upstream.js';
import { StreamTransport } from './stream-transport.js';

/** A writable that takes nothing until `open()`, then everything. */
function stuckOutput(): { output: Writable; open: () => void; written: string[] } {
  const written: string[] = [];
  let release: (() => void) | undefined;
  let opened = false;
  const output = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString());
      if (opened) callback();
      else release = callback;
    },
  });
  return {
    output,
    written,
    open: () => {
      opened = true;
      release?.();
    },
  };
}

describe('StreamTransport', () => {
  test('messages sent in one tick go out in one write, each on its own line', async () => {
    const output = new PassThrough();
    const transport = new StreamTransport(new PassThrough(), output);
    const chunks: string[] = [];
    output.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    transport.send({ jsonrpc: '2.0', method: 'a' });
    transport.send({ jsonrpc: '2.0', method: 'b' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(chunks, ['{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","method":"b"}\n']);
  });

  test('a large message forwarded unchanged goes out as the very bytes it came in as, between the messages around it', async () => {
    // Non-ASCII text and escapes inside, a string id with a multi-byte character outside.
    const result = `{"content":[{"type":"text","text":"${'é \\"q\\" ✓ '.repeat(2000)}"}],"isError":false}`;
    const upstreamIn = new PassThrough();
    const upstream = new StreamTransport(upstreamIn, new PassThrough());
    const received: unknown[] = [];
    upstream.onmessage = (value) => received.push(value);
    await upstream.start();
    const line = Buffer.from(`{"result":${result},"jsonrpc":"2.0","id":"ü-7"}\n`);
    // Split inside a multi-byte character: the line is put together from pieces.
    upstreamIn.write(line.subarray(0, 1001));
    upstreamIn.write(line.subarray(1001));
    await new Promise((resolve) => setImmediate(resolve));
    const forwarded = received[0] as { result: object };

    const output = new PassThrough();
    const front = new StreamTransport(new PassThrough(), output);
    const out: Buffer[] = [];
    output.on('data', (chunk: Buffer) => out.push(chunk));
    front.send({ jsonrpc: '2.0', method: 'before' });
    front.send({ jsonrpc: '2.0', id: 'ö-1', result: forwarded.result as never });
    front.send({ jsonrpc: '2.0', method: 'after' });
    await new Promise((resolve) => setImmediate(resolve));
    const text = Buffer.concat(out).toString('utf8');
    assert.equal(text, `{"jsonrpc":"2.0","method":"before"}\n{"jsonrpc":"2.0","id":"ö-1","result":${result}}\n{"jsonrpc":"2.0","method":"after"}\n`);
    assert.deepEqual(JSON.parse(text.split('\n')[1] ?? ''), { jsonrpc: '2.0', id: 'ö-1', result: JSON.parse(result) as object });
  });

  test('reports congestion when the other side stops reading, and its end once it drains', async () => {
    const { output, open } = stuckOutput();
    const transport = new StreamTransport(new PassThrough(), output);
    const changes: boolean[] = [];
    transport.oncongestion = (congested) => changes.push(congested);
    transport.send({ jsonrpc: '2.0', method: 'big', params: { text: 'x'.repeat(4096) } });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(changes, [true]);
    const drained = new Promise((resolve) => output.once('drain', resolve));
    open();
    await drained;
    assert.deepEqual(changes, [true, false]);
  });

  test('a client that does not read what the session sends holds the upstream back until it drains', async () => {
    const { output, open } = stuckOutput();
    const flow: string[] = [];
    const upstream: Upstream = {
      connect: (downstream) => {
        queueMicrotask(() => void downstream.notify({ method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(4096) } }));
        return {
          request: () => Promise.resolve({}),
          notify: () => Promise.resolve(),
          close: () => Promise.resolve(),
          pause: () => void flow.push('pause'),
          resume: () => void flow.push('resume'),
        };
      },
    };
    const session = new Session(new StreamTransport(new PassThrough(), output), chain().to(upstream));
    await session.start();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(flow, ['pause']);
    const drained = new Promise((resolve) => output.once('drain', resolve));
    open();
    await drained;
    assert.deepEqual(flow, ['pause', 'resume']);
    await session.close();
  });
});

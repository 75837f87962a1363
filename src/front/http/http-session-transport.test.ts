import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { silentLogger } from '../../log/stderr-logger.js';
import { MemoryEventStore } from './event-store.js';
import { HttpSessionTransport } from './http-session-transport.js';

test('a client that stops reading its SSE stream holds the session back (congestion), and reading again releases it', async () => {
  const transport = new HttpSessionTransport({ id: 's', store: new MemoryEventStore(), priming: () => false, log: silentLogger });
  const changes: boolean[] = [];
  let congested!: () => void;
  let relieved!: () => void;
  const becameCongested = new Promise<void>((resolve) => (congested = resolve));
  const becameRelieved = new Promise<void>((resolve) => (relieved = resolve));
  transport.oncongestion = (value) => {
    changes.push(value);
    (value ? congested : relieved)();
  };
  const server = createServer((_req, res: ServerResponse) => transport.listen(res, {}));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const response = await new Promise<IncomingMessage>((resolve) => request({ port, host: '127.0.0.1', path: '/' }, resolve).end());
  response.pause();
  // The server floods the stream; the client reads nothing.
  const big = 'x'.repeat(64 * 1024);
  let sent = 0;
  while (changes.length === 0 && sent < 10_000) {
    transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: big } });
    sent += 1;
    if (sent % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await becameCongested;
  assert.deepEqual(changes, [true]);
  response.resume();
  await becameRelieved;
  assert.deepEqual(changes, [true, false]);
  response.destroy();
  await transport.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Resolves once `done()` holds, turning the event loop; fails naming `what` after 5 s. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A server whose every request becomes an exchange of `transport` waiting for the request ids it names. */
async function exchangeServer(transport: HttpSessionTransport): Promise<{ port: number; closed: Promise<ServerResponse>; stop(): Promise<void> }> {
  let onClosed!: (res: ServerResponse) => void;
  const closed = new Promise<ServerResponse>((resolve) => (onClosed = resolve));
  const server = createServer((req, res: ServerResponse) => {
    const id = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('id'));
    transport.exchange(res, [{ jsonrpc: '2.0', id, method: id === 1 ? 'initialize' : 'tools/list' }], { waiting: [id], batch: false, headers: {} });
    // Registered after the transport's own listener: runs once the transport has seen the close.
    res.on('close', () => onClosed(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, closed, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('a client that goes away before the answer to initialize (it never learned the session id) ends the session at once, not after its TTL', async () => {
  const transport = new HttpSessionTransport({ id: 's', store: undefined, priming: () => false, log: silentLogger });
  const received: unknown[] = [];
  transport.onmessage = (message) => received.push(message);
  let ended = false;
  transport.onclose = () => (ended = true);
  const server = await exchangeServer(transport);
  try {
    const req = request({ port: server.port, host: '127.0.0.1', path: '/?id=1', method: 'POST' });
    req.on('error', () => undefined);
    req.end();
    await until(() => received.length === 1, 'the initialize request');
    req.destroy();
    await server.closed;
    assert.equal(ended, true);
  } finally {
    await transport.close();
    await server.stop();
  }
});

test('a later request whose client goes away is cancelled upstream, and the session it belongs to lives on', async () => {
  const transport = new HttpSessionTransport({ id: 's', store: undefined, priming: () => false, log: silentLogger });
  const received: unknown[] = [];
  transport.onmessage = (message) => received.push(message);
  let ended = false;
  transport.onclose = () => (ended = true);
  const server = await exchangeServer(transport);
  try {
    // initialize, answered.
    const answered = new Promise<IncomingMessage>((resolve) => request({ port: server.port, host: '127.0.0.1', path: '/?id=1', method: 'POST' }, resolve).end());
    await until(() => received.length === 1, 'the initialize request');
    transport.send({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
    (await answered).resume();
    await server.closed;
    // A call whose client vanishes before its answer.
    const req = request({ port: server.port, host: '127.0.0.1', path: '/?id=2', method: 'POST' });
    req.on('error', () => undefined);
    req.end();
    await until(() => received.length === 2, 'the tools/list request');
    req.destroy();
    await until(() => received.length === 3, 'the cancellation of tools/list');
    assert.deepEqual(received[2], { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'The HTTP client disconnected before the answer' } });
    assert.equal(ended, false);
  } finally {
    await transport.close();
    await server.stop();
  }
});

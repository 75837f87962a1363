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

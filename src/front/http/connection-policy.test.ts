// How the HTTP front keeps connections: a keep-alive hint shorter than what the server really
// keeps (so a client reusing an idle connection never races the server's close), idle connections
// capped by saying `Connection: close` in a response (never by cutting one), and a graceful close.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import { applyConnectionPolicy, type ConnectionPolicy, type ConnectionPolicyOptions } from './connection-policy.js';

interface Started {
  server: Server;
  policy: ConnectionPolicy;
  port: number;
  /** Responses held back by `GET /hold`, released by the test. */
  held: ServerResponse[];
  /** Resolves when the next `GET /hold` arrives. */
  nextHeld: () => Promise<ServerResponse>;
}

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function start(options: ConnectionPolicyOptions = {}): Promise<Started> {
  const held: ServerResponse[] = [];
  let onHeld: ((res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => {
    if (req.url === '/hold') {
      held.push(res);
      onHeld?.(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
  });
  const policy = applyConnectionPolicy(server, options);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const nextHeld = (): Promise<ServerResponse> => new Promise((resolve) => (onHeld = resolve));
  return { server, policy, port: (server.address() as AddressInfo).port, held, nextHeld };
}

/** A raw HTTP/1.1 connection: send a GET, read its whole response; see when the server ends it. */
class RawConnection {
  readonly socket: Socket;
  readonly ended: Promise<void>;
  #buffer = '';
  #waiting: (() => void) | undefined;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    sockets.push(this.socket);
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      this.#waiting?.();
    });
    this.ended = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  /** Sends `GET path` and resolves with the response's head (lower-case names) and body. */
  async get(path: string): Promise<{ head: Map<string, string>; body: string }> {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const lines = this.#buffer.slice(0, end).split('\r\n').slice(1);
        const head = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        const length = Number(head.get('content-length') ?? 0);
        if (this.#buffer.length >= end + 4 + length) {
          const body = this.#buffer.slice(end + 4, end + 4 + length);
          this.#buffer = this.#buffer.slice(end + 4 + length);
          return { head, body };
        }
      }
      await new Promise<void>((resolve, reject) => {
        this.#waiting = resolve;
        this.socket.once('close', () => reject(new Error(`connection closed before a whole response: ${JSON.stringify(this.#buffer)}`)));
      });
    }
  }
}

describe('HTTP connection policy', () => {
  test('tells clients to keep an idle connection for less time than the server keeps it', async () => {
    const { server } = await start();
    const connection = new RawConnection((server.address() as AddressInfo).port);
    const { head } = await connection.get('/');
    assert.equal(head.get('connection'), 'keep-alive');
    assert.equal(head.get('keep-alive'), 'timeout=5', 'one hint, ours (not Node\'s, which would state the real timeout)');
    // undici keeps an idle connection for the hint minus 2 s; the server keeps it 30 s longer
    // than the hint, so a client whose timers run late still closes first.
    assert.ok(server.keepAliveTimeout >= 5000 + 30_000, `server keeps idle connections ${server.keepAliveTimeout} ms`);
  });

  test('a hint below 3 s is raised to 3 s: undici closes after every response on a hint of 2 s or less', async () => {
    const { server } = await start({ keepAliveHintMs: 1000, keepAliveGraceMs: 1000 });
    const { head } = await new RawConnection((server.address() as AddressInfo).port).get('/');
    assert.equal(head.get('keep-alive'), 'timeout=3');
    assert.equal(server.keepAliveTimeout, 4000);
  });

  test('beyond the idle cap a response says Connection: close and its connection ends; the others stay', async () => {
    const { port, policy } = await start({ maxIdleConnections: 1 });
    const first = new RawConnection(port);
    assert.equal((await first.get('/')).head.get('connection'), 'keep-alive');
    assert.equal(policy.idle, 1);

    const second = new RawConnection(port);
    const { head, body } = await second.get('/');
    assert.equal(body, 'ok', 'the response is whole');
    assert.equal(head.get('connection'), 'close');
    await second.ended;

    // The kept connection is still usable.
    assert.equal((await first.get('/')).body, 'ok');
    assert.equal(policy.connections, 1);
  });

  test('graceful close: idle connections end at once, a request in flight gets its whole answer, then its connection ends', async () => {
    const { server, policy, port, nextHeld } = await start();
    const idle = new RawConnection(port);
    await idle.get('/');
    const busy = new RawConnection(port);
    const arrived = nextHeld();
    const answer = busy.get('/hold');
    const res = await arrived;

    server.close();
    let closed = false;
    const closing = policy.close().then(() => (closed = true));
    await idle.ended;
    assert.equal(closed, false, 'close waits for the request in flight');
    assert.equal(policy.connections, 1);

    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '14' }).end('late but whole');
    const { head, body } = await answer;
    assert.equal(body, 'late but whole');
    assert.equal(head.get('connection'), 'close', 'its head, written after the close began, says so');
    await busy.ended;
    await closing;
    assert.equal(policy.connections, 0);
  });
});

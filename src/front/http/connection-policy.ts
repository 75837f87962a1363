import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionPolicyOptions {
  /**
   * What the `Keep-Alive: timeout=<s>` hint on every response tells clients: how long they may keep
   * an idle connection. Node's fetch (undici) keeps one for the hint minus 2 s (a hint of 2 s or
   * less makes it close every connection after one response). Default 5 s.
   */
  keepAliveHintMs?: number;
  /**
   * How much longer than the hint the server itself keeps an idle connection. A client reuses an
   * idle connection until its own timer fires, and a busy client's timers fire late; a server that
   * closes at the very time it advertised closes connections that requests are already on their way
   * over ("other side closed"). With this margin the client is always the one that closes. Default 30 s.
   */
  keepAliveGraceMs?: number;
  /**
   * Most idle connections kept. Beyond, a response says `Connection: close` and its connection ends
   * once it is written: the client learns it before it could reuse the connection, so this never
   * races a request. Default 1024.
   */
  maxIdleConnections?: number;
  /** On close, how long in-flight responses may take before their connections are cut. Default 5 s. */
  closeGraceMs?: number;
}

/** Node's per-response copy of `server.keepAliveTimeout`, from which it writes `Keep-Alive: timeout=`. */
interface KeepAliveHint {
  _keepAliveTimeout: number;
}

export interface ConnectionPolicy {
  /** Open connections. */
  readonly connections: number;
  /** Open connections that have answered a request and have none in progress. */
  readonly idle: number;
  /**
   * Graceful close, after `server.close()` stopped accepting: idle connections are closed now,
   * every later response says `Connection: close`, and the promise resolves when the last
   * connection has ended (those still busy after `closeGraceMs` are cut).
   */
  close(): Promise<void>;
}

/**
 * How the HTTP front keeps its connections under sustained load (see docs/architecture.md, "The
 * HTTP front"): one request per connection at a time and many requests per connection (keep-alive),
 * idle connections bounded in time by a hint clients honour and in number by a cap, no close that
 * races a client's reuse, and a close that lets in-flight requests finish. Configures `server` and
 * tracks its sockets.
 */
export function applyConnectionPolicy(server: Server, options: ConnectionPolicyOptions = {}): ConnectionPolicy {
  const hintS = Math.max(3, Math.round((options.keepAliveHintMs ?? 5000) / 1000));
  const hintMs = hintS * 1000;
  const graceMs = options.keepAliveGraceMs ?? 30_000;
  const maxIdle = options.maxIdleConnections ?? 1024;
  const closeGraceMs = options.closeGraceMs ?? 5000;
  // Node's own idle timer (its `Keep-Alive` hint is replaced by ours, below).
  server.keepAliveTimeout = hintMs + graceMs;
  // No limit on requests per connection: a `max=` would only make clients open new ones.
  server.maxRequestsPerSocket = 0;

  /**
   * Requests in progress per open connection. A connection counts as idle only once it has sent
   * a response and has none in progress: a new one whose first request the (busy) event loop has
   * not read yet is not idle, and closing it would only make the client connect again.
   */
  const busy = new Map<Socket, number>();
  /** Responses in progress, so that a close can still make them say `Connection: close`. */
  const responses = new Set<ServerResponse>();
  let idle = 0;
  let closing = false;
  let allClosed: (() => void) | undefined;

  server.on('connection', (socket: Socket) => {
    busy.set(socket, -1);
    socket.once('close', () => {
      if (busy.get(socket) === 0) idle--;
      busy.delete(socket);
      if (busy.size === 0) allClosed?.();
    });
  });

  // First of the request listeners: the headers must be set before any handler writes its head.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const before = busy.get(socket);
    if (before === undefined) return;
    if (before === 0) idle--;
    busy.set(socket, Math.max(before, 0) + 1);
    if (closing || idle >= maxIdle) {
      // Said in this response, so the client does not send another request on the connection.
      res.shouldKeepAlive = false;
    } else {
      // The hint Node writes comes from the response's own copy of the server's timeout: giving it
      // ours costs an assignment, where a `keep-alive` header of our own costs a header
      // validation and a header map per response (Node 20 and 22 alike; should a later Node drop
      // the field, the hint says the real timeout again, and the test of the hint fails).
      (res as unknown as KeepAliveHint)._keepAliveTimeout = hintMs;
    }
    responses.add(res);
    res.once('close', () => {
      responses.delete(res);
      const count = busy.get(socket);
      if (count === undefined || count <= 0) return;
      busy.set(socket, count - 1);
      if (count - 1 > 0) return;
      idle++;
      // Closing: a connection whose last response is written has nothing more to do.
      if (closing && !socket.destroyed) socket.end();
    });
  });

  return {
    get connections() {
      return busy.size;
    },
    get idle() {
      return idle;
    },
    close: () => {
      closing = true;
      for (const res of responses) if (!res.headersSent) res.shouldKeepAlive = false;
      for (const [socket, count] of busy) if (count <= 0) socket.destroy();
      if (busy.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const cut = setTimeout(() => {
          for (const socket of busy.keys()) socket.destroy();
        }, closeGraceMs);
        cut.unref();
        allClosed = () => {
          clearTimeout(cut);
          resolve();
        };
      });
    },
  };
}

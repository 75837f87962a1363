import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../log/logger.js';
import { stderrLogger } from '../log/stderr-logger.js';
import { Session, type SessionOptions } from '../session/session.js';
import { StreamTransport } from '../transport/stream-transport.js';
import type { Upstream } from '../core/upstream.js';

export interface ServeStdioOptions extends SessionOptions {
  maxMessageBytes?: number;
  /** Defaults to our stdin and stdout. */
  input?: Readable;
  output?: Writable;
  log?: Logger;
}

export interface StdioFront {
  readonly session: Session;
  /** Resolves once the session has ended and its upstreams are closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves `upstream` (usually a Chain) to one client over stdin/stdout. The session ends when stdin
 * ends, on SIGINT or SIGTERM, or on `close()`; upstreams are closed (child processes reaped) before
 * `closed` resolves. A second signal during that shutdown exits the process at once. Nothing but
 * protocol messages is ever written to stdout.
 */
export async function serveStdio(upstream: Upstream, options: ServeStdioOptions = {}): Promise<StdioFront> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const log = options.log ?? stderrLogger();
  const transport = new StreamTransport(
    input,
    output,
    options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes },
  );
  const session = new Session(transport, upstream, { ...options, log });
  const closed = new Promise<void>((resolve) => {
    session.onclose = resolve;
  });
  // SIGINT/SIGTERM closes the session in order; one that comes while the session is already
  // ending (stdin closed, or a first signal) exits at once: clients send SIGTERM when we take too
  // long, and child process groups are then killed on the way out.
  const stop = (): void => {
    if (session.closing) process.exit(0);
    void session.close();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  void closed.then(() => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  });
  await session.start();
  return { session, closed, close: () => session.close() };
}

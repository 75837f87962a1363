import { DEFAULT_DRAIN_MS } from './default-drain-ms.js';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../log/logger.js';
import { stderrLogger } from '../log/stderr-logger.js';
import { RequestStateCodec } from '../eras/request-state.js';
import { EraBridge, ERA_BRIDGE_DEFAULTS } from '../eras/era-bridge.js';
import { SERVED_VERSIONS } from '../eras/versions.js';
import { Session, type SessionOptions } from '../session/session.js';
import { StdioEraGate } from '../eras/stdio-era-gate.js';
import { StreamTransport } from '../transport/stream-transport.js';
import type { Upstream } from '../core/upstream.js';

export interface ServeStdioOptions extends SessionOptions {
  maxMessageBytes?: number;
  /** Defaults to our stdin and stdout. */
  input?: Readable;
  output?: Writable;
  log?: Logger;
  /**
   * On SIGINT or SIGTERM, how long calls in flight may take to finish before they are cancelled
   * (see {@link StdioFront.drain}); 0 cancels them at once. Default 10000 ms.
   */
  drainMs?: number;
}

export interface StdioFront {
  readonly session: Session;
  /** Resolves once the session has ended and its upstreams are closed. */
  readonly closed: Promise<void>;
  /** Ends the session at once: what is in flight is aborted upstream and gets no answer. */
  close(): Promise<void>;
  /**
   * Ends the session gracefully (what SIGINT and SIGTERM do): a new request of the client gets
   * -32000 (the server is shutting down), while its answers to the server's requests and its
   * notifications still flow; the calls in flight may finish for `deadlineMs` (default: the
   * `drainMs` option), after which they are cancelled upstream and answered -32000; then the
   * session ends as `close()` ends it. One info line when it starts, one when it is done.
   */
  drain(deadlineMs?: number): Promise<void>;
}

export { DEFAULT_DRAIN_MS };

/**
 * Serves `upstream` (usually a Chain) to one client over stdin/stdout. The session ends when stdin
 * ends, on SIGINT or SIGTERM (after a drain: see {@link StdioFront.drain}), or on `close()`; upstreams are closed (child processes reaped) before
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
  // The client's era is learnt from how it opens: a 2026-07-28 client is served through a bridge.
  const codec = new RequestStateCodec({ ttlMs: ERA_BRIDGE_DEFAULTS.inputTimeoutMs });
  const bridge = (): EraBridge => new EraBridge({ ...ERA_BRIDGE_DEFAULTS, codec, principal: '', supportedVersions: SERVED_VERSIONS, log });
  const session = new Session(new StdioEraGate(transport, bridge, log), upstream, { ...options, log });
  const closed = new Promise<void>((resolve) => {
    session.onclose = resolve;
  });
  let draining: Promise<void> | undefined;
  const drain = (deadlineMs = options.drainMs ?? DEFAULT_DRAIN_MS): Promise<void> => (draining ??= (async () => {
    if (session.closing) return;
    const started = Date.now();
    log.info('draining: no new requests; calls in flight may finish', { inFlight: session.inFlight, deadlineMs });
    const { inFlight, cancelled } = await session.drain(deadlineMs);
    log.info('drained', { finished: inFlight - cancelled, cancelled, ms: Date.now() - started });
  })());
  // SIGINT/SIGTERM drains the session (then it closes in order); one that comes while the session
  // is already ending (stdin closed, or a first signal) exits at once: clients send SIGTERM when we
  // take too long, and child process groups are then killed on the way out.
  const stop = (): void => {
    if (session.closing || draining !== undefined) process.exit(0);
    void drain();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  void closed.then(() => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  });
  await session.start();
  return { session, closed, close: () => session.close(), drain };
}

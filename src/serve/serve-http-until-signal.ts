import { serveHttp, type HttpFront, type ServeHttpOptions } from '../front/http/serve-http.js';
import type { Logger } from '../log/logger.js';
import type { Upstream } from '../core/upstream.js';

/**
 * Serves `upstream` on HTTP until SIGINT or SIGTERM, which drain the front (`HttpFront.drain`: calls
 * in flight may finish for `drainMs`, new sessions and requests get 503); a second signal exits at
 * once. Resolves once the front has closed its sessions. Where it listens is logged at info, or at
 * warn when `quietLevel` (the log level hides info lines: only silent hides the address).
 */
export async function serveHttpUntilSignal(upstream: Upstream, options: ServeHttpOptions, log: Logger, quietLevel: boolean, drainMs: number): Promise<void> {
  // Signals are handled before anyone can learn our address: a SIGTERM right after "listening"
  // must still close the sessions (and their server processes) in order.
  let front: HttpFront | undefined = undefined;
  let stopping = false;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const stop = (): void => {
    if (stopping) process.exit(0);
    stopping = true;
    void (front ? front.drain(drainMs) : Promise.resolve()).then(stopped);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  front = await serveHttp(upstream, options);
  if (stopping) {
    await front.close();
  } else {
    // Where we listen is shown even at --log-level warn or error (only silent hides it).
    const sse = options.sse ? new URL(options.sse === true ? '/sse' : (options.sse.path ?? '/sse'), front.url).href : undefined;
    const where = { url: front.url, ...(sse === undefined ? {} : { sse }) };
    if (quietLevel) log.warn('listening', where);
    else log.info('listening', where);
  }
  await done;
}

import type { IncomingMessage } from 'node:http';

/** Reads and discards a response body we do not need, so that its socket can be reused; never throws. */
export function drainResponse(response: IncomingMessage): void {
  response.on('error', () => undefined);
  response.resume();
}

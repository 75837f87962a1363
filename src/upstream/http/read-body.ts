import type { IncomingMessage } from 'node:http';

/**
 * The whole body of a response as text, or `undefined` when it is larger than `limit` bytes (the
 * rest is then discarded without being kept).
 */
export async function readBody(response: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size <= limit ? Buffer.concat(chunks, size).toString('utf8') : undefined;
}

/** Reads and discards a body, so that its socket can be reused; never throws. */
export function drain(response: IncomingMessage): void {
  response.on('error', () => undefined);
  response.resume();
}

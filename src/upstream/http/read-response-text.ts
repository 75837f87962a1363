import type { IncomingMessage } from 'node:http';

/**
 * The whole body of an upstream's response as text, or `undefined` when it is larger than `limit`
 * bytes (the rest is then read and discarded without being kept, so the socket can be reused).
 * Rejects when the connection breaks first. (The HTTP front reads *requests* with its own
 * `readBody`, which refuses an oversized body with 413 instead.)
 */
export async function readResponseText(response: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size <= limit ? Buffer.concat(chunks, size).toString('utf8') : undefined;
}

import type { IncomingMessage } from 'node:http';

/**
 * The whole body of an upstream's response as text, or `undefined` when it is larger than `limit`
 * bytes (the rest is then read and discarded without being kept, so the socket can be reused).
 * Rejects when the connection breaks first. (The HTTP front reads *requests* with its own
 * `readBody`, which refuses an oversized body with 413 instead.)
 */
export async function readResponseText(response: IncomingMessage, limit: number): Promise<string | undefined> {
  return (await readResponseBytes(response, limit))?.toString('utf8');
}

/**
 * The whole body of an upstream's response as bytes (not decoded: a JSON body is read from them),
 * or `undefined` when it is larger than `limit` bytes, as {@link readResponseText}. A body that
 * came in one chunk is that chunk, not a copy.
 */
export async function readResponseBytes(response: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  if (size > limit) return undefined;
  return chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, size);
}

import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../errors/http-error.js';

/**
 * Reads a request body of at most `maxBytes`. A larger one (announced or actual) is refused with
 * 413 without being buffered; the rest of it is discarded.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = (): HttpError => new HttpError(413, `Payload Too Large: the body exceeds ${maxBytes} bytes`, {
    headers: { connection: 'close' },
  });
  const announced = Number(req.headers['content-length']);
  if (Number.isFinite(announced) && announced > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (size <= maxBytes) resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size));
    });
    req.once('error', reject);
  });
}

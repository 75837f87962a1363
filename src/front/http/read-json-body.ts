import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ErrorCode } from '../../errors/error-code.js';
import { HttpError } from '../../errors/http-error.js';
import { lazyMessage } from '../../message/lazy-message.js';
import { RAW_THRESHOLD_BYTES } from '../../message/raw-json.js';

/**
 * Reads a client's request body as one JSON value (not yet checked to be JSON-RPC). Refusals are
 * `HttpError`s: 413 for a body over `maxBytes` (announced or actual: it is not buffered, the rest
 * is discarded), 400 -32700 for a body that is not UTF-8 or not JSON. A large body that is one
 * JSON object is read lazily (`lazyMessage`: checked without building anything, its `params`
 * parsed one member at a time when read, forwarded as its own bytes when unchanged).
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return parseJson(await readBytes(req, maxBytes));
}

function readBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
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

function parseJson(body: Buffer): unknown {
  if (!isUtf8(body)) throw new HttpError(400, 'Parse error: the body is not valid UTF-8', { code: ErrorCode.ParseError });
  // Anything but one JSON object (a batch, a lone value, malformed JSON, a BOM, which JSON.parse
  // refuses as well) is parsed below, and refused there as it always was.
  if (body.length >= RAW_THRESHOLD_BYTES) {
    const lazy = lazyMessage(body);
    if (lazy !== undefined) return lazy;
  }
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'Parse error: the body is not valid JSON', { code: ErrorCode.ParseError });
  }
}

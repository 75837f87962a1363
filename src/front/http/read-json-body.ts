import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ErrorCode } from '../../errors/error-code.js';
import { HttpError } from '../../errors/http-error.js';
import { isJsonObject } from '../../message/parse-message.js';
import { RAW_THRESHOLD_BYTES, rememberRawMember } from '../../message/raw-json.js';

/**
 * Reads a client's request body as one JSON value (not yet checked to be JSON-RPC). Refusals are
 * `HttpError`s: 413 for a body over `maxBytes` (announced or actual: it is not buffered, the rest
 * is discarded), 400 -32700 for a body that is not UTF-8 or not JSON. A large body's `params`
 * text is remembered, so that it is forwarded without being serialized again.
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
  const text = body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'Parse error: the body is not valid JSON', { code: ErrorCode.ParseError });
  }
  if (text.length >= RAW_THRESHOLD_BYTES && isJsonObject(value)) rememberRawMember(value, text);
  return value;
}

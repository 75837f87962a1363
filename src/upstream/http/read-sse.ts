import type { IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseHandlers {
  event(event: EventSourceMessage): void;
  /** The server's `retry:` hint, in milliseconds. */
  retry?(ms: number): void;
}

/**
 * Reads a `text/event-stream` body event by event until it ends. Resolves when the server ends it
 * normally; rejects when the connection breaks (or is aborted) first. An event with more than
 * `limit` bytes of data ends the stream with an error. A leading byte order mark is dropped.
 */
export async function readSse(response: IncomingMessage, handlers: SseHandlers, limit: number): Promise<void> {
  let pending = 0;
  const parser = createParser({
    onEvent: (event) => {
      pending = 0;
      handlers.event(event);
    },
    onRetry: (ms) => handlers.retry?.(ms),
  });
  response.setEncoding('utf8');
  let first = true;
  let afterCr = false;
  for await (let chunk of response as AsyncIterable<string>) {
    // The stream's one leading BOM is dropped (the SSE decoding rules; the parser only knows it
    // as the three bytes, never as the character that decoding made of them).
    if (first) {
      first = false;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    pending += chunk.length;
    if (pending > limit * 2) {
      response.destroy();
      throw new Error(`an event larger than ${limit} bytes`);
    }
    // CRLF and a lone CR end a line as LF does; the parser is given LF only, because it holds a
    // chunk's final CR back (an LF may follow) and then leaves the line unread until a later chunk
    // brings another line end: an event ended by CRs could wait for the next event, or be lost.
    if (afterCr && chunk.charCodeAt(0) === 0x0a) chunk = chunk.slice(1);
    afterCr = chunk.charCodeAt(chunk.length - 1) === 0x0d;
    if (chunk.includes('\r')) chunk = chunk.replace(/\r\n?/g, '\n');
    parser.feed(chunk);
  }
}

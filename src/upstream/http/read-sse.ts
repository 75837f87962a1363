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
 * `limit` bytes of data ends the stream with an error.
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
  for await (const chunk of response as AsyncIterable<string>) {
    pending += chunk.length;
    if (pending > limit * 2) {
      response.destroy();
      throw new Error(`an event larger than ${limit} bytes`);
    }
    parser.feed(chunk);
  }
}

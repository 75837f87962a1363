import type { IncomingMessage } from 'node:http';
import { readSse } from './read-sse.js';

/** Where a stream of SSE events is: the last event id (to resume from) and the retry hint. */
export interface SseCursor {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  /** Recent event ids, so that an event replayed twice is delivered once. */
  readonly seen: Set<string>;
}

/** How many recent event ids a cursor remembers. */
const SEEN_EVENTS = 256;

export function sseCursor(): SseCursor {
  return { lastEventId: undefined, retryMs: undefined, seen: new Set() };
}

/**
 * Reads one response's SSE events, moving `cursor` along (last event id, retry hint) and skipping
 * an event whose id it has seen; the data of each message event goes to `deliver`. Resolves when
 * the server ends the stream, rejects when it breaks (see `readSse`).
 */
export function readWithCursor(response: IncomingMessage, cursor: SseCursor, deliver: (data: string) => void, limit: number): Promise<void> {
  return readSse(response, {
    event: (event) => {
      if (event.id === '') {
        // An empty id resets the last event id: there is nothing to resume from (and no
        // Last-Event-ID to send), and it names no event, so it marks none as seen.
        cursor.lastEventId = undefined;
      } else if (event.id !== undefined) {
        if (cursor.seen.has(event.id)) return;
        cursor.seen.add(event.id);
        if (cursor.seen.size > SEEN_EVENTS) cursor.seen.delete(cursor.seen.values().next().value ?? '');
        cursor.lastEventId = event.id;
      }
      if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
      deliver(event.data);
    },
    retry: (ms) => {
      cursor.retryMs = ms;
    },
  }, limit);
}

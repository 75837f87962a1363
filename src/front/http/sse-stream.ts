import type { ServerResponse } from 'node:http';
import type { EventStore, StoredEvent } from './event-store.js';

/** What the SSE streams of one session share. */
export interface SseSession {
  readonly id: string;
  /** Keeps sent events for `Last-Event-ID` resumption; without one, streams are not resumable. */
  readonly store: EventStore | undefined;
  /** A write found the connection's buffer full (the client is not reading): flow control. */
  congested(res: ServerResponse): void;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * One logical SSE stream of a session (the answer stream of a POST, or the standalone GET
 * stream). Its connection may drop and be replaced by a resuming GET; event ids are
 * `<stream>-<n>`, unique within the session, so that `Last-Event-ID` names the stream to resume.
 */
export class SseStream {
  readonly name: string;
  readonly #session: SseSession;
  #seq = 0;
  #res: ServerResponse | undefined;

  constructor(name: string, session: SseSession) {
    this.name = name;
    this.#session = session;
  }

  get connected(): boolean {
    return this.#res !== undefined;
  }

  /** Whether a client that loses this stream can get back what it missed. */
  get resumable(): boolean {
    return this.#session.store !== undefined;
  }

  /**
   * Sends the SSE headers on `res` and makes it this stream's connection. A priming event (an id
   * and empty data) lets a 2025-11-25 client resume even before the first message.
   */
  open(res: ServerResponse, headers: Readonly<Record<string, string>>, priming: boolean): void {
    res.writeHead(200, { ...SSE_HEADERS, ...headers });
    res.flushHeaders();
    this.#res = res;
    if (priming && this.resumable) this.write('');
  }

  /** Takes over a resuming connection (headers already sent), replacing a stale one. */
  attach(res: ServerResponse): void {
    if (this.#res && this.#res !== res) this.#res.end();
    this.#res = res;
  }

  /** The connection went away (the stream itself lives on while it can be resumed). */
  detach(res: ServerResponse): void {
    if (this.#res === res) this.#res = undefined;
  }

  /** Sends `data` (a serialized message) as the next event, and keeps it for replay. */
  write(data: string): void {
    const id = `${this.name}-${++this.#seq}`;
    this.#session.store?.append(this.#session.id, this.name, { id, data });
    const res = this.#res;
    if (res && !res.write(formatEvent(id, data, this.resumable))) this.#session.congested(res);
  }

  /**
   * Writes an SSE comment (ignored by clients): keeps idle proxies from cutting a quiet stream,
   * and finds connections that are gone.
   */
  keepAlive(): void {
    this.#res?.write(KEEP_ALIVE);
  }

  /** Ends the connection (the stream is over). */
  end(): void {
    const res = this.#res;
    this.#res = undefined;
    res?.end();
  }
}

/**
 * The one SSE encoder of the HTTP front (both the Streamable HTTP and the legacy HTTP+SSE
 * streams go through it). `data` may span lines: a JSON text forwarded as it came (a remembered
 * raw member, see `message/raw-json.ts`) keeps the line breaks its sender put between tokens, and
 * a raw line break would end the `data:` field there. Each line becomes a `data:` line of its own,
 * which the client joins again with `\n` (insignificant whitespace in JSON, where a line break can
 * only stand between tokens). CR, LF and CRLF all end a line in SSE.
 */
export function encodeEvent(event: string | undefined, data: string, id?: string): string {
  const head = (id === undefined ? '' : `id: ${id}\n`) + (event === undefined ? '' : `event: ${event}\n`);
  // Two plain scans: far cheaper than a regular expression over a large text (most have no break).
  const body = data.includes('\n') || data.includes('\r') ? data.split(LINE_BREAKS).join('\ndata: ') : data;
  return `${head}data: ${body}\n\n`;
}

const LINE_BREAKS = /\r\n|\r|\n/;

/** An SSE comment (clients ignore it): keeps idle proxies from cutting a quiet stream. */
export const KEEP_ALIVE = ': keep-alive\n\n';

/** A `message` event; ids only when the stream can be resumed, `data` '' for a priming event. */
export function formatEvent(id: string, data: string, withId: boolean): string {
  if (data === '') return encodeEvent(undefined, '', id);
  return encodeEvent('message', data, withId ? id : undefined);
}

/** Writes stored events to a resuming connection. */
export function replay(res: ServerResponse, events: readonly StoredEvent[]): void {
  for (const event of events) res.write(formatEvent(event.id, event.data, true));
}

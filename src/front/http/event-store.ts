/** One SSE event as it was sent: its id and its `data` (a serialized JSON-RPC message, or '' for a priming event). */
export interface StoredEvent {
  readonly id: string;
  readonly data: string;
}

/**
 * Where the Streamable HTTP front keeps what it sent on SSE streams, so that a client can resume a
 * dropped stream with `Last-Event-ID`. Keys are per session and per stream: a replay never crosses
 * either. `append` is fire-and-forget (a shared store queues its own writes); `after` may be slow.
 */
export interface EventStore {
  append(session: string, stream: string, event: StoredEvent): void;
  /**
   * The events sent after `eventId` on the same stream of the same session, and that stream's
   * name; `undefined` when the id is unknown to this session (never sent, or evicted).
   */
  after(session: string, eventId: string): Promise<{ stream: string; events: StoredEvent[] } | undefined>;
  /** Drops everything of an ended session. */
  forget(session: string): void;
}

export interface MemoryEventStoreOptions {
  /** Most events kept per session; the oldest go first. Default 1000. */
  maxEventsPerSession?: number;
  /** Most bytes of event data kept per session. Default 8 MiB. */
  maxBytesPerSession?: number;
}

interface Entry extends StoredEvent {
  readonly stream: string;
}

interface SessionLog {
  entries: Entry[];
  bytes: number;
}

/** A bounded in-memory {@link EventStore} (the default; one process only). */
export class MemoryEventStore implements EventStore {
  readonly #sessions = new Map<string, SessionLog>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxEvents = options.maxEventsPerSession ?? 1000;
    this.#maxBytes = options.maxBytesPerSession ?? 8 * 1024 * 1024;
  }

  append(session: string, stream: string, event: StoredEvent): void {
    let log = this.#sessions.get(session);
    if (!log) this.#sessions.set(session, (log = { entries: [], bytes: 0 }));
    log.entries.push({ stream, id: event.id, data: event.data });
    log.bytes += event.data.length;
    let drop = 0;
    while (log.entries.length - drop > this.#maxEvents || (log.bytes > this.#maxBytes && log.entries.length - drop > 1)) {
      log.bytes -= log.entries[drop]?.data.length ?? 0;
      drop += 1;
    }
    if (drop > 0) log.entries.splice(0, drop);
  }

  after(session: string, eventId: string): Promise<{ stream: string; events: StoredEvent[] } | undefined> {
    const entries = this.#sessions.get(session)?.entries ?? [];
    const at = entries.findIndex((entry) => entry.id === eventId);
    const found = entries[at];
    if (!found) return Promise.resolve(undefined);
    const events = entries.slice(at + 1).filter((entry) => entry.stream === found.stream).map(({ id, data }) => ({ id, data }));
    return Promise.resolve({ stream: found.stream, events });
  }

  forget(session: string): void {
    this.#sessions.delete(session);
  }
}

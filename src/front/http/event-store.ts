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
   * name; `undefined` when the id is unknown to this session. A store that evicts may still know
   * an evicted id's stream: it then returns what it kept of that stream after it, and in `lost`
   * how many events sent after the id it no longer has (the front tells the client so).
   */
  after(session: string, eventId: string): Promise<{ stream: string; events: StoredEvent[]; lost?: number } | undefined>;
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
  /**
   * Per stream, the sequence number of its newest evicted event (ids are `<stream>-<n>`, see
   * `SseStream`), so that a resume from an evicted id knows how much it missed. Bounded: the
   * oldest streams' records go first.
   */
  evicted: Map<string, number>;
}

/** Most streams per session whose evictions are remembered. */
const MAX_EVICTION_RECORDS = 1000;

/** The sequence number of an event id `<stream>-<n>` of `stream`, or undefined. */
function sequenceOf(stream: string, id: string): number | undefined {
  if (!id.startsWith(`${stream}-`)) return undefined;
  const digits = id.slice(stream.length + 1);
  return /^[0-9]{1,15}$/.test(digits) ? Number(digits) : undefined;
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
    if (!log) this.#sessions.set(session, (log = { entries: [], bytes: 0, evicted: new Map() }));
    log.entries.push({ stream, id: event.id, data: event.data });
    log.bytes += event.data.length;
    let drop = 0;
    while (log.entries.length - drop > this.#maxEvents || (log.bytes > this.#maxBytes && log.entries.length - drop > 1)) {
      const gone = log.entries[drop];
      if (gone) {
        log.bytes -= gone.data.length;
        const seq = sequenceOf(gone.stream, gone.id);
        if (seq !== undefined) {
          log.evicted.delete(gone.stream);
          log.evicted.set(gone.stream, seq);
          if (log.evicted.size > MAX_EVICTION_RECORDS) log.evicted.delete(log.evicted.keys().next().value ?? '');
        }
      }
      drop += 1;
    }
    if (drop > 0) log.entries.splice(0, drop);
  }

  after(session: string, eventId: string): Promise<{ stream: string; events: StoredEvent[]; lost?: number } | undefined> {
    const log = this.#sessions.get(session);
    const entries = log?.entries ?? [];
    const at = entries.findIndex((entry) => entry.id === eventId);
    const found = entries[at];
    if (!found) return Promise.resolve(log && this.#afterEvicted(log, eventId));
    const events = entries.slice(at + 1).filter((entry) => entry.stream === found.stream).map(({ id, data }) => ({ id, data }));
    return Promise.resolve({ stream: found.stream, events });
  }

  /**
   * A resume from an id no longer kept: if it is an evicted event of a stream (not one never
   * sent), what is kept of that stream (all newer than anything evicted), and how many were lost.
   */
  #afterEvicted(log: SessionLog, eventId: string): { stream: string; events: StoredEvent[]; lost: number } | undefined {
    const cut = eventId.lastIndexOf('-');
    if (cut <= 0) return undefined;
    const stream = eventId.slice(0, cut);
    const seq = sequenceOf(stream, eventId);
    const through = log.evicted.get(stream);
    if (seq === undefined || through === undefined || seq > through) return undefined;
    const events = log.entries.filter((entry) => entry.stream === stream).map(({ id, data }) => ({ id, data }));
    return { stream, events, lost: through - seq };
  }

  forget(session: string): void {
    this.#sessions.delete(session);
  }
}

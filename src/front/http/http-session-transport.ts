import type { ServerResponse } from 'node:http';
import { ErrorCode } from '../../errors/error-code.js';
import type { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import { errorResponse, type JsonRpcId, type JsonRpcMessage, type JsonRpcResponse } from '../../message/jsonrpc.js';
import { serializeMessage } from '../../message/raw-json.js';
import type { Transport } from '../../transport/transport.js';
import { Congestion } from './congestion.js';
import type { EventStore, StoredEvent } from './event-store.js';
import { PostExchange, type ExchangeOptions } from './post-exchange.js';
import { encodeEvent, replay, SSE_HEADERS, SseStream, type SseSession } from './sse-stream.js';

export interface HttpSessionTransportOptions {
  /** The `Mcp-Session-Id`. */
  id: string;
  store: EventStore | undefined;
  /** Whether SSE streams start with a priming event (asked when a stream starts). */
  priming: () => boolean;
  log: Logger;
  /** Most unrelated messages kept while the client has no stream open for them. Default 1000. */
  maxBacklog?: number;
  /** Most bytes of them (serialized) kept. Default 8 MiB; the oldest go first. */
  maxBacklogBytes?: number;
}

/** The standalone GET stream's name; POST streams are numbered from 1. */
const STANDALONE = '0';

/** Most POST streams whose answered ids are remembered. */
const MAX_ANSWER_RECORDS = 1000;

/** The id of a stored event that is an answer (a response), or undefined. */
function answerIdOf(data: string): JsonRpcId | undefined {
  if (data === '') return undefined;
  try {
    const message = JSON.parse(data) as { id?: unknown; method?: unknown };
    return message.method === undefined && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : undefined;
  } catch {
    return undefined;
  }
}

/** How many cancellations of requests not (yet) seen a session remembers. */
const MAX_EARLY_CANCELLATIONS = 1000;

/**
 * The transport of one Streamable HTTP session. Messages come from POST bodies; what the session
 * sends goes where it belongs: an answer to the POST that asked, a message related to a request
 * onto that request's stream, anything else onto the standalone GET stream — or, while the client
 * has none open, onto its most recent open POST stream, or into a bounded backlog until it opens
 * one. A POST whose connection drops before its answer is cancelled upstream unless its stream can
 * be resumed (`Last-Event-ID`), in which case the answer waits in the event store.
 */
export class HttpSessionTransport implements Transport {
  onmessage?: (value: unknown) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  oncongestion?: (congested: boolean) => void;

  readonly #options: HttpSessionTransportOptions;
  readonly #sse: SseSession;
  /** The exchange waiting for the answer to each request id. */
  readonly #byId = new Map<JsonRpcId, PostExchange>();
  /** Exchanges not yet done, oldest first. */
  readonly #live = new Set<PostExchange>();
  readonly #standalone: SseStream;
  /** Unrelated messages waiting for a stream, serialized (their size is what memory holds). */
  #backlog: string[] = [];
  #backlogBytes = 0;
  /** Messages dropped from a full backlog since the client last had a stream: it is told. */
  #backlogLost = 0;
  #streams = 0;
  /**
   * The request ids each resumable POST stream answered, by stream name: a resume that finds
   * an answer evicted from the event store gets an error for it instead (exactly one answer).
   * Bounded: the oldest streams go first.
   */
  readonly #answeredOn = new Map<string, JsonRpcId[]>();
  /**
   * Requests the client cancelled before they arrived here (its POSTs travel on separate
   * connections, so a cancellation can overtake its request): such a request is not forwarded,
   * and gets no answer. The most recent {@link MAX_EARLY_CANCELLATIONS}. A cancellation of a
   * request already seen (answered, or its client gone) is a late one, not remembered: a client
   * that (against the spec) reuses an old id is still served.
   */
  readonly #cancelledEarly = new Set<JsonRpcId>();
  /** The ids of the most recent {@link MAX_EARLY_CANCELLATIONS} requests this session took. */
  readonly #seen = new Set<JsonRpcId>();
  #closed = false;
  /** Whether any answer has gone to an exchange: until then, the client does not know the session's id. */
  #answeredAny = false;
  /** Connections whose buffers are full: while any is, the session's upstream is held back. */
  readonly #congestion = new Congestion((congested) => this.oncongestion?.(congested));

  constructor(options: HttpSessionTransportOptions) {
    this.#options = options;
    this.#sse = { id: options.id, store: options.store, congested: (res) => this.#congestion.full(res) };
    this.#standalone = new SseStream(STANDALONE, this.#sse);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Requests of this session waiting for their answer. */
  get inFlight(): number {
    return this.#byId.size;
  }

  /** Whether the client holds a connection open (an idle session with one does not expire). */
  get connected(): boolean {
    return this.#live.size > 0 || this.#standalone.connected;
  }

  /** Sends a keep-alive comment on every open SSE stream of the session. */
  keepAlive(): void {
    this.#standalone.keepAlive();
    for (const exchange of this.#live) exchange.stream?.keepAlive();
  }

  /** Whether `id` is a request of this session still waiting for its answer. */
  has(id: JsonRpcId): boolean {
    return this.#byId.has(id);
  }

  /** A POST without requests: its messages are handed over; the caller answers 202. */
  accept(messages: readonly unknown[]): void {
    for (const message of messages) this.#handOver(message);
  }

  /**
   * A POST with requests (ids in `waiting`): `res` answers them. `messages` are handed over after
   * the exchange is registered, so that even an immediate answer finds it.
   */
  exchange(
    res: ServerResponse,
    messages: readonly unknown[],
    options: Pick<ExchangeOptions, 'waiting' | 'batch' | 'headers' | 'answers' | 'onAnswer' | 'scopeChallenge'>,
  ): void {
    const exchange = new PostExchange(res, {
      ...options,
      nextStreamName: () => String(++this.#streams),
      priming: this.#options.priming(),
      session: this.#sse,
    });
    for (const id of options.waiting) {
      this.#byId.set(id, exchange);
      remember(this.#seen, id);
    }
    this.#live.add(exchange);
    res.on('close', () => this.#dropped(exchange, res));
    for (const message of messages) {
      const overtaken = requestId(message);
      if (overtaken !== undefined && this.#cancelledEarly.delete(overtaken)) this.#abandon(overtaken);
      else this.#handOver(message);
    }
  }

  /**
   * Gives a client's message to the session. A cancellation of a request waiting here also ends
   * the wait: no answer will come, so the request's exchange stops waiting for it (and ends, its
   * stream closed, if it was the last), rather than holding its stream and a place among the
   * session's requests in flight until the session ends.
   */
  #handOver(message: unknown): void {
    const id = cancelledRequestId(message);
    if (id !== undefined && !this.#abandon(id) && !this.#seen.has(id)) remember(this.#cancelledEarly, id);
    this.onmessage?.(message);
  }

  /** Stops waiting for the answer to `id` (its client cancelled it); false if nothing waited for it. */
  #abandon(id: JsonRpcId): boolean {
    const exchange = this.#byId.get(id);
    if (!exchange) return false;
    this.#byId.delete(id);
    if (exchange.abandon(id)) this.#live.delete(exchange);
    return true;
  }

  /** A GET without `Last-Event-ID`: the standalone stream (a new one replaces an old one). */
  listen(res: ServerResponse, headers: Record<string, string>): void {
    if (this.#standalone.connected) this.#standalone.end();
    this.#standalone.open(res, headers, this.#options.priming());
    res.on('close', () => this.#standalone.detach(res));
    this.#flushBacklog();
  }

  /**
   * A GET with `Last-Event-ID`: replays what its stream sent after that event and, if the stream
   * is still going, carries the rest of it. Returns false when the id is unknown (then nothing is
   * written).
   */
  async reconnect(res: ServerResponse, lastEventId: string, headers: Record<string, string>): Promise<boolean> {
    const found = await this.#options.store?.after(this.#options.id, lastEventId);
    if (!found) return false;
    res.writeHead(200, { ...SSE_HEADERS, ...headers });
    res.flushHeaders();
    const lost = found.lost ?? 0;
    if (lost > 0) this.#tellLost(res, lost);
    replay(res, found.events);
    if (lost > 0) this.#answerLost(res, found.stream, found.events);
    const stream = found.stream === STANDALONE
      ? this.#standalone
      : [...this.#live].find((exchange) => exchange.stream?.name === found.stream)?.stream;
    if (!stream || this.#closed) {
      res.end();
      return true;
    }
    stream.attach(res);
    res.on('close', () => stream.detach(res));
    if (stream === this.#standalone) this.#flushBacklog();
    return true;
  }

  /**
   * A stream resumed from an event the store no longer has: before the replay of what it kept,
   * a `notifications/message` warning says how many events were lost. It carries no event id
   * (it is no event of the stream), so a client that drops again resumes from the same place
   * and is told again.
   */
  #tellLost(res: ServerResponse, lost: number): void {
    this.#options.log.warn('a stream was resumed after events it missed were evicted from the event store', {
      session: this.#options.id.slice(0, 8),
      lost,
    });
    res.write(encodeEvent('message', JSON.stringify(lostWarning(lost, 'evicted from the event store before the client resumed'))));
  }

  /** Answers evicted from a resumed POST stream: an error for each, so that none waits forever. */
  #answerLost(res: ServerResponse, stream: string, kept: readonly StoredEvent[]): void {
    const answered = this.#answeredOn.get(stream);
    if (!answered) return;
    const keptIds = new Set(kept.map((event) => answerIdOf(event.data)));
    for (const id of answered) {
      if (keptIds.has(id)) continue;
      const lost = errorResponse(id, { code: ErrorCode.ConnectionClosed, message: 'The answer was lost: evicted from the event store before the client resumed' });
      res.write(encodeEvent('message', JSON.stringify(lost)));
    }
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], relatedTo?: JsonRpcId): void {
    if (this.#closed) return;
    if (Array.isArray(message)) {
      for (const member of message) this.send(member, relatedTo);
      return;
    }
    if (!('method' in message)) {
      this.#answer(message);
      return;
    }
    const related = relatedTo === undefined ? undefined : this.#byId.get(relatedTo);
    if (related?.connected) related.push(message);
    else this.#unrelated(message);
  }

  #answer(response: JsonRpcResponse): void {
    const exchange = response.id === null ? undefined : this.#byId.get(response.id);
    if (!exchange || response.id === null) {
      this.#options.log.debug('dropped an answer nobody waits for', { id: response.id });
      return;
    }
    this.#byId.delete(response.id);
    this.#answeredAny = true;
    const stream = exchange.stream;
    if (stream?.resumable) {
      const ids = this.#answeredOn.get(stream.name);
      if (ids) ids.push(response.id);
      else this.#answeredOn.set(stream.name, [response.id]);
      if (this.#answeredOn.size > MAX_ANSWER_RECORDS) this.#answeredOn.delete(this.#answeredOn.keys().next().value ?? '');
    }
    if (exchange.answer(response)) this.#live.delete(exchange);
  }

  /** A message that belongs to no request in flight here (or whose request's stream is gone). */
  #unrelated(message: JsonRpcMessage): void {
    if (this.#standalone.connected) {
      this.#standalone.write(serializeMessage(message));
      return;
    }
    const open = [...this.#live].reverse().find((exchange) => exchange.connected);
    if (open) {
      open.push(message);
      return;
    }
    const data = serializeMessage(message);
    this.#backlog.push(data);
    this.#backlogBytes += data.length;
    const max = this.#options.maxBacklog ?? 1000;
    const maxBytes = this.#options.maxBacklogBytes ?? 8 * 1024 * 1024;
    let drop = 0;
    while (this.#backlog.length - drop > max || (this.#backlogBytes > maxBytes && this.#backlog.length - drop > 1)) {
      this.#backlogBytes -= this.#backlog[drop]?.length ?? 0;
      drop += 1;
    }
    if (drop > 0) {
      this.#backlog.splice(0, drop);
      if (this.#backlogLost === 0) this.#options.log.warn('dropped the oldest messages waiting for the client to open a stream (backlog full)');
      this.#backlogLost += drop;
    }
  }

  #flushBacklog(): void {
    const backlog = this.#backlog;
    const lost = this.#backlogLost;
    this.#backlog = [];
    this.#backlogBytes = 0;
    this.#backlogLost = 0;
    if (lost > 0) this.#standalone.write(JSON.stringify(lostWarning(lost, 'dropped while the client had no stream open (backlog full)')));
    for (const data of backlog) this.#standalone.write(data);
  }

  /** A POST's connection closed (after its answer, or before). */
  #dropped(exchange: PostExchange, res: ServerResponse): void {
    if (exchange.done) return;
    const stream = exchange.stream;
    if (stream?.resumable) {
      stream.detach(res);
      return;
    }
    // The answer can never reach the client: cancel what it asked.
    this.#live.delete(exchange);
    for (const id of exchange.waiting) {
      this.#byId.delete(id);
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: 'The HTTP client disconnected before the answer' },
      });
    }
    // Nothing was ever answered here, so the client never learned the session's id (it comes with
    // the answer to initialize): nobody can use the session, which would otherwise hold a place in
    // the session table until its TTL. It ends now.
    if (!this.#answeredAny) {
      this.#options.log.debug('the client went away before the answer to initialize: the session ends', { session: this.#options.id.slice(0, 8) });
      void this.close();
    }
  }

  /** Ends every stream; requests still waiting are answered with an error first. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const exchange of this.#live) {
      for (const id of [...exchange.waiting]) {
        exchange.answer(errorResponse(id, { code: ErrorCode.ConnectionClosed, message: 'Session closed' }));
      }
    }
    this.#live.clear();
    this.#byId.clear();
    this.#standalone.end();
    this.#backlog = [];
    this.#backlogBytes = 0;
    this.#answeredOn.clear();
    this.#options.store?.forget(this.#options.id);
    this.onclose?.();
    return Promise.resolve();
  }
}

/** Adds `id` to `ids`, the oldest going once there are more than {@link MAX_EARLY_CANCELLATIONS}. */
function remember(ids: Set<JsonRpcId>, id: JsonRpcId): void {
  ids.delete(id);
  ids.add(id);
  if (ids.size > MAX_EARLY_CANCELLATIONS) ids.delete(ids.values().next().value as JsonRpcId);
}

/** The id of `message` if it is a request. */
function requestId(message: unknown): JsonRpcId | undefined {
  if (typeof message !== 'object' || message === null || typeof (message as { method?: unknown }).method !== 'string') return undefined;
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The request a `notifications/cancelled` names, if `message` is one. */
function cancelledRequestId(message: unknown): JsonRpcId | undefined {
  if (typeof message !== 'object' || message === null || (message as { method?: unknown }).method !== 'notifications/cancelled') return undefined;
  const params = (message as { params?: unknown }).params;
  const id = typeof params === 'object' && params !== null ? (params as { requestId?: unknown }).requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * What a client is told when messages meant for it were lost (evicted before it resumed, or
 * dropped from a full backlog): a `notifications/message` warning from the logger `mcp-chain`,
 * with the count in `data.lost`.
 */
function lostWarning(lost: number, why: string): JsonRpcMessage {
  return {
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'warning', logger: 'mcp-chain', data: { message: `${lost} message(s) were lost: ${why}`, lost } },
  };
}

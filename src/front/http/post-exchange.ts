import type { ServerResponse } from 'node:http';
import type { JsonRpcId, JsonRpcMessage, JsonRpcResponse } from '../../message/jsonrpc.js';
import { encodeMessage, serializeMessage } from '../../message/raw-json.js';
import { INSUFFICIENT_SCOPE } from '../../middleware/require-scopes/insufficient-scope.js';
import { SseStream, type SseSession } from './sse-stream.js';

export interface ExchangeOptions {
  /** The requests of the POST, by id: the exchange ends when each has its answer. */
  waiting: readonly JsonRpcId[];
  /** The body was a batch: the JSON answer is an array. */
  batch: boolean;
  /** Extra response headers (`mcp-session-id` on the answer to initialize). */
  headers: Readonly<Record<string, string>>;
  /** Answers known before anything was forwarded (invalid members of a batch). */
  answers?: JsonRpcResponse[];
  /** Sees each answer as it goes out. */
  onAnswer?: (response: JsonRpcResponse) => void;
  /** Names the SSE stream if the exchange needs one. */
  nextStreamName: () => string;
  /**
   * The `WWW-Authenticate` value of a step-up challenge for the scopes a call needs (a front with
   * OAuth, on a session with scopes): a lone answer that is `requireScopes`' -32004 then goes out
   * as 403 with it, so that a client re-authorizes with more scopes. Absent, or `undefined` for
   * this answer (a session without scopes cannot step up): it stays a 200.
   */
  scopeChallenge?: (needed: readonly string[]) => string | undefined;
  /** The HTTP status of a lone JSON answer (default 200): a 2026-07-28 -32601 goes out as 404. */
  statusOf?: (answer: JsonRpcResponse) => number;
  /** Whether an SSE stream starts with a priming event (clients at 2025-11-25 and later). */
  priming: boolean;
  session: SseSession;
}

/**
 * The answer to one POST that carried requests. It stays a plain `application/json` answer while
 * only responses come; the first related notification or request turns it into an SSE stream
 * (headers are not sent until one of the two is known). It ends once every request is answered.
 */
export class PostExchange {
  readonly #res: ServerResponse;
  readonly #options: ExchangeOptions;
  readonly #waiting: Set<JsonRpcId>;
  readonly #answers: JsonRpcResponse[];
  #stream: SseStream | undefined;
  #done = false;

  constructor(res: ServerResponse, options: ExchangeOptions) {
    this.#res = res;
    this.#options = options;
    this.#waiting = new Set(options.waiting);
    this.#answers = options.answers ?? [];
  }

  /** The SSE stream, once the exchange has become one. */
  get stream(): SseStream | undefined {
    return this.#stream;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Whether a message sent now reaches the client at once. */
  get connected(): boolean {
    return !this.#done && (this.#stream ? this.#stream.connected : !this.#res.destroyed);
  }

  /** The ids still waiting for an answer. */
  get waiting(): ReadonlySet<JsonRpcId> {
    return this.#waiting;
  }

  /** Sends a notification or request that belongs to this POST's requests. */
  push(message: JsonRpcMessage): void {
    this.#sse().write(serializeMessage(message));
  }

  /** Sends the answer to one of the requests; returns true when that was the last. */
  answer(response: JsonRpcResponse): boolean {
    if (this.#done || response.id === null || !this.#waiting.delete(response.id)) return false;
    this.#options.onAnswer?.(response);
    if (this.#stream) this.#stream.write(serializeMessage(response));
    else this.#answers.push(response);
    if (this.#waiting.size > 0) return false;
    this.#finish();
    return true;
  }

  /**
   * Stops waiting for `id`: its client cancelled it, and a cancelled request gets no answer (the
   * spec says so). Returns true when that was the last: the exchange then ends (its stream closes,
   * or what was answered goes out).
   */
  abandon(id: JsonRpcId): boolean {
    if (this.#done || !this.#waiting.delete(id)) return false;
    if (this.#waiting.size > 0) return false;
    this.#finish();
    return true;
  }

  #finish(): void {
    this.#done = true;
    if (this.#stream) {
      this.#stream.end();
      return;
    }
    const [first] = this.#answers;
    if (first === undefined) {
      // Every request of the POST was cancelled by its client: nothing is due, the stream just ends.
      if (!this.#res.headersSent) this.#res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...this.#options.headers });
      this.#res.end();
      return;
    }
    const body = this.#options.batch || first === undefined ? serializeMessage(this.#answers) : encodeMessage(first);
    if (typeof body === 'string') {
      const retry = this.#options.batch ? undefined : retryAfterOf(first);
      const needed = this.#options.batch ? undefined : scopesNeededBy(first);
      const challenge = needed && this.#options.scopeChallenge?.(needed);
      const status = this.#options.batch ? 200 : (this.#options.statusOf?.(first) ?? 200);
      this.#res.writeHead(challenge === undefined ? status : 403, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        ...this.#options.headers,
        ...(retry === undefined ? {} : { 'retry-after': retry }),
        ...(challenge === undefined ? {} : { 'www-authenticate': challenge }),
      });
      this.#res.end(body);
      return;
    }
    // A large result forwarded unchanged: its bytes as they came, between a new head and tail.
    const length = Buffer.byteLength(body.head) + body.bytes.length + Buffer.byteLength(body.tail);
    this.#res.writeHead(200, { 'content-type': 'application/json', 'content-length': length, ...this.#options.headers });
    this.#res.cork();
    this.#res.write(body.head);
    this.#res.write(body.bytes);
    this.#res.end(body.tail);
  }

  /** Turns the exchange into an SSE stream (once), sending what was already answered first. */
  #sse(): SseStream {
    if (this.#stream) return this.#stream;
    const stream = new SseStream(this.#options.nextStreamName(), this.#options.session);
    stream.open(this.#res, this.#options.headers, this.#options.priming);
    this.#stream = stream;
    for (const answer of this.#answers.splice(0)) stream.write(serializeMessage(answer));
    return stream;
  }
}

/**
 * `Retry-After` (whole seconds, rounded up) for a lone answer that is an error saying when to try
 * again (`data.retryAfterMs`, as `rateLimit` refusals do). The status stays 200: the JSON-RPC error
 * and its data are the answer, which a 429 would make clients drop at the transport.
 */
function retryAfterOf(answer: JsonRpcResponse | undefined): string | undefined {
  if (answer === undefined || !('error' in answer)) return undefined;
  const data = answer.error.data;
  if (typeof data !== 'object' || data === null) return undefined;
  const ms = (data as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? String(Math.ceil(ms / 1000)) : undefined;
}

/**
 * The scopes a lone answer says its call needs, when it is `requireScopes`' refusal (-32004 with
 * `data.scopes`): the front answers it as HTTP 403 `insufficient_scope` (2025-11-25 authorization,
 * "Scope Challenge Handling") with the JSON-RPC error as the body. Unlike a rate limit's 429, a
 * 403 is what the spec asks for here, and an SDK client takes it as the cue to step up.
 */
function scopesNeededBy(answer: JsonRpcResponse | undefined): readonly string[] | undefined {
  if (answer === undefined || !('error' in answer) || answer.error.code !== INSUFFICIENT_SCOPE) return undefined;
  const data = answer.error.data;
  if (typeof data !== 'object' || data === null) return undefined;
  const scopes = (data as { scopes?: unknown }).scopes;
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((scope): scope is string => typeof scope === 'string')) return undefined;
  return scopes;
}

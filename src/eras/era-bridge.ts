import { randomBytes } from 'node:crypto';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { toWireError } from '../errors/to-wire-error.js';
import type { Logger } from '../log/logger.js';
import {
  errorResponse,
  resultResponse,
  type JsonObject,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../message/jsonrpc.js';
import { isJsonObject } from '../message/parse-message.js';
import { CLIENT_ERA_META, INPUT_KEY_META, ENVELOPE_META, type StatelessEnvelope } from './stateless-envelope.js';
import { discoverResultFrom, statelessResultAdditions, toStatelessError, type CacheHints } from './stateless-results.js';
import { withMembers } from '../message/raw-list.js';
import { lazyPartsOf } from '../message/lazy-message.js';
import type { ParamHeader } from './param-headers.js';
import { ToolHeaderMap } from './tool-header-map.js';
import { requestDigest, type RequestStateCodec } from './request-state.js';
import { LATEST_SESSION_ERA_VERSION } from './versions.js';
import type { Transport } from '../transport/transport.js';

/** Where the answer to one request of a 2026-07-28 client goes, and what belongs to it meanwhile. */
export interface StatelessReply {
  /** A notification that belongs to the request: its progress, its log messages, a listen stream's news. */
  push(message: JsonRpcNotification): void;
  /** The answer, under the client's id. Called at most once. */
  answer(response: JsonRpcResponse): void;
}

export interface EraBridgeOptions {
  /** Seals and opens the `requestState` of `input_required` results. */
  codec: RequestStateCodec;
  /** Who the client is (its principal, as requestStates are bound to it); '' when nobody authenticated. */
  principal: string;
  /** What `server/discover` lists in `supportedVersions`: every version the front serves, of both eras. */
  supportedVersions: readonly string[];
  /** The caching hints of results whose upstream gave none (a session-era one never does). */
  cacheHints: CacheHints;
  /** How long a call waits for the client's retry after `input_required`; then it is cancelled upstream. */
  inputTimeoutMs: number;
  /** Most calls waiting for a retry at once; the oldest is abandoned when one more parks. */
  maxParked: number;
  /**
   * How long a server's requests during one call are gathered into one `input_required` (a server
   * that asks for several things at once may send them in separate reads). Default 10 ms; 0: what
   * comes in the same turn of the event loop.
   */
  inputGatherMs?: number;
  log: Logger;
}

/** What a bridge does unless told otherwise. */
export const ERA_BRIDGE_DEFAULTS = {
  /** Five minutes: an elicitation may wait for a person. */
  inputTimeoutMs: 300_000,
  maxParked: 100,
  inputGatherMs: 10,
  /** A session-era server says nothing about caching: its lists are stale at once, and for this client only. */
  cacheHints: { ttlMs: 0, cacheScope: 'private' },
} as const satisfies Pick<EraBridgeOptions, 'inputTimeoutMs' | 'maxParked' | 'cacheHints' | 'inputGatherMs'>;

/** The session era's "URL elicitation required" error (2025-11-25), which 2026-07-28 retired. */
const URL_ELICITATION_REQUIRED = -32042;

/** The methods that may answer `input_required` (2026-07-28, "Multi Round-Trip Requests"). */
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Methods of the session era that a 2026-07-28 request may not use: -32601 (HTTP 404). */
const REMOVED_METHODS = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** The server→client requests a stateless-era client answers inside `input_required`, and the capability each needs. */
const INPUT_CAPABILITY: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** Log levels, least severe first (RFC 5424 as MCP names them). */
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The notifications a listen stream carries, by the flag of `subscriptions/listen` that asks for them. */
const LIST_CHANGED: Readonly<Record<string, { flag: string; capability: string }>> = {
  'notifications/tools/list_changed': { flag: 'toolsListChanged', capability: 'tools' },
  'notifications/prompts/list_changed': { flag: 'promptsListChanged', capability: 'prompts' },
  'notifications/resources/list_changed': { flag: 'resourcesListChanged', capability: 'resources' },
};

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** A server→client request waiting for the client's answer inside an `input_required` result. */
interface Asked {
  /** Its id on the session's side (the Peer's); none for a URL elicitation a -32042 error asked for. */
  readonly serverId: JsonRpcId | undefined;
  readonly request: { method: string; params?: JsonObject };
}

/** A request of the stateless-era client, in flight on the session as `internal`. */
interface Call {
  readonly internal: number;
  /** The client's id of the request it is answering now (a retry has a new one). */
  clientId: JsonRpcId;
  /** Where the answer goes; undefined while the call waits for the client's retry. */
  reply: StatelessReply | undefined;
  readonly method: string;
  readonly params: JsonObject | undefined;
  envelope: StatelessEnvelope;
  /** The round of input the next retry answers. */
  round: number;
  /** Server requests the client has yet to answer, by the key they have in `inputRequests`. */
  readonly asked: Map<string, Asked>;
  /** The answer, when it came while the call waited for a retry. */
  held: JsonRpcResponse | undefined;
  /** An `input_required` is about to go out (asks that come in the same turn go in it together). */
  flushing: boolean;
  /** The retry's deadline while the call waits for it. */
  timer: NodeJS.Timeout | undefined;
  /**
   * The progress token of the request the call answers now: the upstream keeps the first
   * request's, and the client only knows the current one's (undefined: it wants no progress).
   */
  progressToken: unknown;
  /**
   * The call ended upstream with a URL elicitation required error (-32042), made an
   * `input_required` for the client: its retry sends the request again.
   */
  again: boolean;
}

/** An open `subscriptions/listen`. */
interface Listen {
  readonly clientId: JsonRpcId;
  readonly reply: StatelessReply;
  /** The honoured notification flags (`toolsListChanged`…). */
  readonly flags: ReadonlySet<string>;
  readonly uris: ReadonlySet<string>;
}

/**
 * The bridge between a client of the stateless era (2026-07-28) and a session of the session era.
 * To the {@link Session} above it, it is the transport of an ordinary client: it makes the
 * `initialize` handshake itself, with the capabilities and identity the client's first request
 * declares, and sends the client's requests on, their envelope removed. To the client, the chain
 * is a 2026-07-28 server: `server/discover` is answered from the handshake; results gain
 * `resultType` and caching hints; a server→client request (sampling, elicitation, roots) made
 * during a call becomes an `input_required` result whose `requestState` (sealed, bound to the
 * caller and the request, expiring, single-use) names the call, which stays open upstream until
 * the client's retry answers it; `subscriptions/listen` becomes `resources/subscribe` and the
 * session's unsolicited notifications; the client's log level becomes `logging/setLevel`.
 *
 * Middleware therefore sees one shape in both eras: a server→client request is a `toDownstream`
 * request, and the client's `inputResponses` entry is its answer.
 */
export class EraBridge implements Transport {
  onmessage?: (value: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #options: EraBridgeOptions;
  /** Names this bridge in the states it seals: a state is only ever good here. */
  readonly #name = randomBytes(6).toString('base64url');
  #nextId = 0;
  /** The client's requests in flight on the session, by their id there. */
  readonly #calls = new Map<number, Call>();
  /** The bridge's own requests to the session (initialize, setLevel, subscribe), by their id there. */
  readonly #own = new Map<number, (response: JsonRpcResponse) => void>();
  /** The handshake, once started: resolves to the upstream's `initialize` result. */
  #handshake: Promise<JsonObject> | undefined;
  #initializeResult: JsonObject | undefined;
  /** The log level the session was last set to. */
  #logLevel: string | undefined;
  /** Open listens, by where their stream goes. */
  readonly #listens = new Map<StatelessReply, Listen>();
  /** How many open listens subscribed each resource. */
  readonly #subscribed = new Map<string, number>();
  /** Calls waiting for a retry, oldest first. */
  readonly #parked = new Set<Call>();
  /** The `x-mcp-header` declarations of the tools the session lists (see {@link paramHeadersFor}). */
  readonly #toolHeaders = new ToolHeaderMap();
  #closed = false;

  constructor(options: EraBridgeOptions) {
    this.#options = options;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** The upstream's `initialize` result, once the handshake is done. */
  get initializeResult(): JsonObject | undefined {
    return this.#initializeResult;
  }

  /** The client's requests in flight (a call waiting for a retry counts). */
  get inFlight(): number {
    return this.#calls.size + this.#listens.size;
  }

  /**
   * A request of the client, its envelope already checked (`readStatelessEnvelope`). Its answer, and
   * whatever belongs to it, goes to `reply`. Returns how to cancel it (stdio's
   * `notifications/cancelled`; on HTTP, its response stream closing): a call is cancelled upstream,
   * a listen ends.
   */
  request(message: JsonRpcRequest, envelope: StatelessEnvelope, reply: StatelessReply): (reason?: string) => void {
    let cancelled = false;
    const cancel = (reason = 'The client cancelled the request'): void => {
      if (cancelled) return;
      cancelled = true;
      this.#cancel(reply, reason);
    };
    if (this.#closed) {
      reply.answer(errorResponse(message.id, { code: ErrorCode.ConnectionClosed, message: 'Session closed' }));
      return cancel;
    }
    const { method, id } = message;
    if (REMOVED_METHODS.has(method)) {
      reply.answer(errorResponse(id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${method} is not part of protocol version ${envelope.protocolVersion}` }));
      return cancel;
    }
    if (envelope.logLevel !== undefined && !LOG_LEVELS.includes(envelope.logLevel)) {
      reply.answer(errorResponse(id, { code: ErrorCode.InvalidParams, message: `Invalid params: unknown log level ${envelope.logLevel}` }));
      return cancel;
    }
    if (message.params?.requestState !== undefined && MRTR_METHODS.has(method)) {
      this.#retry(message, envelope, reply);
      return cancel;
    }
    const go = (initializeResult: JsonObject): void => {
      if (cancelled) return;
      if (method === 'server/discover') {
        reply.answer(resultResponse(id, this.#discover(initializeResult)));
      } else if (method === 'subscriptions/listen') {
        this.#listen(message, initializeResult, reply);
      } else {
        this.#setLogLevel(envelope.logLevel, initializeResult);
        this.#forward(message, envelope, reply);
      }
    };
    // After the handshake, a request goes on at once (the hot path: no promise per request).
    const ready = this.#initializeResult;
    if (ready !== undefined) go(ready);
    else void this.#ready(envelope).then(go, (error: unknown) => reply.answer(errorResponse(id, this.#wire(error))));
    return cancel;
  }

  /**
   * The `x-mcp-header` declarations of tool `name` as the session lists it (through the chain's
   * middleware), for an HTTP front to check a call's `Mcp-Param-*` headers against its arguments:
   * `[]` when it declares none (or is not listed), `undefined` when its declarations are invalid.
   * Learnt from the client's own `tools/list`, else read once (every page) until the list changes.
   */
  async paramHeadersFor(name: string, envelope: StatelessEnvelope): Promise<readonly ParamHeader[] | undefined> {
    await this.#ready(envelope);
    if (!this.#toolHeaders.complete) {
      let cursor: string | undefined;
      for (let page = 0; page < 100; page += 1) {
        const result = await this.#ask('tools/list', cursor === undefined ? {} : { cursor });
        cursor = typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
        this.#learnTools(result, cursor === undefined);
        if (cursor === undefined) break;
      }
    }
    return this.#toolHeaders.headersOf(name);
  }

  /** Notes the `x-mcp-header` declarations of a page of `tools/list` (a large page without any is not read). */
  #learnTools(result: JsonObject, last: boolean): void {
    const bytes = lazyPartsOf(result)?.bytes;
    if (bytes !== undefined && !bytes.includes('x-mcp-header')) this.#toolHeaders.learnNone(last);
    else this.#toolHeaders.learn(result, last);
  }

  /** Cancels what the request answered at `reply` became: its call upstream, or its listen. */
  #cancel(reply: StatelessReply, reason: string): void {
    const listen = this.#listens.get(reply);
    if (listen !== undefined) {
      this.#endListen(listen);
      return;
    }
    for (const call of this.#calls.values()) {
      if (call.reply !== reply) continue;
      this.#drop(call);
      this.#toSession({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.internal, reason } });
      return;
    }
  }

  /** What the session sends to its client. */
  send(message: JsonRpcMessage | JsonRpcMessage[], relatedTo?: JsonRpcId): void {
    if (Array.isArray(message)) {
      for (const member of message) this.send(member, relatedTo);
      return;
    }
    if (!('method' in message)) this.#onResponse(message);
    else if ('id' in message) this.#onServerRequest(message, relatedTo);
    else this.#onNotification(message, relatedTo);
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const closed = { code: ErrorCode.ConnectionClosed, message: 'Session closed' };
    for (const call of this.#calls.values()) {
      clearTimeout(call.timer);
      call.reply?.answer(errorResponse(call.clientId, closed));
    }
    this.#calls.clear();
    this.#parked.clear();
    for (const listen of this.#listens.values()) listen.reply.answer(listenEnded(listen.clientId));
    this.#listens.clear();
    for (const settle of this.#own.values()) settle(errorResponse(null, closed));
    this.#own.clear();
    this.onclose?.();
    return Promise.resolve();
  }

  // --- the handshake ---

  /** The upstream's `initialize` result: the handshake is made once, with the first request's envelope. */
  #ready(envelope: StatelessEnvelope): Promise<JsonObject> {
    this.#handshake ??= this.#initialize(envelope);
    return this.#handshake;
  }

  async #initialize(envelope: StatelessEnvelope): Promise<JsonObject> {
    try {
      const result = await this.#ask('initialize', {
        protocolVersion: LATEST_SESSION_ERA_VERSION,
        capabilities: envelope.clientCapabilities,
        clientInfo: envelope.clientInfo ?? { name: 'mcp-chain', version: '0' },
        // Tells the upstream connection that the client speaks the stateless era (see CLIENT_ERA_META).
        _meta: { [CLIENT_ERA_META]: envelope.protocolVersion },
      });
      this.#initializeResult = result;
      this.#toSession({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return result;
    } catch (error) {
      // The next request tries again.
      this.#handshake = undefined;
      throw error;
    }
  }

  /** A request of the bridge's own to the session; rejects with the error it is answered with. */
  #ask(method: string, params: JsonObject): Promise<JsonObject> {
    const internal = ++this.#nextId;
    return new Promise<JsonObject>((resolve, reject) => {
      this.#own.set(internal, (response) => {
        if ('result' in response) resolve(response.result);
        else reject(new McpError(response.error.code, response.error.message, response.error.data));
      });
      this.#toSession({ jsonrpc: '2.0', id: internal, method, params });
    });
  }

  #discover(initializeResult: JsonObject): JsonObject {
    const { supportedVersions, cacheHints } = this.#options;
    return discoverResultFrom(initializeResult, { supportedVersions, ...cacheHints });
  }

  /** The session's log level follows the client's latest request that names one (when the server logs at all). */
  #setLogLevel(level: string | undefined, initializeResult: JsonObject): void {
    if (level === undefined || level === this.#logLevel) return;
    if (!isJsonObject(initializeResult.capabilities) || initializeResult.capabilities.logging === undefined) return;
    this.#logLevel = level;
    this.#ask('logging/setLevel', { level }).catch((error: unknown) => {
      this.#options.log.debug('the upstream refused logging/setLevel', { error: String(error) });
    });
  }

  // --- calls ---

  #forward(message: JsonRpcRequest, envelope: StatelessEnvelope, reply: StatelessReply): void {
    const internal = ++this.#nextId;
    const call: Call = {
      internal,
      clientId: message.id,
      reply,
      method: message.method,
      params: message.params,
      envelope,
      round: 0,
      asked: new Map(),
      held: undefined,
      flushing: false,
      timer: undefined,
      progressToken: progressTokenOf(message.params),
      again: false,
    };
    this.#calls.set(internal, call);
    this.#toSession({ jsonrpc: '2.0', id: internal, method: message.method, ...withParams(sessionParams(message.params)) });
  }

  /** The client's retry of a call that answered `input_required`. */
  #retry(message: JsonRpcRequest, envelope: StatelessEnvelope, reply: StatelessReply): void {
    const params = message.params ?? {};
    let call: Call;
    try {
      call = this.#parkedCall(message.method, params);
    } catch (error) {
      reply.answer(errorResponse(message.id, this.#wire(error)));
      return;
    }
    this.#unpark(call);
    call.round += 1;
    call.clientId = message.id;
    call.reply = reply;
    call.envelope = envelope;
    call.progressToken = progressTokenOf(params);
    const responses = isJsonObject(params.inputResponses) ? params.inputResponses : {};
    for (const [key, asked] of [...call.asked]) {
      const answer = responses[key];
      // A missing (or malformed) answer is asked again, not refused.
      if (!isJsonObject(answer)) continue;
      call.asked.delete(key);
      if (asked.serverId !== undefined) this.#toSession({ jsonrpc: '2.0', id: asked.serverId, result: answer });
    }
    if (call.again && call.asked.size === 0) {
      // The URL elicitations are done (or declined): the request goes again, as a new call.
      this.#calls.delete(call.internal);
      this.#forward(message, envelope, reply);
      return;
    }
    if (call.held !== undefined) this.#finish(call, call.held);
    else if (call.asked.size > 0) this.#askClient(call);
  }

  /** The parked call a retry's `requestState` names, verified: -32602 saying why when there is none. */
  #parkedCall(method: string, params: JsonObject): Call {
    const claims = this.#options.codec.open(params.requestState, {
      principal: this.#options.principal,
      digest: requestDigest(method, params),
    });
    const [name, internal] = claims.call.split(':');
    const call = name === this.#name ? this.#calls.get(Number(internal)) : undefined;
    if (call !== undefined && call.reply === undefined && claims.round === call.round) return call;
    if (call !== undefined && claims.round < call.round) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: this requestState was already used', { requestState: 'used' });
    }
    throw new McpError(ErrorCode.InvalidParams, 'Invalid params: no call waits for this requestState (it finished, expired, or was abandoned)', { requestState: 'unknown' });
  }

  #onResponse(response: JsonRpcResponse): void {
    const id = response.id;
    if (typeof id !== 'number') return;
    const own = this.#own.get(id);
    if (own !== undefined) {
      this.#own.delete(id);
      own(response);
      return;
    }
    const call = this.#calls.get(id);
    if (call === undefined) return;
    if (call.reply === undefined) call.held = response;
    else this.#finish(call, response);
  }

  /** The call's answer goes to the client, as a 2026-07-28 result or error. */
  #finish(call: Call, response: JsonRpcResponse): void {
    const reply = call.reply;
    if (reply !== undefined && 'error' in response && this.#urlElicitation(call, response.error)) return;
    this.#drop(call);
    if (call.method === 'tools/list' && 'result' in response) {
      // The whole list is known only from a one-page answer to a request without a cursor.
      const next = response.result.nextCursor;
      this.#learnTools(response.result, call.params?.cursor === undefined && (typeof next !== 'string' || next === ''));
    }
    if (reply === undefined) return;
    if ('result' in response) reply.answer(resultResponse(call.clientId, statelessResult(call.method, response.result, this.#options.cacheHints)));
    else reply.answer(errorResponse(call.clientId, toStatelessError(response.error, call.params)));
  }

  /**
   * A call that ended with a URL elicitation required error (-32042, a server or the chain's own
   * login to a remote server), for a client that declared URL elicitation on this request: its
   * elicitations become an `input_required` (2026-07-28 has no -32042), and the retry sends the
   * request again. False when it is not such an error.
   */
  #urlElicitation(call: Call, error: { code: number; data?: unknown }): boolean {
    if (error.code !== URL_ELICITATION_REQUIRED || !MRTR_METHODS.has(call.method)) return false;
    const elicitations = isJsonObject(error.data) && Array.isArray(error.data.elicitations) ? error.data.elicitations : [];
    const asked = elicitations.filter(isJsonObject).filter((e) => typeof e.url === 'string');
    if (asked.length === 0 || !declares(call.envelope.clientCapabilities, 'elicitation', { mode: 'url' })) return false;
    asked.forEach((elicitation, index) => {
      const { elicitationId, ...params } = elicitation;
      const key = `url-${typeof elicitationId === 'string' ? elicitationId : String(index)}`;
      call.asked.set(key, { serverId: undefined, request: { method: 'elicitation/create', params: { ...params, mode: 'url' } } });
    });
    call.again = true;
    this.#askClient(call);
    return true;
  }

  /** Forgets a call (answered, cancelled, or abandoned): what its server still asks is refused. */
  #drop(call: Call, why = 'the call it belongs to has ended'): void {
    for (const asked of call.asked.values()) {
      if (asked.serverId === undefined) continue;
      this.#toSession(errorResponse(asked.serverId, { code: ErrorCode.RequestTimeout, message: `The client was not asked: ${why}` }));
    }
    call.asked.clear();
    this.#unpark(call);
    this.#calls.delete(call.internal);
    call.reply = undefined;
  }

  // --- server→client requests: input_required ---

  #onServerRequest(message: JsonRpcRequest, relatedTo: JsonRpcId | undefined): void {
    const refuse = (text: string): void => this.#toSession(errorResponse(message.id, { code: ErrorCode.MethodNotFound, message: text }));
    const capability = INPUT_CAPABILITY[message.method];
    if (capability === undefined) return refuse(`Method not found: a 2026-07-28 client takes no ${message.method} request`);
    const call = relatedTo === undefined ? this.#likelyCall(capability, message.params) : typeof relatedTo === 'number' ? this.#calls.get(relatedTo) : undefined;
    if (call === undefined) return refuse(`The client cannot be asked ${message.method} outside one of its requests (protocol version 2026-07-28)`);
    if (!MRTR_METHODS.has(call.method)) return refuse(`The client cannot be asked ${message.method} during ${call.method} (protocol version 2026-07-28)`);
    if (!declares(call.envelope.clientCapabilities, capability, message.params)) {
      return refuse(`The client did not declare the ${capability} capability${message.params?.mode === 'url' ? ' for URL mode' : ''} on this request`);
    }
    // A request that came from a 2026-07-28 server's input_required keeps that server's key.
    const { key: hinted, params } = withoutInputKey(message.params);
    const key = hinted !== undefined && !call.asked.has(hinted) ? hinted : `${message.method.split('/')[0] ?? 'input'}-${String(message.id)}`;
    call.asked.set(key, { serverId: message.id, request: params === undefined ? { method: message.method } : { method: message.method, params } });
    if (call.reply !== undefined && !call.flushing) {
      // Asks that come in the same turn (a server that asks for two things at once) go out together.
      call.flushing = true;
      const flush = (): void => {
        call.flushing = false;
        if (call.reply !== undefined && call.asked.size > 0 && this.#calls.has(call.internal)) this.#askClient(call);
      };
      // A server's parallel requests may come in separate reads: they are gathered for a moment.
      const gatherMs = this.#options.inputGatherMs ?? ERA_BRIDGE_DEFAULTS.inputGatherMs;
      if (gatherMs > 0) setTimeout(flush, gatherMs).unref?.();
      else setImmediate(flush);
    }
  }

  /**
   * The call a server request belongs to when the session does not say (a stdio upstream has no
   * way to): the oldest call still running that may be asked for input and declared what it
   * needs, else the oldest such call waiting for its retry. A guess: with several calls running
   * at once it may pick the wrong one (then that call's client answers, and the right call goes on
   * once it has).
   */
  #likelyCall(capability: string, params: JsonObject | undefined): Call | undefined {
    let parked: Call | undefined;
    for (const call of this.#calls.values()) {
      if (!MRTR_METHODS.has(call.method) || !declares(call.envelope.clientCapabilities, capability, params)) continue;
      // A call waiting for its client's retry has asked already: one still running is more likely.
      if (call.reply !== undefined) return call;
      parked ??= call;
    }
    return parked;
  }

  /** Answers the call's current request with `input_required`, and parks the call until the retry. */
  #askClient(call: Call): void {
    const reply = call.reply;
    if (reply === undefined) return;
    const inputRequests: JsonObject = {};
    for (const [key, asked] of call.asked) inputRequests[key] = asked.request;
    const requestState = this.#options.codec.seal({
      call: `${this.#name}:${call.internal}`,
      round: call.round,
      principal: this.#options.principal,
      digest: requestDigest(call.method, call.params),
    });
    call.reply = undefined;
    reply.answer(resultResponse(call.clientId, { resultType: 'input_required', inputRequests, requestState }));
    this.#park(call);
  }

  #park(call: Call): void {
    const { inputTimeoutMs, maxParked } = this.#options;
    this.#parked.add(call);
    call.timer = setTimeout(() => this.#abandon(call, `the client did not retry within ${inputTimeoutMs} ms`), inputTimeoutMs);
    call.timer.unref?.();
    if (this.#parked.size > maxParked) {
      const oldest = this.#parked.values().next().value;
      if (oldest !== undefined) this.#abandon(oldest, `more than ${maxParked} calls waited for their client's input`);
    }
  }

  #unpark(call: Call): void {
    clearTimeout(call.timer);
    call.timer = undefined;
    this.#parked.delete(call);
  }

  /** A call whose client never came back: its server requests are refused, the call is cancelled upstream. */
  #abandon(call: Call, why: string): void {
    this.#options.log.info('abandoned a call waiting for its client\'s input', { method: call.method, why });
    const held = call.held;
    this.#drop(call, `the client never answered: ${why}`);
    if (held === undefined && !call.again) this.#toSession({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.internal, reason: why } });
  }

  // --- notifications ---

  #onNotification(message: JsonRpcNotification, relatedTo: JsonRpcId | undefined): void {
    const call = typeof relatedTo === 'number' ? this.#calls.get(relatedTo) : undefined;
    switch (message.method) {
      case 'notifications/cancelled': {
        // The server gave up on one of its requests: the client is no longer asked it.
        const requestId = message.params?.requestId;
        for (const candidate of this.#calls.values()) {
          for (const [key, asked] of candidate.asked) if (asked.serverId === requestId) candidate.asked.delete(key);
        }
        return;
      }
      case 'notifications/progress':
        // Under the token of the request the call answers now, if it asked for progress.
        if (call?.reply !== undefined && call.progressToken !== undefined) {
          call.reply.push({ ...message, params: { ...message.params, progressToken: call.progressToken } });
        }
        return;
      case 'notifications/message':
        // Log messages go only to a request that asked for them, at its level or above.
        if (call?.reply !== undefined && atLeast(message.params?.level, call.envelope.logLevel)) call.reply.push(message);
        return;
      case 'notifications/resources/updated':
        this.#toListens(message, (listen) => typeof message.params?.uri === 'string' && listen.uris.has(message.params.uri));
        return;
      default: {
        if (message.method === 'notifications/tools/list_changed') this.#toolHeaders.forget();
        const changed = LIST_CHANGED[message.method];
        if (changed !== undefined) this.#toListens(message, (listen) => listen.flags.has(changed.flag));
        else this.#options.log.debug('a notification has no place in protocol version 2026-07-28: dropped', { method: message.method });
      }
    }
  }

  // --- subscriptions/listen ---

  #listen(message: JsonRpcRequest, initializeResult: JsonObject, reply: StatelessReply): void {
    const asked = message.params?.notifications;
    if (!isJsonObject(asked)) {
      reply.answer(errorResponse(message.id, { code: ErrorCode.InvalidParams, message: 'Invalid params: subscriptions/listen needs a notifications object' }));
      return;
    }
    const capabilities = isJsonObject(initializeResult.capabilities) ? initializeResult.capabilities : {};
    const flags = new Set<string>();
    const honoured: JsonObject = {};
    for (const { flag, capability } of Object.values(LIST_CHANGED)) {
      const offered = capabilities[capability];
      if (asked[flag] === true && isJsonObject(offered) && offered.listChanged === true) {
        flags.add(flag);
        honoured[flag] = true;
      }
    }
    const uris = new Set<string>();
    const resources = capabilities.resources;
    if (Array.isArray(asked.resourceSubscriptions) && isJsonObject(resources) && resources.subscribe === true) {
      for (const uri of asked.resourceSubscriptions) if (typeof uri === 'string') uris.add(uri);
      honoured.resourceSubscriptions = [...uris];
    }
    const listen: Listen = { clientId: message.id, reply, flags, uris };
    this.#listens.set(reply, listen);
    reply.push({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUBSCRIPTION_ID]: message.id }, notifications: honoured },
    });
    for (const uri of uris) {
      const count = this.#subscribed.get(uri) ?? 0;
      this.#subscribed.set(uri, count + 1);
      if (count === 0) {
        this.#ask('resources/subscribe', { uri }).catch((error: unknown) => {
          this.#options.log.warn('the upstream refused resources/subscribe', { uri, error: String(error) });
        });
      }
    }
  }

  #toListens(message: JsonRpcNotification, wants: (listen: Listen) => boolean): void {
    for (const listen of this.#listens.values()) {
      if (!wants(listen)) continue;
      const params = message.params ?? {};
      const meta = isJsonObject(params._meta) ? params._meta : {};
      listen.reply.push({ jsonrpc: '2.0', method: message.method, params: { ...params, _meta: { ...meta, [SUBSCRIPTION_ID]: listen.clientId } } });
    }
  }

  #endListen(listen: Listen): void {
    this.#listens.delete(listen.reply);
    for (const uri of listen.uris) {
      const count = (this.#subscribed.get(uri) ?? 1) - 1;
      if (count > 0) {
        this.#subscribed.set(uri, count);
        continue;
      }
      this.#subscribed.delete(uri);
      if (!this.#closed) this.#ask('resources/unsubscribe', { uri }).catch(() => undefined);
    }
  }

  // --- helpers ---

  #toSession(message: JsonRpcMessage): void {
    if (!this.#closed) this.onmessage?.(message);
  }

  #wire(error: unknown): { code: number; message: string; data?: unknown } {
    return toWireError(error, (cause) => this.#options.log.warn('the bridge failed', { error: String(cause) }));
  }
}

/** The result that ends a listen stream. */
function listenEnded(id: JsonRpcId): JsonRpcResponse {
  return resultResponse(id, { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: id } });
}

/** A result as a 2026-07-28 client expects it (see `statelessResultAdditions`); a large one stays its bytes. */
function statelessResult(method: string, result: JsonObject, hints: CacheHints): JsonObject {
  const added = statelessResultAdditions(method, result, hints);
  if (added === undefined) return result;
  return withMembers(result, added) ?? { ...result, ...added };
}

/** A request's params as the session era has them: without the envelope, `inputResponses` or `requestState`. */
function sessionParams(params: JsonObject | undefined): JsonObject | undefined {
  if (params === undefined) return undefined;
  const meta = params._meta;
  let kept: JsonObject | undefined;
  if (isJsonObject(meta)) {
    const {
      [ENVELOPE_META.protocolVersion]: _version,
      [ENVELOPE_META.clientCapabilities]: _capabilities,
      [ENVELOPE_META.clientInfo]: _info,
      [ENVELOPE_META.logLevel]: _level,
      ...rest
    } = meta;
    kept = rest;
  }
  const changes = { _meta: kept !== undefined && Object.keys(kept).length > 0 ? kept : undefined, inputResponses: undefined, requestState: undefined };
  // A large request (its arguments) stays its bytes.
  const lazy = withMembers(params, changes);
  if (lazy !== undefined) return lazy;
  const { _meta: _old, inputResponses: _responses, requestState: _state, ...rest } = params;
  return changes._meta === undefined ? rest : { ...rest, _meta: changes._meta };
}

/** The params of a server request without the chain's input key (see INPUT_KEY_META), and that key. */
function withoutInputKey(params: JsonObject | undefined): { key: string | undefined; params: JsonObject | undefined } {
  const meta = params?._meta;
  if (params === undefined || !isJsonObject(meta) || !(INPUT_KEY_META in meta)) return { key: undefined, params };
  const { [INPUT_KEY_META]: key, ...kept } = meta;
  const { _meta: _old, ...rest } = params;
  return { key: typeof key === 'string' ? key : undefined, params: Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept } };
}

function progressTokenOf(params: JsonObject | undefined): unknown {
  const meta = params?._meta;
  return isJsonObject(meta) ? meta.progressToken : undefined;
}

function withParams(params: JsonObject | undefined): { params?: JsonObject } {
  return params === undefined ? {} : { params };
}

/** Whether the request's declared capabilities cover an input request (elicitation by mode). */
function declares(capabilities: JsonObject, capability: string, params: JsonObject | undefined): boolean {
  const declared = capabilities[capability];
  if (!isJsonObject(declared)) return false;
  if (capability !== 'elicitation') return true;
  const mode = params?.mode === 'url' ? 'url' : 'form';
  // An empty elicitation capability means form mode only.
  return mode === 'form' ? Object.keys(declared).length === 0 || declared.form !== undefined : declared.url !== undefined;
}

/** Whether a log message's level is at or above the level a request asked for. */
function atLeast(level: unknown, wanted: string | undefined): boolean {
  if (wanted === undefined || typeof level !== 'string') return false;
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(wanted);
}

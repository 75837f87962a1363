import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import type { Logger } from '../log/logger.js';
import type { JsonObject, McpMessage, Result } from '../message/jsonrpc.js';
import { isJsonObject } from '../message/parse-message.js';
import { CLIENT_ERA_META, INPUT_KEY_META, ENVELOPE_META } from './stateless-envelope.js';
import { initializeResultFrom } from './stateless-results.js';
import { LATEST_STATELESS_ERA_VERSION, negotiateVersion } from './versions.js';
import { CancelScope } from '../core/cancel-scope.js';
import type { Downstream } from '../core/downstream.js';
import { requestScope, type RequestScope } from '../core/request-scope.js';
import type { SessionInfo } from '../core/session-info.js';
import type { Upstream, UpstreamConnection } from '../core/upstream.js';
import type { UpstreamStatusListener } from '../core/upstream-status.js';

/**
 * How a connection learns whether its server speaks 2026-07-28:
 * - `discover`: ask `server/discover` first and fall back to `initialize` on any error (the spec's
 *   way; safe on HTTP, where a session-era server refuses a POST without a session);
 * - `client`: follow the client. For a 2026-07-28 client (one a bridge serves) ask
 *   `server/discover` first, as `discover` does; for a session-era client send `initialize` first,
 *   and move to 2026-07-28 only when the server refuses it naming that version (a server of the
 *   stateless era only). Used for stdio servers: a server of both eras then serves each client in
 *   its own era, and session-era servers, some of which answer a request before `initialize`
 *   badly, never see one from a session-era client.
 */
export type EraProbe = 'discover' | 'client';

/**
 * What the connections of one upstream learnt from `server/discover`, for the next ones: `stateless`
 * (it answered), `session` (it did not: later connections do not ask again).
 */
export class EraMemory {
  era: 'stateless' | 'session' | undefined;
}

export interface EraOptions {
  probe: EraProbe;
  /** How long a `server/discover` probe may take before the server counts as of the session era. Default 10 s. */
  probeTimeoutMs?: number;
  /** Most rounds of `input_required` one call may take. Default 16. */
  maxInputRounds?: number;
}

/**
 * An upstream that speaks 2026-07-28 to servers that do, and the session era to the others: to
 * the chain above it, every server looks like one of the session era. See {@link EraConnection}.
 */
export function withEras(upstream: Upstream, options: EraOptions): Upstream {
  const memory = new EraMemory();
  return {
    connect: (downstream, session) => new EraConnection(upstream, downstream, session, memory, options),
    ...(upstream.close === undefined ? {} : { close: () => upstream.close?.() ?? Promise.resolve() }),
  };
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** How long a `subscriptions/listen` may take to be acknowledged before the connection goes on without it. */
const LISTEN_ACK_MS = 5_000;

/**
 * One connection of {@link withEras}. The `initialize` the chain sends decides the era (see
 * {@link EraProbe}); a server of the session era gets everything as it came, at the cost of one
 * comparison per message. To a server of the stateless era the connection is the session:
 * `initialize` is answered from `server/discover`; every request carries the client's protocol
 * version, capabilities, info and log level in `_meta`; `ping` and `logging/setLevel` are answered
 * here; `resources/subscribe` and the server's `list_changed` notifications travel on one
 * `subscriptions/listen`; an `input_required` result becomes real requests to the client (through
 * the chain's middleware, as a session-era server's would be), whose answers go back on the retried
 * request, round after round, inside the one call the client made.
 */
export class EraConnection implements UpstreamConnection {
  readonly #inner: UpstreamConnection;
  readonly #downstream: Downstream;
  readonly #memory: EraMemory;
  readonly #options: EraOptions;
  readonly #log: Logger;
  #era: 'stateless' | 'session' | undefined;
  /** What the client declared in `initialize`, sent with every request of the stateless era. */
  #client: { capabilities: JsonObject; clientInfo: JsonObject | undefined } = { capabilities: {}, clientInfo: undefined };
  #discover: JsonObject | undefined;
  #logLevel: string | undefined;
  readonly #subscriptions = new Set<string>();
  /** The open `subscriptions/listen`, ended by its scope. */
  #listen: CancelScope | undefined;
  /** Resolves the wait for the newest listen's acknowledgement. */
  #pendingAck: (() => void) | undefined;
  /** Whether the client speaks 2026-07-28 (a bridge serves it): input requests then carry their key. */
  #statelessClient = false;

  constructor(upstream: Upstream, downstream: Downstream, session: SessionInfo, memory: EraMemory, options: EraOptions) {
    this.#downstream = downstream;
    this.#memory = memory;
    this.#options = options;
    this.#log = session.log;
    this.#era = memory.era === 'session' && options.probe === 'discover' ? 'session' : undefined;
    // What a server of the stateless era sends about its subscriptions reaches the client as the
    // session era has it: no acknowledgements, no subscription ids.
    this.#inner = upstream.connect(
      {
        request: (message, scope) => downstream.request(message, scope),
        notify: (message) => (this.#era === 'stateless' ? this.#notifyClient(message) : downstream.notify(message)),
        ...(downstream.pause === undefined ? {} : { pause: () => downstream.pause?.() }),
        ...(downstream.resume === undefined ? {} : { resume: () => downstream.resume?.() }),
      },
      session,
    );
  }

  /** The era the server turned out to speak, once known. */
  get era(): 'stateless' | 'session' | undefined {
    return this.#era;
  }

  request(message: McpMessage, scope: RequestScope): Promise<Result> {
    if (this.#era === 'session') return this.#inner.request(message, scope);
    if (this.#era === 'stateless') return this.#stateless(message, scope);
    if (message.method !== 'initialize') return this.#inner.request(message, scope);
    return this.#initialize(message, scope);
  }

  notify(message: McpMessage): Promise<void> {
    if (this.#era !== 'stateless') return this.#inner.notify(message);
    // The stateless era has no handshake to finish and no roots notification.
    if (message.method === 'notifications/initialized' || message.method === 'notifications/roots/list_changed') return Promise.resolve();
    return this.#inner.notify(message);
  }

  close(): Promise<void> {
    const listen = this.#listen;
    this.#listen = undefined;
    listen?.abort(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    return this.#inner.close();
  }

  pause(): void {
    this.#inner.pause?.();
  }

  resume(): void {
    this.#inner.resume?.();
  }

  onStatus(listener: UpstreamStatusListener): () => void {
    return this.#inner.onStatus?.(listener) ?? noop;
  }

  // --- which era ---

  async #initialize(received: McpMessage, scope: RequestScope): Promise<Result> {
    const { message, statelessClient } = withoutClientEra(received);
    this.#statelessClient = statelessClient;
    const params = message.params ?? {};
    this.#client = {
      capabilities: isJsonObject(params.capabilities) ? params.capabilities : {},
      clientInfo: isJsonObject(params.clientInfo) ? params.clientInfo : undefined,
    };
    const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined;
    const discoverFirst = this.#options.probe === 'discover' || (statelessClient && this.#memory.era !== 'session');
    if (discoverFirst) {
      const discovered = await this.#probe(scope);
      if (discovered === 'unauthorized') {
        // Refused for want of a token: initialize (which logs in) goes on, and a stateless-era server
        // refuses it naming 2026-07-28 (see below). Nothing is learnt for the next connections.
        return this.#initializeFirst(message, scope, requested);
      }
      if (discovered !== undefined) return this.#becomeStateless(discovered, requested);
      this.#era = 'session';
      this.#memory.era = 'session';
      return this.#inner.request(message, scope);
    }
    return this.#initializeFirst(message, scope, requested);
  }

  /** `initialize` first; on to 2026-07-28 when the server refuses it naming that version. */
  async #initializeFirst(message: McpMessage, scope: RequestScope, requested: string | undefined): Promise<Result> {
    try {
      const result = await this.#inner.request(message, scope);
      this.#era = 'session';
      return result;
    } catch (error) {
      // A server of the stateless era only refuses initialize naming the versions it speaks.
      if (!namesStatelessVersion(error)) throw error;
      const discovered = await this.#probe(scope);
      if (discovered === undefined || discovered === 'unauthorized') throw error;
      return this.#becomeStateless(discovered, requested);
    }
  }

  /**
   * The server's `server/discover` result when it speaks 2026-07-28, else undefined (any error, or
   * no answer in time); `'unauthorized'` when it refused the probe for want of a token (HTTP 401/403).
   */
  async #probe(scope: RequestScope): Promise<JsonObject | 'unauthorized' | undefined> {
    const cancel = new CancelScope();
    const unlink = scope.cancel?.onAbort((reason) => cancel.abort(reason));
    const timeoutMs = this.#options.probeTimeoutMs ?? 10_000;
    const timer = setTimeout(() => cancel.abort(new McpError(ErrorCode.RequestTimeout, `server/discover was not answered in ${timeoutMs} ms`)), timeoutMs);
    try {
      const result = await this.#inner.request({ method: 'server/discover', params: { _meta: this.#envelope() } }, requestScope(cancel, undefined));
      const versions = result.supportedVersions;
      return Array.isArray(versions) && versions.includes(LATEST_STATELESS_ERA_VERSION) ? result : undefined;
    } catch (error) {
      if (scope.signal.aborted) throw error;
      const status = error instanceof McpError && isJsonObject(error.data) ? error.data.status : undefined;
      if (status === 401 || status === 403) return 'unauthorized';
      this.#log.debug('the upstream does not answer server/discover: it speaks the session era', { error: error instanceof Error ? error.message : String(error) });
      return undefined;
    } finally {
      clearTimeout(timer);
      unlink?.();
    }
  }

  async #becomeStateless(discovered: JsonObject, requested: string | undefined): Promise<Result> {
    this.#discover = discovered;
    const known = this.#memory.era === 'stateless';
    this.#era = 'stateless';
    this.#memory.era = 'stateless';
    if (!known) this.#log.info('the upstream speaks protocol version 2026-07-28');
    await this.#openListen();
    return initializeResultFrom(discovered, negotiateVersion(requested ?? ''));
  }

  // --- the stateless era ---

  async #stateless(message: McpMessage, scope: RequestScope): Promise<Result> {
    switch (message.method) {
      case 'initialize':
        throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: initialize was already received in this session');
      case 'ping':
        return {};
      case 'logging/setLevel': {
        const level = message.params?.level;
        if (typeof level !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: logging/setLevel needs a level');
        this.#logLevel = level;
        return {};
      }
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const uri = message.params?.uri;
        if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${message.method} needs a uri`);
        if (message.method === 'resources/subscribe') this.#subscriptions.add(uri);
        else this.#subscriptions.delete(uri);
        // Answered once the server listens: an update right after the answer is not lost.
        await this.#openListen();
        return {};
      }
      default:
        return this.#call(message, scope);
    }
  }

  /** A request of the stateless era, and its rounds of `input_required` answered by the client. */
  async #call(message: McpMessage, scope: RequestScope): Promise<Result> {
    const original = message.params ?? {};
    let params = this.#withEnvelope(original);
    const maxRounds = this.#options.maxInputRounds ?? 16;
    for (let round = 0; ; round += 1) {
      const result = await this.#inner.request({ method: message.method, params }, scope);
      if (result.resultType !== 'input_required') return result;
      if (!MRTR_METHODS.has(message.method)) {
        throw new McpError(ErrorCode.InternalError, `The upstream answered ${message.method} with input_required, which only tools/call, prompts/get and resources/read may`);
      }
      if (round + 1 >= maxRounds) {
        throw new McpError(ErrorCode.InternalError, `The upstream asked for input more than ${maxRounds} times in one call`);
      }
      const inputResponses = await this.#askClient(result.inputRequests, scope);
      const state = result.requestState;
      params = this.#withEnvelope({ ...original, inputResponses, ...(typeof state === 'string' ? { requestState: state } : {}) });
    }
  }

  /** Each input request of an `input_required` result, asked of the client as a request of its own. */
  async #askClient(inputRequests: unknown, scope: RequestScope): Promise<JsonObject> {
    if (!isJsonObject(inputRequests)) return {};
    const to = scope.related ?? this.#downstream;
    const entries = Object.entries(inputRequests).filter((entry): entry is [string, JsonObject] => isJsonObject(entry[1]) && typeof entry[1].method === 'string');
    const answers = await Promise.all(
      entries.map(([key, request]) => {
        const params = sessionEraParams(request);
        return to.request({ method: request.method as string, params: this.#statelessClient ? withInputKey(params, key) : params }, scope);
      }),
    );
    const responses: JsonObject = {};
    entries.forEach(([key], index) => (responses[key] = answers[index]));
    return responses;
  }

  #withEnvelope(params: JsonObject): JsonObject {
    const meta = isJsonObject(params._meta) ? params._meta : {};
    return { ...params, _meta: { ...meta, ...this.#envelope() } };
  }

  #envelope(): JsonObject {
    const { capabilities, clientInfo } = this.#client;
    return {
      [ENVELOPE_META.protocolVersion]: LATEST_STATELESS_ERA_VERSION,
      [ENVELOPE_META.clientCapabilities]: capabilities,
      ...(clientInfo === undefined ? {} : { [ENVELOPE_META.clientInfo]: clientInfo }),
      ...(this.#logLevel === undefined ? {} : { [ENVELOPE_META.logLevel]: this.#logLevel }),
    };
  }

  // --- subscriptions ---

  /**
   * (Re)opens the one `subscriptions/listen` that carries what a session-era client gets unasked:
   * the `list_changed` notifications the server offers, and updates of the resources subscribed.
   * Resolves once the server has acknowledged it (or failed it, or after {@link LISTEN_ACK_MS}); the
   * listen it replaces stays open until then, so that nothing is missed in between (a notification
   * may then come twice).
   */
  #openListen(): Promise<void> {
    const capabilities = isJsonObject(this.#discover?.capabilities) ? this.#discover.capabilities : {};
    const notifications: JsonObject = {};
    for (const [capability, flag] of [['tools', 'toolsListChanged'], ['prompts', 'promptsListChanged'], ['resources', 'resourcesListChanged']] as const) {
      const offered = capabilities[capability];
      if (isJsonObject(offered) && offered.listChanged === true) notifications[flag] = true;
    }
    if (this.#subscriptions.size > 0) notifications.resourceSubscriptions = [...this.#subscriptions];
    const previous = this.#listen;
    const replaced = (): void => previous?.abort(new McpError(ErrorCode.ConnectionClosed, 'The subscriptions changed'));
    if (Object.keys(notifications).length === 0) {
      this.#listen = undefined;
      replaced();
      return Promise.resolve();
    }
    const cancel = new CancelScope();
    this.#listen = cancel;
    let acknowledged!: () => void;
    const ack = new Promise<void>((resolve) => (acknowledged = resolve));
    // On stdio the acknowledgement comes as a notification of the connection (see #notifyClient).
    this.#pendingAck = acknowledged;
    const related: Downstream = {
      request: (message) => Promise.reject(new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`)),
      notify: (message) => this.#notifyClient(message),
    };
    this.#inner.request({ method: 'subscriptions/listen', params: { _meta: this.#envelope(), notifications } }, requestScope(cancel, related)).then(
      () => {
        acknowledged();
        this.#log.debug('the upstream ended the subscriptions stream');
      },
      (error: unknown) => {
        acknowledged();
        if (this.#listen === cancel) this.#log.warn('the upstream subscriptions stream failed', { error: error instanceof Error ? error.message : String(error) });
      },
    );
    const timer = setTimeout(acknowledged, LISTEN_ACK_MS);
    timer.unref?.();
    return ack.then(() => {
      clearTimeout(timer);
      if (this.#pendingAck === acknowledged) this.#pendingAck = undefined;
      replaced();
    });
  }

  /** A notification of the stateless era, as a session-era client expects it. */
  #notifyClient(message: McpMessage): Promise<void> {
    if (message.method === 'notifications/subscriptions/acknowledged') {
      this.#pendingAck?.();
      return Promise.resolve();
    }
    const params = message.params;
    const meta = params?._meta;
    if (!isJsonObject(meta) || !(SUBSCRIPTION_ID in meta)) return this.#downstream.notify(message);
    const { [SUBSCRIPTION_ID]: _id, ...kept } = meta;
    const { _meta: _old, ...rest } = params ?? {};
    return this.#downstream.notify({ method: message.method, params: Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept } });
  }
}

function noop(): void {}

/** An input request's params as a session-era client expects them (a URL elicitation names itself). */
function sessionEraParams(request: JsonObject): JsonObject {
  const params = isJsonObject(request.params) ? request.params : {};
  if (request.method === 'elicitation/create' && params.mode === 'url' && typeof params.elicitationId !== 'string') {
    return { ...params, elicitationId: randomUUID() };
  }
  return params;
}

/** The params with the input request's key in `_meta` (see INPUT_KEY_META). */
function withInputKey(params: JsonObject, key: string): JsonObject {
  const meta = isJsonObject(params._meta) ? params._meta : {};
  return { ...params, _meta: { ...meta, [INPUT_KEY_META]: key } };
}

/** `initialize` without the bridge's note of the client's era (see CLIENT_ERA_META), and whether it was there. */
function withoutClientEra(message: McpMessage): { message: McpMessage; statelessClient: boolean } {
  const params = message.params;
  const meta = params?._meta;
  if (params === undefined || !isJsonObject(meta) || !(CLIENT_ERA_META in meta)) return { message, statelessClient: false };
  const { [CLIENT_ERA_META]: _era, ...kept } = meta;
  const { _meta: _old, ...rest } = params;
  return { message: { method: message.method, params: Object.keys(kept).length === 0 ? rest : { ...rest, _meta: kept } }, statelessClient: true };
}

/** Whether an error refusing `initialize` names 2026-07-28 among the versions the server speaks. */
function namesStatelessVersion(error: unknown): boolean {
  if (!(error instanceof McpError)) return false;
  if (error.code === ErrorCode.UnsupportedProtocolVersion) return true;
  const supported = isJsonObject(error.data) ? error.data.supported : undefined;
  if (Array.isArray(supported)) return supported.includes(LATEST_STATELESS_ERA_VERSION);
  return error.message.includes(LATEST_STATELESS_ERA_VERSION);
}

import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import type { Logger } from '../log/logger.js';
import { errorResponse, resultResponse, type JsonRpcId, type JsonRpcMessage, type JsonRpcResponse } from '../message/jsonrpc.js';
import { classifyMessage } from '../message/parse-message.js';
import { negotiateVersion, STATELESS_ERA_VERSIONS } from './versions.js';
import { claimsStatelessEra, readStatelessEnvelope } from './stateless-envelope.js';
import type { EraBridge } from './era-bridge.js';
import type { Transport } from '../transport/transport.js';

/**
 * The stdio front's transport, which learns the client's era from how it opens (2026-07-28,
 * "Backward Compatibility"): a first request whose `_meta` claims the stateless era makes the
 * connection one of that era, served through a {@link EraBridge}; anything else makes it one of
 * the session era, after which the gate steps aside (messages go straight between the stream and
 * the session). A `server/discover` probe does not decide: a client that probes and then sends
 * `initialize` is served in the session era, its `initialize` answered from the handshake the
 * probe made.
 */
export class StdioEraGate implements Transport {
  onmessage?: (value: unknown, relatedTo?: JsonRpcId) => void;
  onmalformed?: (error: McpError, line: string | undefined) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  oncongestion?: (congested: boolean) => void;

  readonly #inner: Transport;
  readonly #createBridge: () => EraBridge;
  readonly #log: Logger;
  #era: 'open' | 'probing' | 'stateless' | 'session' = 'open';
  #bridge: EraBridge | undefined;
  /** The stateless-era client's requests in flight, by its id: how to cancel each. */
  readonly #cancels = new Map<JsonRpcId, (reason?: string) => void>();

  constructor(inner: Transport, createBridge: () => EraBridge, log: Logger) {
    this.#inner = inner;
    this.#createBridge = createBridge;
    this.#log = log;
  }

  /** The era the client chose, once it has. */
  get era(): 'stateless' | 'session' | undefined {
    return this.#era === 'open' || this.#era === 'probing' ? undefined : this.#era;
  }

  start(): Promise<void> {
    const inner = this.#inner;
    inner.onmessage = (value) => this.#receive(value);
    inner.onmalformed = (error, line) => {
      if (this.#era === 'stateless' || this.#era === 'probing') this.#write(errorResponse(null, error.toJSON()));
      else this.onmalformed?.(error, line);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.oncongestion = (congested) => this.oncongestion?.(congested);
    return inner.start();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], relatedTo?: JsonRpcId): void {
    if (this.#bridge !== undefined && this.#era !== 'session') this.#bridge.send(message, relatedTo);
    else this.#inner.send(message, relatedTo);
  }

  close(): Promise<void> {
    void this.#bridge?.close();
    return this.#inner.close();
  }

  pause(): void {
    this.#inner.pause?.();
  }

  resume(): void {
    this.#inner.resume?.();
  }

  #receive(value: unknown): void {
    switch (this.#era) {
      case 'session':
        this.onmessage?.(value);
        return;
      case 'open':
        if (!this.#claimsStateless(value)) {
          this.#pinSessionEra();
          this.onmessage?.(value);
          return;
        }
        this.#stateless(value);
        return;
      default:
        this.#stateless(value);
    }
  }

  #claimsStateless(value: unknown): boolean {
    const classified = classifyMessage(value);
    return classified.kind === 'request' && claimsStatelessEra(classified.message.params);
  }

  /** The session era: from now on the stream talks to the session directly. */
  #pinSessionEra(): void {
    this.#era = 'session';
    const { onmessage, onmalformed } = this;
    if (onmessage !== undefined) this.#inner.onmessage = onmessage;
    if (onmalformed !== undefined) this.#inner.onmalformed = onmalformed;
  }

  /** A message on a connection of the stateless era (or one that opened with a discover probe). */
  #stateless(value: unknown): void {
    if (Array.isArray(value)) {
      this.#write(errorResponse(null, { code: ErrorCode.InvalidRequest, message: 'Invalid Request: protocol version 2026-07-28 has no batches' }));
      return;
    }
    const classified = classifyMessage(value);
    if (classified.kind === 'invalid') {
      this.#write(errorResponse(classified.id, classified.error));
      return;
    }
    if (classified.kind === 'response') return;
    const message = classified.message;
    if (classified.kind === 'notification') {
      const requestId = message.params?.requestId;
      if (message.method === 'notifications/cancelled' && (typeof requestId === 'string' || typeof requestId === 'number')) {
        const reason = message.params?.reason;
        this.#cancels.get(requestId)?.(typeof reason === 'string' ? reason : undefined);
      }
      return;
    }
    const { id, method, params } = classified.message;
    if (this.#era === 'probing' && method === 'initialize' && !claimsStatelessEra(params)) {
      this.#fallBack(id, params?.protocolVersion);
      return;
    }
    let envelope;
    try {
      envelope = readStatelessEnvelope(params, STATELESS_ERA_VERSIONS);
    } catch (error) {
      this.#write(errorResponse(id, error instanceof McpError ? error.toJSON() : { code: ErrorCode.InternalError, message: 'Internal error' }));
      return;
    }
    if (this.#era === 'open' || this.#era === 'probing') this.#era = method === 'server/discover' ? 'probing' : 'stateless';
    const bridge = (this.#bridge ??= this.#openBridge());
    this.#cancels.get(id)?.('The client reused the id of a request in flight');
    // An answer may come at once (a refusal), before there is anything to cancel.
    const handle: { cancel?: (reason?: string) => void; answered?: true } = {};
    handle.cancel = bridge.request(classified.message, envelope, {
      push: (notification) => this.#write(notification),
      answer: (response) => {
        handle.answered = true;
        if (handle.cancel !== undefined && this.#cancels.get(id) === handle.cancel) this.#cancels.delete(id);
        this.#write(response);
      },
    });
    if (handle.answered === undefined) this.#cancels.set(id, handle.cancel);
  }

  #openBridge(): EraBridge {
    const bridge = this.#createBridge();
    bridge.onmessage = (value) => this.onmessage?.(value);
    this.#log.debug('the client speaks protocol version 2026-07-28');
    return bridge;
  }

  /**
   * `initialize` after a discover probe: the client chose the session era after all. The probe's
   * handshake is the session's; its result answers the client's `initialize`.
   */
  #fallBack(id: JsonRpcId, requested: unknown): void {
    const result = this.#bridge?.initializeResult;
    if (result === undefined) {
      this.#write(errorResponse(id, { code: ErrorCode.InvalidRequest, message: 'Invalid Request: initialize came while the discover probe was still being answered; try again' }));
      return;
    }
    this.#pinSessionEra();
    // The client's version when the chain serves it (the session's upstream speaks the newest).
    const version = typeof requested === 'string' ? negotiateVersion(requested) : result.protocolVersion;
    this.#write(resultResponse(id, { ...result, protocolVersion: version }));
  }

  #write(message: JsonRpcResponse | JsonRpcMessage): void {
    this.#inner.send(message);
  }
}

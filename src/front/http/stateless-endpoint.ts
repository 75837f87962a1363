import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../errors/error-code.js';
import { HttpError } from '../../errors/http-error.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import type { JsonRpcRequest, JsonRpcResponse } from '../../message/jsonrpc.js';
import { classifyMessage } from '../../message/parse-message.js';
import { claimsStatelessEra, readStatelessEnvelope, type StatelessEnvelope } from '../../eras/stateless-envelope.js';
import { checkStatelessHeaders } from '../../eras/stateless-headers.js';
import { checkParamHeaders } from '../../eras/param-headers.js';
import { requestDigest, type RequestStateCodec } from '../../eras/request-state.js';
import { EraBridge, ERA_BRIDGE_DEFAULTS } from '../../eras/era-bridge.js';
import { isStatelessEraVersion, SERVED_VERSIONS, STATELESS_ERA_VERSIONS } from '../../eras/versions.js';
import { Session, type SessionOptions } from '../../session/session.js';
import type { Identity } from '../../core/session-info.js';
import type { Upstream } from '../../core/upstream.js';
import { PostExchange } from './post-exchange.js';
import type { PostBody } from './post-messages.js';
import type { SessionEntry, SessionTable } from './session-table.js';

export interface StatelessHttpOptions {
  upstream: Upstream;
  session: SessionOptions;
  log: Logger;
  /** The server's sessions: a bridge's session counts among them (limit, expiry, drain). */
  sessions: SessionTable;
  /** Seals the `requestState` of `input_required` results (one key per server). */
  codec: RequestStateCodec;
  maxInFlightPerSession: number;
  /** A front with OAuth: the step-up challenge of a call refused for want of scopes (see `StreamableHttpOptions`). */
  scopeChallenge?: ((needed: readonly string[], held: readonly string[]) => string) | undefined;
}

/** A request of the stateless era, its envelope and headers checked. */
export interface StatelessRequest {
  readonly message: JsonRpcRequest;
  readonly envelope: StatelessEnvelope;
}

/**
 * What a POST is, by the 2026-07-28 rules (Streamable HTTP, "Request Metadata"; the order is the
 * one its conformance suite checks): a request whose `_meta` claims the stateless era, checked
 * (a missing or invalid envelope key: 400 -32602; a header that does not match the body: 400
 * -32020; a version not served: 400 -32022 with `supported` and `requested`); `'notification'`
 * for a notification of that era (there are none to act on: 202); undefined for a POST of the
 * session era. A POST whose `MCP-Protocol-Version` names the stateless era but whose body does
 * not is refused: 400 -32020 for `initialize`, else 400 -32602. Every refusal echoes the id.
 */
export function classifyStatelessPost(req: IncomingMessage, body: PostBody): StatelessRequest | 'notification' | undefined {
  const header = req.headers['mcp-protocol-version'];
  const headerIsStateless = typeof header === 'string' && isStatelessEraVersion(header.trim());
  if (body.batch) {
    if (headerIsStateless || body.values.some((value) => claims(value))) {
      throw new HttpError(400, 'Invalid Request: protocol version 2026-07-28 has no batches', { code: ErrorCode.InvalidRequest });
    }
    return undefined;
  }
  const classified = classifyMessage(body.values[0]);
  if (classified.kind === 'notification') return headerIsStateless || claimsStatelessEra(classified.message.params) ? 'notification' : undefined;
  if (classified.kind !== 'request') return undefined;
  const message = classified.message;
  if (!claimsStatelessEra(message.params)) {
    if (!headerIsStateless) return undefined;
    if (message.method === 'initialize') {
      throw new HttpError(400, `Header mismatch: MCP-Protocol-Version ${String(header)} does not go with initialize`, { code: ErrorCode.HeaderMismatch, id: message.id });
    }
    throw refusal(readEnvelopeError(message), message);
  }
  let envelope: StatelessEnvelope;
  try {
    envelope = readStatelessEnvelope(message.params, STATELESS_ERA_VERSIONS);
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    if (error.code === ErrorCode.UnsupportedProtocolVersion) {
      // A header that disagrees with the body is the first thing wrong.
      const requested = (error.data as { requested?: unknown } | undefined)?.requested;
      if (typeof requested === 'string') checkHeaders(req, message, requested);
    }
    throw refusal(error, message);
  }
  checkHeaders(req, message, envelope.protocolVersion);
  return { message, envelope };
}

/**
 * The 2026-07-28 side of the Streamable HTTP endpoint: each request is answered on its own POST
 * (JSON, or SSE once something belongs to it before the answer), through a {@link EraBridge}
 * to a session of the session era. Clients that present the same principal (and scopes),
 * capabilities and client info share one such session (its upstream handshake states exactly what
 * they can do), which expires when idle like any other.
 */
export class StatelessHttpEndpoint {
  readonly #options: StatelessHttpOptions;
  /** The bridges' sessions, by who uses them and what they declared. */
  readonly #pool = new Map<string, PooledSession>();

  constructor(options: StatelessHttpOptions) {
    this.#options = options;
  }

  async handle(req: IncomingMessage, res: ServerResponse, request: StatelessRequest, identity: Identity | undefined): Promise<void> {
    const { message, envelope } = request;
    const sessions = this.#options.sessions;
    if (sessions.draining) throw sessions.shuttingDown(message.id);
    const entry = this.#entryFor(identity, envelope);
    entry.lastSeen = Date.now();
    if (message.method === 'tools/call') await checkToolHeaders(req, message, envelope, entry.transport.bridge);
    const max = this.#options.maxInFlightPerSession;
    if (entry.transport.bridge.inFlight >= max) {
      throw new HttpError(429, `Too Many Requests: at most ${max} requests in flight per client`, {
        code: ErrorCode.InvalidRequest,
        id: message.id,
        headers: { 'retry-after': '1' },
      });
    }
    const exchanges = entry.transport.exchanges;
    const exchange = new PostExchange(res, {
      waiting: [message.id],
      batch: false,
      headers: {},
      nextStreamName: () => '1',
      priming: false,
      session: { id: entry.id, store: undefined, congested: () => undefined },
      statusOf: statusOfAnswer,
      ...this.#stepUp(identity),
    });
    exchanges.add(exchange);
    const cancel = entry.transport.bridge.request(message, envelope, {
      push: (notification) => {
        if (exchange.connected) exchange.push(notification);
      },
      answer: (response) => {
        exchanges.delete(exchange);
        exchange.answer(response);
      },
    });
    // Closing the response stream cancels the request (2026-07-28, "Cancellation").
    res.on('close', () => {
      if (exchange.done) return;
      exchanges.delete(exchange);
      cancel('The HTTP client closed the response stream');
    });
  }

  /** A lone -32004 of `requireScopes` goes out as 403 with a step-up challenge, as on the session-era side. */
  #stepUp(identity: Identity | undefined): { scopeChallenge?: (needed: readonly string[]) => string | undefined } {
    const challenge = this.#options.scopeChallenge;
    const held = identity?.scopes;
    if (challenge === undefined || held === undefined) return {};
    return { scopeChallenge: (needed) => challenge(needed, held) };
  }

  /** The pooled session for this principal, capabilities and client info (opened when there is none). */
  #entryFor(identity: Identity | undefined, envelope: StatelessEnvelope): PooledSession {
    const principal = identity === undefined ? '' : `${identity.issuer ?? ''} ${identity.method} ${identity.id}`;
    // The scopes too: middleware judge a call by its session's identity (requireScopes), so a token
    // with other scopes never shares a session with this one.
    const scopes = identity?.scopes === undefined ? null : [...identity.scopes].sort();
    const key = requestDigest('pool', { principal, scopes, capabilities: envelope.clientCapabilities, clientInfo: envelope.clientInfo ?? null });
    const found = this.#pool.get(key);
    if (found !== undefined && !found.session.closing) {
      // The same principal and scopes, maybe a newer token: its claims are the session's from now on.
      if (identity !== undefined) found.session.updateIdentity(identity);
      return found;
    }
    const { upstream, log, codec, sessions } = this.#options;
    const entry = sessions.open((id): PooledSession => {
      const bridge = new EraBridge({ ...ERA_BRIDGE_DEFAULTS, codec, principal, supportedVersions: SERVED_VERSIONS, log });
      const session = new Session(bridge, upstream, { ...this.#options.session, ...(identity === undefined ? {} : { identity }) });
      const transport: BridgeHandle = {
        bridge,
        exchanges: new Set(),
        keepAlive() {
          for (const exchange of this.exchanges) exchange.stream?.keepAlive();
        },
      };
      return { id, transport, session, identity, idle: () => bridge.inFlight === 0, lastSeen: Date.now() };
    });
    const leaveTable = entry.session.onclose;
    entry.session.onclose = () => {
      leaveTable?.();
      if (this.#pool.get(key) === entry) this.#pool.delete(key);
    };
    this.#pool.set(key, entry);
    void entry.session.start();
    return entry;
  }
}

/** What the session table keeps of a bridge's session: the bridge, and the POSTs it answers. */
interface BridgeHandle {
  readonly bridge: EraBridge;
  readonly exchanges: Set<PostExchange>;
  keepAlive(): void;
}

type PooledSession = SessionEntry<BridgeHandle>;

/**
 * The `Mcp-Param-*` headers of a `tools/call` against its arguments, by the tool's `x-mcp-header`
 * declarations (as the chain lists the tool): 400 -32020 when one is missing, does not match, or
 * cannot be decoded. A tool whose declarations are invalid is not checked (a client leaves it out).
 */
async function checkToolHeaders(req: IncomingMessage, message: JsonRpcRequest, envelope: StatelessEnvelope, bridge: EraBridge): Promise<void> {
  const name = message.params?.name;
  if (typeof name !== 'string') return;
  let declared;
  try {
    declared = await bridge.paramHeadersFor(name, envelope);
  } catch {
    // The tools could not be listed: the call itself will say what is wrong.
    return;
  }
  if (declared === undefined || declared.length === 0) return;
  try {
    checkParamHeaders(declared, req.headers, message.params?.arguments);
  } catch (error) {
    if (error instanceof McpError) throw refusal(error, message);
    throw error;
  }
}

/** 2026-07-28: a method the server does not implement is 404; a missing client capability 400. */
function statusOfAnswer(answer: JsonRpcResponse): number {
  if (!('error' in answer)) return 200;
  if (answer.error.code === ErrorCode.MethodNotFound) return 404;
  if (answer.error.code === ErrorCode.MissingRequiredClientCapability) return 400;
  return 200;
}

function claims(value: unknown): boolean {
  const classified = classifyMessage(value);
  return classified.kind !== 'invalid' && classified.kind !== 'response' && claimsStatelessEra(classified.message.params);
}

function checkHeaders(req: IncomingMessage, message: JsonRpcRequest, version: string): void {
  try {
    checkStatelessHeaders(req.headers, message.method, message.params, version);
  } catch (error) {
    if (error instanceof McpError) throw refusal(error, message);
    throw error;
  }
}

/** The envelope error of a request whose `_meta` claims nothing (what is missing). */
function readEnvelopeError(message: JsonRpcRequest): McpError {
  try {
    readStatelessEnvelope(message.params, STATELESS_ERA_VERSIONS);
  } catch (error) {
    if (error instanceof McpError) return error;
  }
  return new McpError(ErrorCode.InvalidParams, 'Invalid params: the request has no 2026-07-28 envelope');
}

function refusal(error: McpError, message: JsonRpcRequest): HttpError {
  return new HttpError(400, error.message, { code: error.code, id: message.id, data: error.data });
}

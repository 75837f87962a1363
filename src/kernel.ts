// mcp-chain/kernel: the pieces under a chain, for people who build transports, fronts or
// upstreams of their own. Chain and middleware authors need only the root entry ('mcp-chain').

// Correlation and lifecycle
export { Session, type SessionOptions, type DrainResult } from './session/session.js';
export type { TimeoutOptions } from './session/timeouts.js';
export { Peer, type IncomingScope, type OutgoingOptions, type PeerHandlers, type PeerOptions } from './rpc/peer.js';
export { CancelScope } from './core/cancel-scope.js';
export { requestScope, type RequestScope } from './core/request-scope.js';
export type { Downstream } from './core/downstream.js';
export type { Identity, SessionInfo } from './core/session-info.js';
export type { Upstream, UpstreamConnection } from './core/upstream.js';
export type { UpstreamStatus, UpstreamStatusListener } from './core/upstream-status.js';
export { StatusReporter } from './core/status-reporter.js';

// The onion, without a Chain around it
export { compose, type Composed, type Terminal } from './chain/compose.js';
export { createContext, type ContextInit } from './chain/context.js';

// Framing and the wire
export type { Transport } from './transport/transport.js';
export { StreamTransport, type StreamTransportOptions } from './transport/stream-transport.js';
export type {
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcResultResponse,
} from './message/jsonrpc.js';
export { toWireError, type WireError } from './errors/to-wire-error.js';
export { HttpError } from './errors/http-error.js';

// Logging
export { stderrLogger, silentLogger, type StderrLoggerOptions } from './log/stderr-logger.js';

// Pieces of the built-in upstreams and fronts
export { LocalServer, localCallContext } from './upstream/local.js';
export { SharedUpstream } from './upstream/shared/index.js';
export { MemoryEventStore, type EventStore, type MemoryEventStoreOptions, type StoredEvent } from './front/http/event-store.js';

// mcp-chain/kernel: the pieces under a chain, for people who serve a chain from their own program
// or build transports, fronts or upstreams of their own. Chain and middleware authors need only the
// root entry ('mcp-chain'); each built-in middleware is on its own subpath ('mcp-chain/<name>').
// Names here are not repeated on the root, and the root's are not repeated here.

// Fronts: serve a chain (any Upstream) to clients, and the verifiers of the HTTP front's tokens
export { serveStdio, type ServeStdioOptions, type StdioFront } from './front/serve-stdio.js';
export { serveHttp, type HttpFront, type ServeHttpOptions } from './front/http/serve-http.js';
export type { AuthOptions } from './front/http/authenticator.js';
export type { OAuthResourceOptions } from './front/http/oauth-resource.js';
export { MemoryEventStore, type EventStore, type MemoryEventStoreOptions, type StoredEvent } from './front/http/event-store.js';
export { TokenRefusal, type TokenVerifier, type VerifiedToken } from './auth/token-verifier.js';
export { DEFAULT_CLOCK_TOLERANCE_SEC, DEFAULT_JWT_ALGORITHMS, jwtVerifier, type JwtVerifierOptions } from './auth/jwt-verifier.js';
export { introspectionVerifier, type IntrospectionVerifierOptions } from './auth/introspection-verifier.js';

// Correlation and lifecycle
export { Session, type SessionOptions, type DrainResult } from './session/session.js';
export type { TimeoutOptions } from './session/timeouts.js';
export { Peer, type IncomingScope, type OutgoingOptions, type PeerHandlers, type PeerOptions } from './rpc/peer.js';
export { CancelScope } from './core/cancel-scope.js';
export { requestScope } from './core/request-scope.js';

// What an upstream implements (the Upstream contract itself is on the root)
export type { UpstreamConnection } from './core/upstream.js';
export type { UpstreamStatus, UpstreamStatusListener } from './core/upstream-status.js';
export { StatusReporter } from './core/status-reporter.js';
export { localCallContext } from './upstream/local.js';
export { LoginRequiredError } from './auth/client/login-required-error.js';

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

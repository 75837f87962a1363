// mcp-chain: middleware framework and proxy for the Model Context Protocol.
export { chain, Chain, isChain } from './chain/chain.js';
export { compose, type Composed, type Terminal } from './chain/compose.js';
export { createContext, type Context, type ContextInit, type ContextState, type Direction } from './chain/context.js';
export type { Middleware, Next } from './chain/middleware.js';
export { on, type NotificationHandler, type NotificationOf, type RequestHandler, type RequestOf } from './chain/on.js';
export { mapList } from './chain/map-list.js';
export { when } from './chain/when.js';
export { ErrorCode } from './errors/error-code.js';
export { McpError } from './errors/mcp-error.js';
export { CancelledError } from './errors/cancelled-error.js';
export { ChainError, type ChainErrorCode } from './errors/chain-error.js';
export type { Logger, LogFields, LogLevel } from './log/logger.js';
export { stderrLogger, silentLogger } from './log/stderr-logger.js';
export type {
  JsonObject,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  McpMessage,
  Reply,
  Result,
} from './message/jsonrpc.js';
export { Session, type SessionOptions } from './session/session.js';
export type { TimeoutOptions } from './session/timeouts.js';
export type { Transport } from './transport/transport.js';
export { StreamTransport } from './transport/stream-transport.js';
export type { Downstream } from './core/downstream.js';
export type { Identity, SessionInfo } from './core/session-info.js';
export type { RequestScope } from './core/request-scope.js';
export type { Upstream, UpstreamConnection } from './core/upstream.js';
export {
  local,
  localCallContext,
  LocalServer,
  type LocalCallContext,
  type LocalPrompt,
  type LocalResource,
  type LocalServerOptions,
  type LocalTool,
} from './upstream/local.js';
export { filter, type FilterOptions, type FilterRule } from './middleware/filter/index.js';
export { rename, type RenameOptions, type Renaming } from './middleware/rename/index.js';
export { log, type LogEntry, type LogMiddleware, type LogOptions } from './middleware/log/index.js';
export { lint, type LintMiddleware, type LintOptions, type Violation } from './middleware/lint/index.js';
export { harness, Harness, type HarnessOptions } from './testing/harness.js';
export { stdio, type StdioOptions } from './upstream/stdio.js';
export { http, sse, type HttpOptions } from './upstream/http/index.js';
export { shared, SharedUpstream, type SharedOptions } from './upstream/shared/index.js';
export { serveStdio, type ServeStdioOptions, type StdioFront } from './front/serve-stdio.js';
export { serveHttp, type HttpFront, type ServeHttpOptions } from './front/http/serve-http.js';
export { MemoryEventStore, type EventStore, type MemoryEventStoreOptions, type StoredEvent } from './front/http/event-store.js';
export type { AuthOptions } from './front/http/authenticator.js';
export { HttpError } from './errors/http-error.js';
export { withLocal } from './middleware/with-local/index.js';

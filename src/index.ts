// mcp-chain: middleware framework and proxy for the Model Context Protocol.
// The root entry is what a chain or middleware author needs. Kernel pieces for people who build
// transports or fronts are in `mcp-chain/kernel`, the test harness in `mcp-chain/testing`.
// Every name here is deliberate: api/ holds the report of each entry, and a test compares it.

// Chains and middleware
export { chain, Chain, isChain } from './chain/chain.js';
export type { Context, ContextState, Direction } from './chain/context.js';
export type { Middleware, Next, NextOptions } from './chain/middleware.js';
export {
  on,
  type HookableNotificationMethod,
  type HookableRequestMethod,
  type NotificationHandler,
  type NotificationOf,
  type RequestHandler,
  type RequestOf,
} from './chain/on.js';
export { mapList } from './chain/map-list.js';
export { when } from './chain/when.js';

// Errors
export { ErrorCode } from './errors/error-code.js';
export { McpError } from './errors/mcp-error.js';
export { CancelledError } from './errors/cancelled-error.js';
export { ChainError, type ChainErrorCode } from './errors/chain-error.js';

// Messages, logging, and the contract between a chain and what it forwards to
export type { JsonObject, McpMessage, Reply, Result } from './message/jsonrpc.js';
export type { Logger, LogFields, LogLevel } from './log/logger.js';
export type { Downstream } from './core/downstream.js';
export type { RequestScope } from './core/request-scope.js';
export type { Identity, SessionInfo } from './core/session-info.js';
export type { Upstream, UpstreamConnection } from './core/upstream.js';
export type { UpstreamStatus, UpstreamStatusListener } from './core/upstream-status.js';
export type { TimeoutOptions } from './session/timeouts.js';

// Upstreams
export {
  local,
  type LocalCallContext,
  type LocalPrompt,
  type LocalResource,
  type LocalServer,
  type LocalServerOptions,
  type LocalTool,
} from './upstream/local.js';
export { stdio, type StdioOptions } from './upstream/stdio.js';
export { http, sse, type HttpOptions } from './upstream/http/index.js';
export { shared, type SharedOptions, type SharedUpstream } from './upstream/shared/index.js';
export { aggregate, type Aggregate } from './upstream/aggregate/aggregate.js';
export type { AggregateMember, AggregateOptions } from './upstream/aggregate/aggregate-options.js';
export {
  commands,
  type CommandAnnotations,
  type CommandArg,
  type CommandParameter,
  type CommandParameterType,
  type CommandParameterValue,
  type CommandsOptions,
  type CommandTool,
} from './upstream/commands/commands.js';

// Config files
export { defineConfig, type BuiltinMiddlewareName, type ConfigInput, type HttpFrontInput, type MiddlewareInput, type ServerInput, type UpstreamOAuthInput } from './config/define-config.js';

// Built-in middleware
export { filter, type FilterOptions, type FilterRule } from './middleware/filter/index.js';
export { rename, type RenameOptions, type Renaming } from './middleware/rename/index.js';
export { log, type LogEntry, type LogMiddleware, type LogOptions } from './middleware/log/index.js';
export { lint, type LintMiddleware, type LintOptions, type Violation } from './middleware/lint/index.js';
export { withLocal } from './middleware/with-local/index.js';
export { validate, type SchemaViolation, type ValidateOptions } from './middleware/validate/index.js';
export { transform, type ArgumentTransform, type Narrowing, type ToolTransform, type TransformOptions } from './middleware/transform/index.js';
export {
  rateLimit,
  RATE_LIMITED,
  type ConcurrencyRule,
  type RateLimitedData,
  type RateLimitKey,
  type RateLimitOptions,
  type RateLimitRule,
} from './middleware/rate-limit/index.js';
export { cache, type CacheMiddleware, type CacheOptions, type CacheStats, type CacheTtl } from './middleware/cache/index.js';
export { timeout, type TimeoutMiddlewareOptions } from './middleware/timeout/index.js';
export { retry, type RetryOn, type RetryOptions } from './middleware/retry/index.js';
export {
  redact,
  createRedactor,
  redactValue,
  type BuiltinDetectorName,
  type CustomDetector,
  type RedactOptions,
  type Redactor,
  type RedactorOptions,
} from './middleware/redact/index.js';
export { limitResult, type LimitResultOptions, type ResultCap } from './middleware/limit-result/index.js';
export { audit, type AuditMiddleware, type AuditOptions, type AuditRecord } from './middleware/audit/index.js';
export {
  approve,
  APPROVAL_DENIED,
  type ApprovalDeniedData,
  type ApprovalHints,
  type ApprovalRecord,
  type ApproveOptions,
  type DenyReason,
} from './middleware/approve/index.js';
export { discover, type DiscoverOptions, type MetaToolNames } from './middleware/discover/index.js';
export {
  defaultPinStorePath,
  pin,
  PinStore,
  PinStoreError,
  type AcceptedChange,
  type PendingChange,
  type PinChangeAction,
  type PinCheckOptions,
  type PinEntry,
  type PinFile,
  type PinNewAction,
  type PinOptions,
  type PinScanOptions,
  type PinStoreOptions,
  type PinVerdict,
  type PoisonRule,
  type SeenTool,
} from './middleware/pin/index.js';
export {
  INSUFFICIENT_SCOPE,
  requireScopes,
  type InsufficientScopeData,
  type RequireScopesOptions,
  type ScopeRequirement,
} from './middleware/require-scopes/index.js';

// Fronts
export { serveStdio, type ServeStdioOptions, type StdioFront } from './front/serve-stdio.js';
export { serveHttp, type HttpFront, type ServeHttpOptions } from './front/http/serve-http.js';
export type { AuthOptions } from './front/http/authenticator.js';
export type { OAuthResourceOptions } from './front/http/oauth-resource.js';
export { TokenRefusal, type TokenVerifier, type VerifiedToken } from './auth/token-verifier.js';
export { DEFAULT_CLOCK_TOLERANCE_SEC, DEFAULT_JWT_ALGORITHMS, jwtVerifier, type JwtVerifierOptions } from './auth/jwt-verifier.js';
export { introspectionVerifier, type IntrospectionVerifierOptions } from './auth/introspection-verifier.js';
export type { Principal, UpstreamAuth, UpstreamRefusal } from './auth/upstream-auth.js';
export type { PreregisteredClient, TokenExchangeOptions, UpstreamGrant, UpstreamOAuthOptions } from './auth/client/upstream-oauth-options.js';
export { LoginRequiredError } from './auth/client/login-required-error.js';

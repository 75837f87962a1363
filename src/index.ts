// mcp-chain: middleware framework and proxy for the Model Context Protocol.
//
// The root entry is what a chain or middleware author needs, and nothing else: the chain and its
// sugar, the context a middleware sees, the errors it throws, the upstreams a chain ends in, and
// `defineConfig`. Everything else has one home of its own (docs/architecture.md, "The public
// surface"):
//   - each built-in middleware: `mcp-chain/<name>` (`import { filter } from 'mcp-chain/filter'`),
//     with its options types;
//   - the pieces under a chain (Session, Peer, transports, the stdio and HTTP fronts and their
//     token verifiers, the types an upstream implements): `mcp-chain/kernel`;
//   - the test harness: `mcp-chain/testing`; the config file's JSON Schema: `mcp-chain/config.schema.json`.
// Every name is exported from exactly one entry; api/ holds the report of each, and a test compares it.

// A chain: middleware in front of an upstream, and the sugar for writing middleware.
export { chain, Chain, isChain } from './chain/chain.js';
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

// What a middleware sees: the context, the message, the session, the way back to the client.
export type { Context, ContextState, Direction } from './chain/context.js';
export type { JsonObject, McpMessage, Reply, Result } from './message/jsonrpc.js';
export type { Identity, SessionInfo } from './core/session-info.js';
export type { Downstream } from './core/downstream.js';
export type { RequestScope } from './core/request-scope.js';
export type { Logger, LogFields, LogLevel } from './log/logger.js';

// Errors: McpError goes to the client as is; ChainError is a mistake in the chain (never sent).
export { ErrorCode } from './errors/error-code.js';
export { McpError } from './errors/mcp-error.js';
export { CancelledError } from './errors/cancelled-error.js';
export { ChainError, type ChainErrorCode } from './errors/chain-error.js';

// Upstreams: where a chain ends (`chain(...).to(upstream)`); a Chain is one too.
export type { Upstream } from './core/upstream.js';
export { stdio, type StdioOptions } from './upstream/stdio.js';
export { http, sse, type HttpOptions, type Principal, type UpstreamAuth, type UpstreamRefusal } from './upstream/http/index.js';
export type { PreregisteredClient, TokenExchangeOptions, UpstreamGrant, UpstreamOAuthOptions } from './auth/client/upstream-oauth-options.js';
export {
  local,
  type LocalCallContext,
  type LocalPrompt,
  type LocalResource,
  type LocalServer,
  type LocalServerOptions,
  type LocalTool,
} from './upstream/local.js';
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
export { shared, type SharedOptions, type SharedUpstream } from './upstream/shared/index.js';
export { aggregate, type Aggregate } from './upstream/aggregate/aggregate.js';
export type { AggregateMember, AggregateOptions } from './upstream/aggregate/aggregate-options.js';

// Config files written in TypeScript: `export default defineConfig({ ... })`.
export {
  defineConfig,
  type BuiltinMiddlewareName,
  type ConfigInput,
  type HttpFrontInput,
  type MiddlewareInput,
  type ServerInput,
  type UpstreamOAuthInput,
} from './config/define-config.js';

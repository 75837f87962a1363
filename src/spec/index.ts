/**
 * The MCP specification as types: the most used types generated from the 2025-11-25 schema,
 * the method → params/result map, and the protocol-version constants.
 * Anything else from the schema is in ./2025-11-25.js (e.g. its `Result`, `Error` and JSON-RPC
 * envelope types, left out here so as not to clash with src/message's own).
 */
export type {
  // Tools
  Tool,
  ToolAnnotations,
  ToolExecution,
  CallToolRequestParams,
  CallToolResult,
  ListToolsResult,
  // Prompts
  Prompt,
  PromptArgument,
  PromptMessage,
  GetPromptRequestParams,
  GetPromptResult,
  ListPromptsResult,
  // Resources
  Resource,
  ResourceTemplate,
  TextResourceContents,
  BlobResourceContents,
  ReadResourceRequestParams,
  ReadResourceResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  SubscribeRequestParams,
  UnsubscribeRequestParams,
  ResourceUpdatedNotificationParams,
  // Content
  ContentBlock,
  TextContent,
  ImageContent,
  AudioContent,
  ResourceLink,
  EmbeddedResource,
  Annotations,
  Role,
  Icon,
  // Lifecycle
  InitializeRequestParams,
  InitializeResult,
  ServerCapabilities,
  ClientCapabilities,
  Implementation,
  // Utilities
  RequestId,
  RequestParams,
  NotificationParams,
  PaginatedRequestParams,
  PaginatedResult,
  Cursor,
  EmptyResult,
  ProgressToken,
  ProgressNotificationParams,
  CancelledNotificationParams,
  LoggingLevel,
  SetLevelRequestParams,
  LoggingMessageNotificationParams,
  CompleteRequestParams,
  CompleteResult,
  // Client features
  CreateMessageRequestParams,
  CreateMessageResult,
  SamplingMessage,
  ElicitRequestParams,
  ElicitResult,
  Root,
  ListRootsResult,
  // Tasks
  Task,
  TaskStatus,
  TaskMetadata,
  CreateTaskResult,
  // Message unions by direction
  ClientRequest,
  ServerRequest,
  ClientNotification,
  ServerNotification,
  ClientResult,
  ServerResult,
} from './2025-11-25.js';

export type {
  RequestMethods,
  NotificationMethods,
  RequestMethod,
  NotificationMethod,
  ClientRequestMethod,
  ServerRequestMethod,
  ClientNotificationMethod,
  ServerNotificationMethod,
  TaskAugmentableMethod,
  ParamsOf,
  ResultOf,
  NotificationParamsOf,
  ListMethods,
  ListKey,
  ListMethodOf,
  ListItemOf,
} from './methods.js';

export type { ProtocolVersion } from './versions.js';
export {
  SUPPORTED_PROTOCOL_VERSIONS,
  LATEST_PROTOCOL_VERSION,
  isSupportedVersion,
  supportsBatches,
} from './versions.js';

/**
 * Type-level map of every MCP method of the 2025-11-25 specification to its params and result,
 * built on the types generated from the specification's schema.json (./2025-11-25.ts).
 *
 * `params` is the request's (or notification's) `params` member exactly as the schema has it:
 * where the schema makes `params` optional (`ping`, the `x/list` requests, the `list_changed`
 * notifications, ...) the type includes `undefined`.
 *
 * The key sets are checked against the schema's ClientRequest/ServerRequest and
 * ClientNotification/ServerNotification unions in methods.test.ts, so regenerating the schema
 * types with a new method makes the type check fail until the method is added here.
 */
import type {
  CallToolRequest,
  CallToolResult,
  CancelledNotification,
  CancelTaskRequest,
  CancelTaskResult,
  ClientNotification,
  ClientRequest,
  CompleteRequest,
  CompleteResult,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitationCompleteNotification,
  ElicitRequest,
  ElicitResult,
  EmptyResult,
  GetPromptRequest,
  GetPromptResult,
  GetTaskPayloadRequest,
  GetTaskPayloadResult,
  GetTaskRequest,
  GetTaskResult,
  InitializedNotification,
  InitializeRequest,
  InitializeResult,
  ListPromptsRequest,
  ListPromptsResult,
  ListResourcesRequest,
  ListResourcesResult,
  ListResourceTemplatesRequest,
  ListResourceTemplatesResult,
  ListRootsRequest,
  ListRootsResult,
  ListTasksRequest,
  ListTasksResult,
  ListToolsRequest,
  ListToolsResult,
  LoggingMessageNotification,
  PingRequest,
  ProgressNotification,
  Prompt,
  PromptListChangedNotification,
  ReadResourceRequest,
  ReadResourceResult,
  Resource,
  ResourceListChangedNotification,
  ResourceTemplate,
  ResourceUpdatedNotification,
  RootsListChangedNotification,
  ServerNotification,
  ServerRequest,
  SetLevelRequest,
  SubscribeRequest,
  TaskStatusNotification,
  Tool,
  ToolListChangedNotification,
  UnsubscribeRequest,
} from './2025-11-25.js';

/**
 * Every request method, client→server and server→client, with its params and result.
 * `result` is the plain result; a task-augmented request (see {@link TaskAugmentableMethod})
 * whose params carry `task` is answered with a `CreateTaskResult` instead.
 */
export interface RequestMethods {
  // Lifecycle and utilities (both directions for ping).
  initialize: { params: InitializeRequest['params']; result: InitializeResult };
  ping: { params: PingRequest['params']; result: EmptyResult };
  // Server features (client→server).
  'tools/list': { params: ListToolsRequest['params']; result: ListToolsResult };
  'tools/call': { params: CallToolRequest['params']; result: CallToolResult };
  'prompts/list': { params: ListPromptsRequest['params']; result: ListPromptsResult };
  'prompts/get': { params: GetPromptRequest['params']; result: GetPromptResult };
  'resources/list': { params: ListResourcesRequest['params']; result: ListResourcesResult };
  'resources/templates/list': {
    params: ListResourceTemplatesRequest['params'];
    result: ListResourceTemplatesResult;
  };
  'resources/read': { params: ReadResourceRequest['params']; result: ReadResourceResult };
  'resources/subscribe': { params: SubscribeRequest['params']; result: EmptyResult };
  'resources/unsubscribe': { params: UnsubscribeRequest['params']; result: EmptyResult };
  'completion/complete': { params: CompleteRequest['params']; result: CompleteResult };
  'logging/setLevel': { params: SetLevelRequest['params']; result: EmptyResult };
  // Client features (server→client).
  'sampling/createMessage': { params: CreateMessageRequest['params']; result: CreateMessageResult };
  'elicitation/create': { params: ElicitRequest['params']; result: ElicitResult };
  'roots/list': { params: ListRootsRequest['params']; result: ListRootsResult };
  // Tasks (both directions).
  'tasks/get': { params: GetTaskRequest['params']; result: GetTaskResult };
  'tasks/result': { params: GetTaskPayloadRequest['params']; result: GetTaskPayloadResult };
  'tasks/cancel': { params: CancelTaskRequest['params']; result: CancelTaskResult };
  'tasks/list': { params: ListTasksRequest['params']; result: ListTasksResult };
}

/** Every notification method, in either direction, with its params. */
export interface NotificationMethods {
  'notifications/initialized': { params: InitializedNotification['params'] };
  'notifications/cancelled': { params: CancelledNotification['params'] };
  'notifications/progress': { params: ProgressNotification['params'] };
  'notifications/message': { params: LoggingMessageNotification['params'] };
  'notifications/tools/list_changed': { params: ToolListChangedNotification['params'] };
  'notifications/prompts/list_changed': { params: PromptListChangedNotification['params'] };
  'notifications/resources/list_changed': { params: ResourceListChangedNotification['params'] };
  'notifications/resources/updated': { params: ResourceUpdatedNotification['params'] };
  'notifications/roots/list_changed': { params: RootsListChangedNotification['params'] };
  'notifications/elicitation/complete': { params: ElicitationCompleteNotification['params'] };
  'notifications/tasks/status': { params: TaskStatusNotification['params'] };
}

export type RequestMethod = keyof RequestMethods;
export type NotificationMethod = keyof NotificationMethods;

/** Requests a client sends to a server. */
export type ClientRequestMethod = ClientRequest['method'];
/** Requests a server sends to a client. */
export type ServerRequestMethod = ServerRequest['method'];
/** Notifications a client sends to a server. */
export type ClientNotificationMethod = ClientNotification['method'];
/** Notifications a server sends to a client. */
export type ServerNotificationMethod = ServerNotification['method'];

/** Requests whose params may carry `task`, asking for task-augmented execution (answered with CreateTaskResult). */
export type TaskAugmentableMethod = 'tools/call' | 'sampling/createMessage' | 'elicitation/create';

export type ParamsOf<M extends RequestMethod> = RequestMethods[M]['params'];
export type ResultOf<M extends RequestMethod> = RequestMethods[M]['result'];
export type NotificationParamsOf<M extends NotificationMethod> = NotificationMethods[M]['params'];

/**
 * Which paginated list method returns which array key, for list-page helpers:
 * `ResultOf<ListMethods[K]['method']>[K]` is `ListMethods[K]['item'][]`.
 */
export interface ListMethods {
  tools: { method: 'tools/list'; item: Tool };
  prompts: { method: 'prompts/list'; item: Prompt };
  resources: { method: 'resources/list'; item: Resource };
  resourceTemplates: { method: 'resources/templates/list'; item: ResourceTemplate };
}

/** The array key of a list result: 'tools' | 'prompts' | 'resources' | 'resourceTemplates'. */
export type ListKey = keyof ListMethods;
/** The list method for a list key, e.g. ListMethodOf<'tools'> is 'tools/list'. */
export type ListMethodOf<K extends ListKey> = ListMethods[K]['method'];
/** The item type of a list key, e.g. ListItemOf<'tools'> is Tool. */
export type ListItemOf<K extends ListKey> = ListMethods[K]['item'];

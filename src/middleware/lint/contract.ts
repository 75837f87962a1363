/**
 * @module
 * The MCP contract as `lint` checks it: for each known method, which way it travels and the
 * essential shape of its params and result (what a peer cannot do without, not every field of the
 * schema). Written against the 2025-11-25 revision and true of the older ones it extends.
 */
import type { Direction } from '../../chain/context.js';
import { isJsonObject } from '../../message/parse-message.js';
import {
  all,
  array,
  boolean,
  branch,
  number,
  object,
  oneOf,
  optional,
  prefixed,
  present,
  record,
  type Shape,
  string,
  stringOrNumber,
} from './shape.js';

type Kind = 'request' | 'notification';

/** Known methods: a request or a notification, and the one way it travels (absent: both ways). */
export const METHODS: Readonly<Record<string, { kind: Kind; direction?: Direction }>> = {
  initialize: { kind: 'request', direction: 'toUpstream' },
  ping: { kind: 'request' },
  'tools/list': { kind: 'request', direction: 'toUpstream' },
  'tools/call': { kind: 'request', direction: 'toUpstream' },
  'prompts/list': { kind: 'request', direction: 'toUpstream' },
  'prompts/get': { kind: 'request', direction: 'toUpstream' },
  'resources/list': { kind: 'request', direction: 'toUpstream' },
  'resources/templates/list': { kind: 'request', direction: 'toUpstream' },
  'resources/read': { kind: 'request', direction: 'toUpstream' },
  'resources/subscribe': { kind: 'request', direction: 'toUpstream' },
  'resources/unsubscribe': { kind: 'request', direction: 'toUpstream' },
  'completion/complete': { kind: 'request', direction: 'toUpstream' },
  'logging/setLevel': { kind: 'request', direction: 'toUpstream' },
  'sampling/createMessage': { kind: 'request', direction: 'toDownstream' },
  'elicitation/create': { kind: 'request', direction: 'toDownstream' },
  'roots/list': { kind: 'request', direction: 'toDownstream' },
  'tasks/get': { kind: 'request' },
  'tasks/result': { kind: 'request' },
  'tasks/cancel': { kind: 'request' },
  'tasks/list': { kind: 'request' },
  'notifications/initialized': { kind: 'notification', direction: 'toUpstream' },
  'notifications/roots/list_changed': { kind: 'notification', direction: 'toUpstream' },
  'notifications/cancelled': { kind: 'notification' },
  'notifications/progress': { kind: 'notification' },
  'notifications/tasks/status': { kind: 'notification' },
  'notifications/message': { kind: 'notification', direction: 'toDownstream' },
  'notifications/resources/updated': { kind: 'notification', direction: 'toDownstream' },
  'notifications/resources/list_changed': { kind: 'notification', direction: 'toDownstream' },
  'notifications/tools/list_changed': { kind: 'notification', direction: 'toDownstream' },
  'notifications/prompts/list_changed': { kind: 'notification', direction: 'toDownstream' },
  'notifications/elicitation/complete': { kind: 'notification', direction: 'toDownstream' },
};

const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const role = oneOf('user', 'assistant');
const implementation = object({ name: string, version: string });
const content = object({ type: string });
const task = object({ taskId: string, status: oneOf('working', 'input_required', 'completed', 'failed', 'cancelled') });
const uri = object({ uri: string });

/** A page of a paginated list. */
function page(key: string, item: Shape): Shape {
  return object({ [key]: array(item), nextCursor: optional(string) });
}

/** A task-augmented request may be answered with a task instead of its result. */
function orTask(result: Shape): Shape {
  return branch((value) => isJsonObject(value) && value.task !== undefined, object({ task }), result);
}

/** A resource's contents carry `text` or `blob`. */
const textOrBlob: Shape = (value, path, problems) => {
  if (isJsonObject(value) && typeof value.text !== 'string' && typeof value.blob !== 'string') {
    problems.push(`${path}: expected a string text or blob, got neither`);
  }
};

/** A completion names a prompt or a resource. */
const completionRef: Shape = branch(
  (value) => isJsonObject(value) && value.type === 'ref/resource',
  object({ type: string, uri: string }),
  object({ type: oneOf('ref/prompt', 'ref/resource'), name: string }),
);

/** Params by method, beyond "an object if present" (checked on `params ?? {}`). */
export const PARAMS: Readonly<Record<string, Shape>> = {
  initialize: object({ protocolVersion: string, capabilities: object(), clientInfo: implementation }),
  'tools/list': object({ cursor: optional(string) }),
  'tools/call': object({ name: string, arguments: optional(object()), task: optional(object()) }),
  'prompts/list': object({ cursor: optional(string) }),
  'prompts/get': object({ name: string, arguments: optional(record(string)) }),
  'resources/list': object({ cursor: optional(string) }),
  'resources/templates/list': object({ cursor: optional(string) }),
  'resources/read': uri,
  'resources/subscribe': uri,
  'resources/unsubscribe': uri,
  'completion/complete': object({ ref: completionRef, argument: object({ name: string, value: string }) }),
  'logging/setLevel': object({ level: oneOf(...LOGGING_LEVELS) }),
  'sampling/createMessage': object({ messages: array(object({ role, content: present })), maxTokens: number }),
  'elicitation/create': object({ message: string }),
  'tasks/get': object({ taskId: string }),
  'tasks/result': object({ taskId: string }),
  'tasks/cancel': object({ taskId: string }),
  'notifications/progress': object({
    progressToken: stringOrNumber,
    progress: number,
    total: optional(number),
    message: optional(string),
  }),
  'notifications/message': object({ level: oneOf(...LOGGING_LEVELS), data: present, logger: optional(string) }),
  'notifications/cancelled': object({ requestId: optional(stringOrNumber), reason: optional(string) }),
  'notifications/resources/updated': uri,
  'notifications/tasks/status': task,
  'notifications/elicitation/complete': object({ elicitationId: string }),
};

/** Results by method, beyond "an object". */
export const RESULTS: Readonly<Record<string, Shape>> = {
  initialize: object({
    protocolVersion: string,
    capabilities: object(),
    serverInfo: implementation,
    instructions: optional(string),
  }),
  'tools/list': page(
    'tools',
    object({
      name: string,
      inputSchema: object({ type: oneOf('object') }),
      outputSchema: optional(object({ type: oneOf('object') })),
      description: optional(string),
    }),
  ),
  'tools/call': orTask(
    object({ content: array(content), isError: optional(boolean), structuredContent: optional(object()) }),
  ),
  'prompts/list': page(
    'prompts',
    object({ name: string, arguments: optional(array(object({ name: string, required: optional(boolean) }))) }),
  ),
  'prompts/get': object({ messages: array(object({ role, content })), description: optional(string) }),
  'resources/list': page('resources', object({ uri: string, name: string })),
  'resources/templates/list': page('resourceTemplates', object({ uriTemplate: string, name: string })),
  'resources/read': object({ contents: array(all(uri, textOrBlob)) }),
  'completion/complete': object({
    completion: object({ values: array(string, 100), total: optional(number), hasMore: optional(boolean) }),
  }),
  'sampling/createMessage': orTask(
    object({ role, content: branch(Array.isArray, array(content), content), model: string }),
  ),
  'elicitation/create': orTask(object({ action: oneOf('accept', 'decline', 'cancel'), content: optional(object()) })),
  'roots/list': object({ roots: array(object({ uri: prefixed('file://'), name: optional(string) })) }),
  'tasks/get': task,
  'tasks/cancel': task,
  'tasks/list': object({ tasks: array(task), nextCursor: optional(string) }),
};

/**
 * @module
 * `redact`: masks secrets and personal data (API keys and tokens, JWTs, e-mail addresses, card
 * numbers, private keys, patterns of your own) in what servers send back: tool results, resources,
 * prompts, errors and log notifications. Binary data is never touched.
 */
import type { Middleware } from '../../chain/middleware.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, McpMessage, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { createRedactor, type Redactor } from './redactor.js';
import type { RedactOptions } from './options.js';

export type { RedactOptions } from './options.js';

export type { BuiltinDetectorName } from './detectors.js';
export { createRedactor, redactValue, type CustomDetector, type Redactor, type RedactorOptions } from './redactor.js';

/** Requests whose results (and errors) are masked. */
const RESULTS = new Set(['tools/call', 'tasks/result', 'resources/read', 'prompts/get']);

/**
 * Masks secrets in what comes back from the server, before the client (and the model) sees it:
 *
 * - `tools/call` (and `tasks/result`): the `text` of text content, the `text` of embedded
 *   resources, and every string of `structuredContent` at any depth;
 * - `resources/read`: the `text` of each content;
 * - `prompts/get`: the text (and embedded resource text) of each message;
 * - the `message` and `data` of an error any of those requests answer with;
 * - `notifications/message` (`data`) and `notifications/progress` (`message`) from the server.
 *
 * Image and audio `data` and resource `blob`s are never touched. A secret becomes
 * `[REDACTED:<detector>]` (see `mask`). With `arguments: true`, `tools/call` arguments are masked
 * on the way up too. Detectors are compiled once; other methods pass straight on.
 *
 * Throws a `ChainError` ('CONFIG') for an unknown detector or an invalid custom pattern.
 *
 * @example
 * chain()
 *   .use(redact({ detectors: ['github-token', 'email'], custom: [{ name: 'employee-id', pattern: 'EMP-\\d{6}' }] }))
 *   .to(stdio({ command: 'jira-mcp' }));
 */
export function redact(options: RedactOptions = {}): Middleware {
  const redactor = createRedactor(options);
  const upArguments = options.arguments === true;

  return function redact(ctx, next) {
    const { method } = ctx;
    if (ctx.direction === 'toDownstream') {
      if (method === 'notifications/message' || method === 'notifications/progress') return next(maskNotification(ctx.message, redactor));
      return next();
    }
    if (!RESULTS.has(method)) return next();
    const sent = upArguments && method === 'tools/call' ? maskArguments(ctx.message, redactor) : ctx.message;
    return next(sent).then(
      (reply) => maskResult(method, reply, redactor),
      (error: unknown) => {
        throw maskError(error, redactor);
      },
    );
  };
}

function maskResult(method: string, reply: Reply, redactor: Redactor): Reply {
  if (!isJsonObject(reply)) return reply;
  switch (method) {
    case 'resources/read':
      return withList(reply, 'contents', (content) => maskResourceContents(content, redactor));
    case 'prompts/get':
      return withList(reply, 'messages', (message) => {
        if (!isJsonObject(message)) return message;
        const { content } = message;
        const masked = Array.isArray(content) ? mapList(content, (block) => maskBlock(block, redactor)) : maskBlock(content, redactor);
        return masked === content ? message : { ...message, content: masked };
      });
    default: {
      // A tool result: tools/call, or tasks/result of a task that ran one.
      let out = withList(reply, 'content', (block) => maskBlock(block, redactor));
      const structured = reply.structuredContent;
      if (structured !== undefined) {
        const masked = redactor.value(structured);
        if (masked !== structured) out = { ...out, structuredContent: masked };
      }
      return out;
    }
  }
}

/** A content block with its text masked: text, and embedded resources' text; image, audio and links as they are. */
function maskBlock(block: unknown, redactor: Redactor): unknown {
  if (!isJsonObject(block)) return block;
  if (block.type === 'text' && typeof block.text === 'string') {
    const text = redactor.text(block.text);
    return text === block.text ? block : { ...block, text };
  }
  if (block.type === 'resource') {
    const resource = maskResourceContents(block.resource, redactor);
    return resource === block.resource ? block : { ...block, resource };
  }
  return block;
}

/** Text resource contents masked; blob contents as they are. */
function maskResourceContents(contents: unknown, redactor: Redactor): unknown {
  if (!isJsonObject(contents) || typeof contents.text !== 'string') return contents;
  const text = redactor.text(contents.text);
  return text === contents.text ? contents : { ...contents, text };
}

function maskNotification(message: McpMessage, redactor: Redactor): McpMessage {
  const params = message.params;
  if (params === undefined) return message;
  const key = message.method === 'notifications/message' ? 'data' : 'message';
  if (!(key in params)) return message;
  const masked = redactor.value(params[key]);
  return masked === params[key] ? message : { ...message, params: { ...params, [key]: masked } };
}

function maskArguments(message: McpMessage, redactor: Redactor): McpMessage {
  const params = message.params;
  if (params === undefined || params.arguments === undefined) return message;
  const masked = redactor.value(params.arguments);
  return masked === params.arguments ? message : { ...message, params: { ...params, arguments: masked } };
}

/** An McpError with its message and data masked; anything else as it is (it reaches the client as a generic -32603). */
function maskError(error: unknown, redactor: Redactor): unknown {
  if (!(error instanceof McpError)) return error;
  const message = redactor.text(error.message);
  const data = redactor.value(error.data);
  return message === error.message && data === error.data ? error : new McpError(error.code, message, data);
}

function withList(reply: JsonObject, key: string, fn: (item: unknown) => unknown): JsonObject {
  const list = reply[key];
  if (!Array.isArray(list)) return reply;
  const masked = mapList(list, fn);
  return masked === list ? reply : { ...reply, [key]: masked };
}

/** `list` with `fn` applied to each item; the same array when no item changed. */
function mapList(list: readonly unknown[], fn: (item: unknown) => unknown): readonly unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const out = fn(list[i]);
    if (out !== list[i]) (copy ??= list.slice())[i] = out;
  }
  return copy ?? list;
}

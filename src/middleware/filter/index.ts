/**
 * @module
 * `filter`: hides tools, prompts and resources by name. A hidden item is absent from every page
 * of its list, and using it fails exactly as if the server had never had it.
 */
import type { Context } from '../../chain/context.js';
import type { Middleware, Next } from '../../chain/middleware.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { rawItemsOf, withRawItems } from '../../message/raw-list.js';
import { matchAny } from '../../chain/glob.js';
import { uriForms } from './normalize-uri.js';
import { ResourceNames } from './resource-names.js';
import { uriRule } from './uri-rule.js';
import type { FilterOptions, FilterRule } from './options.js';

export type { FilterOptions, FilterRule } from './options.js';

/**
 * Hides tools, prompts and resources. A hidden tool is missing from `tools/list` and calling it is
 * -32602 `Unknown tool: <name>`; prompts likewise for `prompts/get` (and completions of their
 * arguments); a hidden resource is missing from `resources/list` and reading or subscribing to it
 * is -32002 `Resource not found: <uri>`. Resource templates are filtered by name or uriTemplate.
 *
 * A rule on resource *names* needs the name of a uri that a client reads directly: the filter
 * lists the session's resources once to learn it (and again after
 * `notifications/resources/list_changed`). A uri expanded from a template is judged by its uri.
 *
 * Resource uris are judged in normal form (RFC 3986: `.`/`..` segments removed, unreserved
 * escapes decoded, scheme and host lower-cased, default ports dropped), so
 * `file:///allowed/../etc/passwd`, `file:///allowed/%2e%2e/etc/passwd` and
 * `FILE:///allowed/..%2Fetc/passwd` are all refused by `allow: ['file:///allowed/*']`. The
 * upstream receives the uri as the client sent it.
 *
 * @example
 * chain()
 *   .use(filter({ tools: { deny: ['delete_*', 'drop_table'] }, resources: { allow: ['file:///docs/*'] } }))
 *   .to(stdio({ command: 'my-server' }));
 */
export function filter(options: FilterOptions = {}): Middleware {
  const tools = rule(options.tools);
  const prompts = rule(options.prompts);
  const resources = rule(options.resources);
  const uris = uriRule(options.resources ?? {});
  const names = new ResourceNames();

  /** A resource request: refused as not found unless its URI (or, where that decides, its name) is visible. */
  async function resource(ctx: Context, next: Next, uri: string): Promise<Reply> {
    const namesOf = await names.lookup(ctx.session, next);
    if (!uris.visible(uriForms(uri), namesOf)) throw resourceNotFound(uri);
    return next();
  }

  /** A listed resource: by its uri's forms, or by the name it is listed under. */
  function listedVisible(item: JsonObject): boolean {
    if (typeof item.uri !== 'string') return resources.visible([item.name]);
    const own = typeof item.name === 'string' ? [item.name] : [];
    return uris.visible(uriForms(item.uri), () => own);
  }

  // Not async: a message it lets through gets next()'s own promise back, at no cost (a refusal
  // thrown here becomes a rejection in compose).
  return function filter(ctx, next) {
    const params = ctx.message.params ?? {};
    if (ctx.direction === 'toDownstream') {
      if (ctx.method === 'notifications/resources/list_changed') names.invalidate(ctx.session);
      if (ctx.method === 'notifications/resources/updated' && typeof params.uri === 'string') {
        const session = ctx.session;
        if (!uris.visible(uriForms(params.uri), (form) => names.known(session, form))) return Promise.resolve(undefined);
      }
      return next();
    }

    switch (ctx.method) {
      case 'tools/list':
        return next().then((reply) => keep(reply, 'tools', ['name'], (tool) => tools.visible([tool.name])));
      case 'prompts/list':
        return next().then((reply) => keep(reply, 'prompts', ['name'], (prompt) => prompts.visible([prompt.name])));
      case 'resources/list':
        return next().then((reply) => keep(reply, 'resources', ['uri', 'name'], (item) => listedVisible(item)));
      case 'resources/templates/list':
        return next().then((reply) => keep(reply, 'resourceTemplates', ['uriTemplate', 'name'], (template) => resources.visible([template.uriTemplate, template.name])));
      case 'tools/call':
        if (!tools.visible([params.name])) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${String(params.name)}`);
        return next();
      case 'prompts/get':
        if (!prompts.visible([params.name])) throw unknownPrompt(params.name);
        return next();
      case 'completion/complete': {
        const ref = isJsonObject(params.ref) ? params.ref : {};
        if (ref.type === 'ref/prompt' && !prompts.visible([ref.name])) throw unknownPrompt(ref.name);
        return next();
      }
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const uri = params.uri;
        if (typeof uri !== 'string') return next();
        const verdict = uris.byUri(uriForms(uri));
        if (verdict === undefined) return resource(ctx, next, uri);
        if (!verdict) throw resourceNotFound(uri);
        return next();
      }
      default:
        return next();
    }
  };
}

interface Rule {
  /** No key is denied and, when there is an allow list, some key is allowed. Non-strings are no key. */
  visible(keys: readonly unknown[]): boolean;
}

function rule({ allow = [], deny = [] }: FilterRule = {}): Rule {
  const allows = matchAny(allow);
  const denies = matchAny(deny);
  const allowAll = allow.length === 0;
  return {
    visible(keys) {
      const strings = keys.filter((key): key is string => typeof key === 'string');
      return !strings.some(denies) && (allowAll || strings.some(allows));
    },
  };
}

/**
 * The reply with only the visible items of its `key` list (cursor, `_meta` and the rest kept).
 * `fields`: what `visible` reads of an item. A list read off the wire is filtered as bytes: only
 * those fields of each item are read, and the items kept are not parsed nor serialized.
 */
function keep(reply: Reply, key: string, fields: readonly string[], visible: (item: JsonObject) => boolean): Reply {
  const raw = reply === undefined ? undefined : rawItemsOf(reply, key);
  if (raw !== undefined) {
    const kept = raw.filter((item) => visible(Object.fromEntries(fields.map((field) => [field, item.get(field)]))));
    if (kept.length === raw.length) return reply;
    const rebuilt = withRawItems(reply as JsonObject, key, kept);
    if (rebuilt !== undefined) return rebuilt;
  }
  const items = reply?.[key];
  if (!Array.isArray(items)) return reply;
  return { ...reply, [key]: items.filter((item: unknown) => !isJsonObject(item) || visible(item)) };
}

function resourceNotFound(uri: string): McpError {
  return new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
}

function unknownPrompt(name: unknown): McpError {
  return new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${String(name)}`);
}

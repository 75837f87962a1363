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
import { matchAny } from '../../chain/glob.js';
import { ResourceNames } from './resource-names.js';

/**
 * Names or globs (`*` any characters, `?` one character). Deny wins over allow; an absent or
 * empty `allow` allows everything.
 */
export interface FilterRule {
  allow?: readonly string[];
  deny?: readonly string[];
}

export interface FilterOptions {
  /** Matched against the tool's name. */
  tools?: FilterRule;
  /** Matched against the prompt's name. */
  prompts?: FilterRule;
  /** Matched against a resource's uri or name, and a resource template's uriTemplate or name. */
  resources?: FilterRule;
}

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
 * @example
 * chain()
 *   .use(filter({ tools: { deny: ['delete_*', 'drop_table'] }, resources: { allow: ['file:///docs/*'] } }))
 *   .to(stdio({ command: 'my-server' }));
 */
export function filter(options: FilterOptions = {}): Middleware {
  const tools = rule(options.tools);
  const prompts = rule(options.prompts);
  const resources = rule(options.resources);
  const names = new ResourceNames();

  /** A resource request: refused as not found unless its URI (or, where that decides, its name) is visible. */
  async function resource(ctx: Context, next: Next, uri: string): Promise<Reply> {
    const name = await names.lookup(ctx.session, next, uri);
    if (!resources.visible([uri, name])) throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
    return next();
  }

  // Not async: a message it lets through gets next()'s own promise back, at no cost (a refusal
  // thrown here becomes a rejection in compose).
  return function filter(ctx, next) {
    const params = ctx.message.params ?? {};
    if (ctx.direction === 'toDownstream') {
      if (ctx.method === 'notifications/resources/list_changed') names.invalidate(ctx.session);
      if (ctx.method === 'notifications/resources/updated' && typeof params.uri === 'string') {
        if (!resources.visible([params.uri, names.known(ctx.session, params.uri)])) return Promise.resolve(undefined);
      }
      return next();
    }

    switch (ctx.method) {
      case 'tools/list':
        return next().then((reply) => keep(reply, 'tools', (tool) => tools.visible([tool.name])));
      case 'prompts/list':
        return next().then((reply) => keep(reply, 'prompts', (prompt) => prompts.visible([prompt.name])));
      case 'resources/list':
        return next().then((reply) => keep(reply, 'resources', (item) => resources.visible([item.uri, item.name])));
      case 'resources/templates/list':
        return next().then((reply) => keep(reply, 'resourceTemplates', (template) => resources.visible([template.uriTemplate, template.name])));
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
        if (resources.undecided(uri)) return resource(ctx, next, uri);
        if (!resources.visible([uri])) throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
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
  /** Whether a second key (a resource's name) could change the verdict on `key` alone. */
  undecided(key: string): boolean;
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
    undecided(key) {
      return !denies(key) && (deny.length > 0 || !(allowAll || allows(key)));
    },
  };
}

/** The reply with only the visible items of its `key` list (cursor, `_meta` and the rest kept). */
function keep(reply: Reply, key: string, visible: (item: JsonObject) => boolean): Reply {
  const items = reply?.[key];
  if (!Array.isArray(items)) return reply;
  return { ...reply, [key]: items.filter((item: unknown) => !isJsonObject(item) || visible(item)) };
}

function unknownPrompt(name: unknown): McpError {
  return new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${String(name)}`);
}

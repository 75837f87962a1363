/**
 * @module
 * `rename`: shows tools and prompts under new names, titles and descriptions, and routes calls to
 * the new names back to the old ones.
 */
import type { Middleware } from '../../chain/middleware.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, McpMessage, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import type { RawItem} from '../../message/raw-list.js';
import { rawItemsOf, withRawItems } from '../../message/raw-list.js';
import type { RenameOptions, Renaming } from './options.js';

export type { RenameOptions, Renaming } from './options.js';

/** Tool names as SEP-986 allows them. */
const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Renames tools and prompts and overrides their titles and descriptions, consistently: the list
 * shows the new name, a call to the new name reaches the upstream under the old one, and the old
 * name is unknown (-32602 `Unknown tool: <old>`). An upstream item that already has a name another
 * item is renamed to is hidden behind it. Stateless: list changes need no invalidation.
 *
 * Throws a `ChainError` ('CONFIG') when two items would end with the same name, or a new tool
 * name is not a valid SEP-986 name.
 *
 * @example
 * chain()
 *   .use(rename({ tools: { search_issues: { name: 'jira_search', description: 'Searches ACME Jira' }, get_issue: 'jira_get' } }))
 *   .to(stdio({ command: 'jira-mcp' }));
 */
export function rename(options: RenameOptions = {}): Middleware {
  const tools = table('tool', options.tools ?? {}, TOOL_NAME);
  const prompts = table('prompt', options.prompts ?? {}, /^.+$/s);

  // Not async: a message it does not rename gets next()'s own promise back, at no cost.
  return function rename(ctx, next) {
    if (ctx.direction !== 'toUpstream') return next();
    const params = ctx.message.params ?? {};
    switch (ctx.method) {
      case 'tools/list':
        return next().then((reply) => tools.list(reply, 'tools'));
      case 'prompts/list':
        return next().then((reply) => prompts.list(reply, 'prompts'));
      case 'tools/call':
        return next(withName(ctx.message, params, tools.upstreamName(params.name)));
      case 'prompts/get':
        return next(withName(ctx.message, params, prompts.upstreamName(params.name)));
      case 'completion/complete': {
        const ref = params.ref;
        if (!isJsonObject(ref) || ref.type !== 'ref/prompt') return next();
        const name = prompts.upstreamName(ref.name);
        return next(name === ref.name ? ctx.message : { ...ctx.message, params: { ...params, ref: { ...ref, name } } });
      }
      default:
        return next();
    }
  };
}

interface Override {
  name: string;
  title?: string;
  description?: string;
}

interface Table {
  /** The reply with the items of `key` renamed, and those hidden behind a new name dropped. */
  list(reply: Reply, key: string): Reply;
  /** The upstream name for a name the client used; throws -32602 for an old name. */
  upstreamName(name: unknown): unknown;
}

function table(kind: 'tool' | 'prompt', config: Readonly<Record<string, Renaming>>, valid: RegExp): Table {
  const byOld = new Map<string, Override>();
  const toOld = new Map<string, string>();
  for (const [old, renaming] of Object.entries(config)) {
    const override: Override =
      typeof renaming === 'string'
        ? { name: renaming }
        : {
            name: renaming.name ?? old,
            ...(renaming.title === undefined ? {} : { title: renaming.title }),
            ...(renaming.description === undefined ? {} : { description: renaming.description }),
          };
    if (!valid.test(override.name)) {
      throw new ChainError('CONFIG', `rename: ${JSON.stringify(override.name)} is not a valid ${kind} name`);
    }
    const clash = toOld.get(override.name);
    if (clash !== undefined) {
      throw new ChainError('CONFIG', `rename: ${kind}s ${JSON.stringify(clash)} and ${JSON.stringify(old)} would both be named ${JSON.stringify(override.name)}`);
    }
    byOld.set(old, override);
    toOld.set(override.name, old);
  }
  /** Renamed away from, so unknown under this name. */
  const hidden = (name: unknown): boolean => typeof name === 'string' && byOld.has(name) && byOld.get(name)?.name !== name;
  const unknown = (name: unknown): McpError => new McpError(ErrorCode.InvalidParams, `Unknown ${kind}: ${String(name)}`);

  return {
    list(reply, key) {
      if (byOld.size === 0) return reply;
      // A list read off the wire is renamed as bytes: names read, the renamed items' members
      // replaced, every other item (and every schema) left as its bytes.
      const raw = reply === undefined ? undefined : rawItemsOf(reply, key);
      if (raw !== undefined) {
        const shown: RawItem[] = [];
        let changed = false;
        for (const item of raw) {
          const name = item.get('name');
          const override = typeof name === 'string' ? byOld.get(name) : undefined;
          if (typeof name !== 'string' || (override === undefined && !toOld.has(name))) {
            shown.push(item);
          } else {
            changed = true;
            if (override !== undefined) shown.push(Object.entries(override).reduce((renamed: RawItem, [field, value]) => renamed.with(field, value), item));
          }
        }
        const rebuilt = changed ? withRawItems(reply as JsonObject, key, shown) : reply;
        if (rebuilt !== undefined) return rebuilt;
      }
      const items = reply?.[key];
      if (!Array.isArray(items)) return reply;
      const shown: unknown[] = [];
      for (const item of items as unknown[]) {
        if (!isJsonObject(item) || typeof item.name !== 'string') shown.push(item);
        else if (byOld.has(item.name)) shown.push({ ...item, ...byOld.get(item.name) });
        else if (!toOld.has(item.name)) shown.push(item); // else hidden behind a renamed item
      }
      return { ...reply, [key]: shown };
    },
    upstreamName(name) {
      if (typeof name !== 'string') return name;
      const old = toOld.get(name);
      if (old !== undefined) return old;
      if (hidden(name)) throw unknown(name);
      return name;
    },
  };
}

/** The message calling `name` instead (the same message when the name is unchanged). */
function withName(message: McpMessage, params: JsonObject, name: unknown): McpMessage {
  return name === params.name ? message : { ...message, params: { ...params, name } };
}

/**
 * @module
 * `discover`: progressive discovery for large catalogs. Clients cap how many tools they take (40 to
 * 128) and models choose worse among hundreds, so instead of every tool the client sees three:
 * `search_tools` (ranked by name and description), `describe_tool` and `call_tool`. The calls they
 * make go through the rest of the chain as ordinary `tools/list` and `tools/call` requests.
 */
import { matchAny } from '../../chain/glob.js';
import type { Context } from '../../chain/context.js';
import type { Middleware, Next } from '../../chain/middleware.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, Reply, Result } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { closeNames } from './close-names.js';
import { DEFAULT_META_TOOL_NAMES, metaTools, type MetaToolNames } from './meta-tools.js';
import { type Catalog, SessionCatalogs } from './session-catalog.js';
import type { DiscoverOptions } from './options.js';

export type { DiscoverOptions } from './options.js';

export type { MetaToolNames } from './meta-tools.js';

/**
 * Answers `tools/list` with three meta-tools (and the tools `alwaysShow` names) instead of the whole
 * catalog:
 * - `search_tools {query, limit?}`: the catalog's best matches for plain words (BM25 over the tools'
 *   names, titles, descriptions and argument names, with light stemming, synonyms and the server a
 *   query names), as text (name and first line of the description) and as `structuredContent`
 *   `{ tools: [{ name, description, score }] }`; an empty query is refused with -32602;
 * - `describe_tool {name}`: the tool's full definition (name, title, description, inputSchema,
 *   outputSchema, annotations) as JSON text and `structuredContent`; an unknown name is an `isError`
 *   result that suggests close names;
 * - `call_tool {name, arguments?}`: runs the named tool as an ordinary `tools/call` through the rest
 *   of the chain (so `validate`, `rateLimit`, `audit` behind it see the real tool; `_meta` such as
 *   the progress token is kept) and returns its result as it is.
 *
 * The catalog is read through the rest of the chain (every page of `tools/list`) once per session,
 * shared by concurrent first uses, and read again after `notifications/tools/list_changed` (which
 * still reaches the client); its search index is built once per version. Tools keep working when
 * called directly by name. Other methods pass at the cost of a comparison. Put `discover` first
 * (outermost): the middleware behind it shape the catalog it searches and see every call.
 *
 * Throws a `ChainError` ('CONFIG') for meta-tool names that are empty or the same, or limits that
 * are not whole numbers (`defaultLimit` at most `maxLimit`).
 *
 * @example
 * chain()
 *   .use(discover({ alwaysShow: ['memory__*'], minTools: 40 }))
 *   .to(gateway);
 */
export function discover(options: DiscoverOptions = {}): Middleware {
  const names: MetaToolNames = { ...DEFAULT_META_TOOL_NAMES, ...definedOnly(options.names ?? {}) };
  const metaNames = new Set([names.search, names.describe, names.call]);
  if ([...metaNames].some((name) => name === '') || metaNames.size !== 3) {
    throw new ChainError('CONFIG', `discover.names: expected three different non-empty names, found ${JSON.stringify(names)}`);
  }
  const minTools = wholeNumber(options.minTools ?? 0, 0, 'minTools');
  const maxLimit = wholeNumber(options.maxLimit ?? 50, 1, 'maxLimit');
  const defaultLimit = wholeNumber(options.defaultLimit ?? 10, 1, 'defaultLimit');
  if (defaultLimit > maxLimit) throw new ChainError('CONFIG', `discover.defaultLimit (${defaultLimit}) is more than maxLimit (${maxLimit})`);
  const alwaysShow = options.alwaysShow ?? [];
  const shown = matchAny(alwaysShow);
  const needsCatalog = minTools > 0 || alwaysShow.length > 0;
  const definitions = metaTools(names, maxLimit, defaultLimit);
  const catalogs = new SessionCatalogs();
  const warned = new WeakSet<Catalog>();

  /** The session's catalog; a reading that failed for another caller (cancelled with its request) is tried once more. */
  function catalogOf(ctx: Context, next: Next): Promise<Catalog> {
    return catalogs.get(ctx.session, next).catch((error: unknown) => {
      if (ctx.signal.aborted) throw error;
      return catalogs.get(ctx.session, next);
    });
  }

  /** Is the catalog small enough to be shown as it is? */
  const small = (catalog: Catalog): boolean => minTools > 0 && catalog.tools.length <= minTools;

  async function list(ctx: Context, next: Next): Promise<Reply> {
    const params = ctx.message.params ?? {};
    if (!needsCatalog) return listing(params, []);
    const catalog = await catalogOf(ctx, next);
    if (small(catalog)) return params.cursor === undefined && catalog.onlyPage !== undefined ? catalog.onlyPage : next();
    if (!warned.has(catalog)) {
      warned.add(catalog);
      const hidden = catalog.tools.filter((tool) => metaNames.has(tool.name as string)).map((tool) => tool.name);
      if (hidden.length > 0) ctx.log.warn('discover: tools named like the meta-tools are reachable only through call_tool; rename the meta-tools (names)', { tools: hidden });
    }
    return listing(
      params,
      catalog.tools.filter((tool) => shown(tool.name as string) && !metaNames.has(tool.name as string)),
    );
  }

  /** The one page the client gets: the meta-tools and the tools always shown. */
  function listing(params: JsonObject, extra: readonly JsonObject[]): Result {
    if (params.cursor !== undefined) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: unknown cursor (the tool list has one page)');
    return { tools: [...definitions, ...extra] };
  }

  /** A call of the meta-tool `name` with `params` (the client's, or those of a call_tool naming a meta-tool). */
  async function call(ctx: Context, next: Next, name: string, params: JsonObject): Promise<Reply> {
    if (minTools > 0 && small(await catalogOf(ctx, next))) return next();
    const args = params.arguments ?? {};
    if (!isJsonObject(args)) throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${name}'s arguments must be an object`);
    if (name === names.search) return search(ctx, next, args);
    if (name === names.describe) return describe(ctx, next, args);
    return callTool(ctx, next, params, args);
  }

  async function search(ctx: Context, next: Next, args: JsonObject): Promise<Result> {
    const query = typeof args.query === 'string' ? args.query.trim() : '';
    if (query === '') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${names.search} needs a query (what you want to do, in a few words)`);
    const limit = args.limit ?? defaultLimit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${names.search}'s limit must be a whole number of at least 1`);
    }
    const catalog = await catalogOf(ctx, next);
    const found = catalog.index.search(query, Math.min(limit, maxLimit));
    const tools = found.map((tool) => ({ name: tool.name, description: tool.description, score: Math.round(tool.score * 1000) / 1000 }));
    const text =
      tools.length === 0
        ? `No tools match "${query}". Search again with other words: what you want to do, or the name of a service.`
        : [
            `${tools.length} tool${tools.length === 1 ? '' : 's'} for "${query}", best first:`,
            ...tools.map((tool) => `- ${tool.name}${tool.description === '' ? '' : `: ${firstLine(tool.description)}`}`),
            `Call ${names.describe} for a tool's arguments, then ${names.call} to run it.`,
          ].join('\n');
    return { content: [{ type: 'text', text }], structuredContent: { tools } };
  }

  async function describe(ctx: Context, next: Next, args: JsonObject): Promise<Result> {
    const name = args.name;
    if (typeof name !== 'string' || name === '') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${names.describe} needs the name of a tool`);
    const catalog = await catalogOf(ctx, next);
    const tool = catalog.byName.get(name) ?? definitions.find((definition) => definition.name === name);
    if (tool === undefined) {
      let close = closeNames(name, catalog.byName.keys(), 3);
      if (close.length === 0) close = catalog.index.search(name, 3).map((found) => found.name);
      const hint = close.length > 0 ? ` Did you mean ${close.join(', ')}?` : '';
      return { content: [{ type: 'text', text: `Unknown tool "${name}".${hint} Use ${names.search} to find tools.` }], isError: true };
    }
    return { content: [{ type: 'text', text: JSON.stringify(tool, null, 2) }], structuredContent: tool };
  }

  async function callTool(ctx: Context, next: Next, params: JsonObject, args: JsonObject): Promise<Reply> {
    const target = args.name;
    if (typeof target !== 'string' || target === '') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${names.call} needs the name of the tool to run`);
    const targetArgs = args.arguments;
    if (targetArgs !== undefined && !isJsonObject(targetArgs)) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${names.call}'s arguments must be an object (the arguments of ${target})`);
    }
    // call_tool of a meta-tool: run it, unless a real tool goes by that name.
    if (metaNames.has(target) && !(await catalogOf(ctx, next)).byName.has(target)) {
      return call(ctx, next, target, { ...params, name: target, arguments: targetArgs ?? {} });
    }
    const { arguments: _own, name: _name, ...rest } = params;
    return next({ method: 'tools/call', params: targetArgs === undefined ? { ...rest, name: target } : { ...rest, name: target, arguments: targetArgs } });
  }

  // Not async: a message of any other method costs a comparison or two and the call to next.
  return function discover(ctx, next) {
    const method = ctx.method;
    if (ctx.direction === 'toDownstream') {
      if (method === 'notifications/tools/list_changed') catalogs.invalidate(ctx.session);
      return next();
    }
    if (method === 'tools/call') {
      const name = ctx.message.params?.name;
      return typeof name === 'string' && metaNames.has(name) ? call(ctx, next, name, ctx.message.params ?? {}) : next();
    }
    if (method === 'tools/list') return list(ctx, next);
    return next();
  };
}

function firstLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function definedOnly(names: NonNullable<DiscoverOptions['names']>): Partial<MetaToolNames> {
  return Object.fromEntries(Object.entries(names).filter(([, value]) => value !== undefined));
}

function wholeNumber(value: number, min: number, key: string): number {
  if (!Number.isInteger(value) || value < min) throw new ChainError('CONFIG', `discover.${key}: expected a whole number of at least ${min}, found ${value}`);
  return value;
}

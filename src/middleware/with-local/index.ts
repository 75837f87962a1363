/**
 * @module
 * `withLocal`: tools, prompts and resources written in TypeScript, served next to the upstream's
 * own, as if the server had them.
 */
import type { Middleware } from '../../chain/middleware.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { localCallContext, type LocalServer } from '../../upstream/local.js';

type ListKey = 'tools' | 'prompts' | 'resources';

/** One list method's shape: where its items are, which of them are local, how to list the local ones. */
interface LocalList {
  key: ListKey;
  /** True when `item` (an upstream item) has a local namesake: tools and prompts by name, resources by uri. */
  shadowed: (server: LocalServer, item: JsonObject) => boolean;
  items: (server: LocalServer) => readonly unknown[];
}

const LISTS: Record<string, LocalList> = {
  'tools/list': { key: 'tools', shadowed: (server, item) => server.hasTool(item.name), items: (server) => server.listTools() },
  'prompts/list': { key: 'prompts', shadowed: (server, item) => server.hasPrompt(item.name), items: (server) => server.listPrompts() },
  'resources/list': { key: 'resources', shadowed: (server, item) => server.hasResource(item.uri), items: (server) => server.listResources() },
};

/**
 * Adds the tools, prompts and resources of a {@link LocalServer} to whatever the upstream offers:
 * they are appended to the last page of each list, an upstream item of the same name (a resource:
 * uri) is dropped from whichever page it is on (the local one shadows it), calls to them are
 * answered in process, and `initialize` announces the capabilities they need.
 *
 * @example
 * const extras = local({ tools: [{ name: 'whoami', handler: (_args, ctx) => ({ content: [{ type: 'text', text: ctx.session.id }] }) }] });
 * chain(withLocal(extras)).to(stdio({ command: 'my-server' }));
 */
export function withLocal(server: LocalServer): Middleware {
  return async function withLocal(ctx, next): Promise<Reply> {
    if (ctx.direction !== 'toUpstream' || ctx.kind !== 'request') return next();
    const params = ctx.message.params ?? {};
    const own =
      (ctx.method === 'tools/call' && server.hasTool(params.name)) ||
      (ctx.method === 'prompts/get' && server.hasPrompt(params.name)) ||
      (ctx.method === 'resources/read' && server.hasResource(params.uri));
    if (own) {
      const scope = ctx.related ? { signal: ctx.signal, related: ctx.related } : { signal: ctx.signal };
      return server.handle(ctx.message, localCallContext(ctx.message, scope, ctx.downstream, ctx.session));
    }
    const reply = await next();
    if (reply === undefined) return reply;
    if (ctx.method === 'initialize') return withCapabilities(reply, server.capabilities());
    const list = LISTS[ctx.method];
    return list ? withLocalItems(reply, list, server) : reply;
  };
}

/**
 * One page of a list with the local items merged in: upstream items a local one shadows are
 * dropped on every page (a client pages through all of them, so a namesake on an early page would
 * be listed twice otherwise), and the local items are appended once, to the last page (the one
 * without `nextCursor`). A page without a namesake is returned as it came, with no copy: the
 * common case costs one lookup per item.
 */
function withLocalItems(reply: JsonObject, list: LocalList, server: LocalServer): JsonObject {
  const last = typeof reply.nextCursor !== 'string';
  const upstream = Array.isArray(reply[list.key]) ? (reply[list.key] as unknown[]) : [];
  const isShadowed = (item: unknown): boolean => isJsonObject(item) && list.shadowed(server, item);
  if (!last && !upstream.some(isShadowed)) return reply;
  const kept = upstream.filter((item) => !isShadowed(item));
  return { ...reply, [list.key]: last ? [...kept, ...list.items(server)] : kept };
}

function withCapabilities(result: JsonObject, added: JsonObject): JsonObject {
  const capabilities = isJsonObject(result.capabilities) ? result.capabilities : {};
  const merged: JsonObject = { ...capabilities };
  for (const [key, value] of Object.entries(added)) merged[key] ??= value;
  return { ...result, capabilities: merged };
}

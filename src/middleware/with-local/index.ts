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

const LISTS: Record<string, { key: ListKey; items: (server: LocalServer) => Array<{ name: string; uri?: string }> }> = {
  'tools/list': { key: 'tools', items: (server) => server.listTools() },
  'prompts/list': { key: 'prompts', items: (server) => server.listPrompts() },
  'resources/list': { key: 'resources', items: (server) => server.listResources() },
};

/**
 * Adds the tools, prompts and resources of a {@link LocalServer} to whatever the upstream offers:
 * they are appended to the last page of each list (an upstream item of the same name or uri is
 * replaced by the local one), calls to them are answered in process, and `initialize` announces
 * the capabilities they need.
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
    if (!list || typeof reply.nextCursor === 'string') return reply;
    const local = list.items(server);
    const taken = new Set(local.map((item) => item.uri ?? item.name));
    const upstream = Array.isArray(reply[list.key]) ? (reply[list.key] as unknown[]) : [];
    const kept = upstream.filter((item) => !isJsonObject(item) || !taken.has(String(item.uri ?? item.name)));
    return { ...reply, [list.key]: [...kept, ...local] };
  };
}

function withCapabilities(result: JsonObject, added: JsonObject): JsonObject {
  const capabilities = isJsonObject(result.capabilities) ? result.capabilities : {};
  const merged: JsonObject = { ...capabilities };
  for (const [key, value] of Object.entries(added)) merged[key] ??= value;
  return { ...result, capabilities: merged };
}

import type { JsonObject } from '../message/jsonrpc.js';
import type { ListItemOf, ListKey, ListMethodOf } from '../spec/methods.js';
import type { Context } from './context.js';
import type { Middleware } from './middleware.js';

const LIST_METHODS: { [K in ListKey]: ListMethodOf<K> } = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
};

/**
 * Transforms every item of every page of a list (`tools`, `prompts`, `resources`,
 * `resourceTemplates`): return a replacement item, the same item, or `undefined` to drop it.
 * The rest of the page (cursor, `_meta`) is kept.
 *
 * @example
 * mapList('tools', (tool) => ({ ...tool, description: `[ACME] ${tool.description ?? ''}` }));
 */
export function mapList<K extends ListKey>(
  key: K,
  fn: (item: ListItemOf<K>, ctx: Context) => ListItemOf<K> | undefined,
): Middleware {
  const method = LIST_METHODS[key];
  return function mapList(ctx, next) {
    if (ctx.method !== method || ctx.direction !== 'toUpstream') return next();
    return next().then((reply) => {
      const items = reply?.[key];
      if (!Array.isArray(items)) return reply;
      const mapped: unknown[] = [];
      for (const item of items as ListItemOf<K>[]) {
        const out = fn(item, ctx);
        if (out !== undefined) mapped.push(out);
      }
      return { ...reply, [key]: mapped } as JsonObject;
    });
  };
}

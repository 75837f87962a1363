/**
 * @module
 * `transform`: makes a server's tools fit: new names, titles, templated descriptions and
 * annotations; arguments renamed, described, defaulted, hidden (pinned to a value) or narrowed;
 * calls mapped back to the original names and shapes.
 */
import type { Context } from '../../chain/context.js';
import type { Middleware } from '../../chain/middleware.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { ToolPlan } from './tool-plan.js';
import type { TransformOptions } from './options.js';
import { transformProblems } from './transform-options.js';

export type { ArgumentTransform, ToolTransform, TransformOptions } from './options.js';
export type { Narrowing } from './narrowing.js';

/**
 * Transforms tools the way FastMCP's `Tool.from_tool` does, as configuration. Per tool (keyed by
 * its name as the client sees it at this point of the chain; on a whole gateway `<server>__<tool>`):
 * a new `name` (the old one becomes unknown), `title`, `description` (`{description}` is the
 * original), `annotations` (merged over the tool's), `enabled: false` (hidden, and unknown to
 * calls); per argument: a new `name`, `description` (templated too), a `default` (shown in the
 * schema, out of `required`, sent when a call leaves it out), `hide: true` (gone from the schema;
 * every call sends its `value` or `default`) and narrowing (`enum`, `minimum`, `maximum`,
 * `minLength`, `maxLength`, `pattern`). `outputSchema` and results pass through untouched.
 *
 * Calls are refused with -32602, naming the argument and the rule (`data: { tool, argument, rule }`),
 * when they set a hidden argument, use an argument's old name, or break a narrowing; a call to a
 * renamed-away or disabled tool is `Unknown tool: <name>`.
 *
 * Collisions: options where two tools (or two arguments of one tool) end with the same name are
 * refused when the middleware is made (a `ChainError` 'CONFIG', as are a hidden argument without a
 * value or default, an invalid tool name, a bad pattern, a default outside its narrowing). A
 * server tool that is not configured and has a name a renamed tool took is hidden behind it, with
 * a warning. What depends on the server's schema (an argument the tool does not have, a renamed
 * argument that meets one it has, an `enum` that is not a subset of the tool's) hides that tool
 * from the list with a warning, once per problem. Stateless: every page of every list, in every
 * session, is transformed on its own.
 *
 * @example
 * chain()
 *   .use(transform({
 *     tools: {
 *       search_issues: {
 *         name: 'acme_search',
 *         description: "{description} Only for ACME's staging data.",
 *         annotations: { readOnlyHint: true },
 *         arguments: {
 *           project: { hide: true, value: 'ACME-STAGING' },
 *           q: { name: 'query', description: 'Words to look for' },
 *           limit: { default: 10, minimum: 1, maximum: 50 },
 *         },
 *       },
 *       delete_issue: { enabled: false },
 *     },
 *   }))
 *   .to(stdio({ command: 'jira-mcp' }));
 */
export function transform(options: TransformOptions = {}): Middleware {
  const problems = transformProblems(options);
  if (problems.length > 0) {
    throw new ChainError('CONFIG', problems.map((problem) => `transform: ${problem.path.join('.')}: ${problem.message}`).join('\n'));
  }
  const byOriginal = new Map<string, ToolPlan>();
  const byClient = new Map<string, ToolPlan>();
  for (const [name, tool] of Object.entries(options.tools ?? {})) {
    const plan = new ToolPlan(name, tool);
    byOriginal.set(name, plan);
    if (plan.enabled) byClient.set(plan.client, plan);
  }
  const warned = new Set<string>();
  const warnOnce = (ctx: Context, message: string): void => {
    if (warned.has(message)) return;
    warned.add(message);
    ctx.log.warn(message);
  };

  const list = (ctx: Context, reply: Reply): Reply => {
    const tools = reply?.tools;
    if (!Array.isArray(tools)) return reply;
    const shown: unknown[] = [];
    for (const tool of tools as unknown[]) {
      if (!isJsonObject(tool) || typeof tool.name !== 'string') {
        shown.push(tool);
        continue;
      }
      const plan = byOriginal.get(tool.name);
      if (plan === undefined) {
        const taken = byClient.get(tool.name);
        if (taken === undefined) shown.push(tool);
        else warnOnce(ctx, `transform: tool ${JSON.stringify(tool.name)} is hidden: ${JSON.stringify(taken.original)} is renamed to its name`);
        continue;
      }
      if (!plan.enabled) continue;
      const presented = plan.present(tool);
      if ('tool' in presented) shown.push(presented.tool);
      else warnOnce(ctx, `transform: tool ${JSON.stringify(tool.name)} is hidden: ${presented.problem}`);
    }
    return { ...reply, tools: shown };
  };

  const call = (ctx: Context): JsonObject | undefined => {
    const params = ctx.message.params ?? {};
    const name = params.name;
    if (typeof name !== 'string') return undefined;
    const plan = byClient.get(name);
    if (plan === undefined) {
      if (byOriginal.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      return undefined;
    }
    if (!plan.mapsArguments) return plan.original === name ? undefined : { ...params, name: plan.original };
    const args = params.arguments ?? {};
    if (!isJsonObject(args)) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${name}: arguments must be an object`);
    return { ...params, name: plan.original, arguments: plan.toUpstream(args) };
  };

  // Not async: a message it does not change gets next()'s own promise back, at no cost.
  return function transform(ctx, next) {
    if (ctx.direction !== 'toUpstream') return next();
    if (ctx.method === 'tools/list') return next().then((reply) => list(ctx, reply));
    if (ctx.method !== 'tools/call') return next();
    const params = call(ctx);
    return params === undefined ? next() : next({ ...ctx.message, params });
  };
}

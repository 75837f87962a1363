/**
 * @module
 * `validate`: a tool call's arguments checked against the tool's `inputSchema` before they reach
 * the server, and its `structuredContent` against its `outputSchema` on the way back, with errors
 * that name the field and the rule.
 */
import { matchAny } from '../../chain/glob.js';
import type { Context } from '../../chain/context.js';
import type { Middleware, Next } from '../../chain/middleware.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { summarize, violations } from './describe-errors.js';
import { SchemaCompiler, type Compiled } from './schema-compiler.js';
import { ToolSchemas } from './tool-schemas.js';
import type { ValidateOptions } from './options.js';

export type { ValidateOptions } from './options.js';

export type { SchemaViolation } from './describe-errors.js';

/**
 * Checks tool calls against the tools' own schemas. Arguments that break a tool's `inputSchema`
 * never reach the server: the call is answered with an `isError` tool result saying
 * `Invalid arguments for tool count: arguments/count must be <= 10 (maximum)` (MCP 2025-11-25:
 * input validation errors are tool execution errors, which the model can correct), or, with
 * `invalidArguments: 'error'`, refused with -32602 `Invalid params: arguments/count must be <= 10
 * (maximum)` (at most `maxErrors` errors in the message; `data` is
 * `{ tool, errors: [{ path, keyword, message, schemaPath, params }] }`).
 * A result whose `structuredContent` breaks the tool's `outputSchema` (or that has none although
 * the tool declares one) becomes a tool result with `isError: true` that says why: the tool ran,
 * but the server broke its contract (MCP: servers MUST conform to their `outputSchema`), and the
 * model reads a tool error where a protocol error would only fail the call. Results that already
 * have `isError: true` are passed as they are.
 *
 * Schemas are JSON Schema 2020-12 unless their `$schema` says draft-07 (both with ajv and
 * ajv-formats). The schemas come from the session's `tools/list` (a call to a tool not listed yet
 * lists the tools once), are forgotten on `notifications/tools/list_changed`, and compiled on a
 * tool's first call, once for every session that lists the same schema. Only `tools/call`,
 * `tools/list` and `notifications/tools/list_changed` do any work; other messages pass at the cost
 * of a method comparison.
 *
 * @example
 * chain()
 *   .use(validate({ tools: { deny: ['debug_*'] }, maxErrors: 5 }))
 *   .to(stdio({ command: 'my-server' }));
 */
export function validate(options: ValidateOptions = {}): Middleware {
  const allow = options.tools?.allow ?? [];
  const allowed = allow.length === 0 ? (): boolean => true : matchAny(allow);
  const denied = matchAny(options.tools?.deny ?? []);
  const checkOutput = options.output ?? true;
  const refuseBroken = options.invalidSchema === 'refuse';
  const asResult = options.invalidArguments !== 'error';
  const maxErrors = options.maxErrors ?? 3;
  const compiler = new SchemaCompiler({ strict: options.strict ?? false });
  const schemas = new ToolSchemas();
  const reported = new WeakSet<Compiled>();

  /** The compiled schema, or `undefined` (logged once) when it does not compile; throws if configured to refuse. */
  function usable(ctx: Context, name: string, which: 'inputSchema' | 'outputSchema', compiled: Compiled): Compiled & { ok: true } | undefined {
    if (compiled.ok) return compiled;
    if (!reported.has(compiled)) {
      reported.add(compiled);
      ctx.log.warn(`validate: tool ${name}'s ${which} does not compile; ${refuseBroken ? 'its calls are refused' : 'its calls pass unchecked'}`, {
        tool: name,
        reason: compiled.reason,
      });
    }
    if (refuseBroken) {
      throw new McpError(ErrorCode.InternalError, `Tool ${name} cannot be validated: its ${which} does not compile: ${compiled.reason}`, {
        tool: name,
        reason: compiled.reason,
      });
    }
    return undefined;
  }

  async function call(ctx: Context, next: Next): Promise<Reply> {
    const params = ctx.message.params ?? {};
    const name = params.name;
    if (typeof name !== 'string' || denied(name) || !allowed(name)) return next();
    const tool = schemas.known(ctx.session, name) ?? (await schemas.lookup(ctx.session, next, name));
    if (!tool) return next(); // unknown to the server: its own answer says so

    const loading = compiler.ready();
    if (loading) await loading;
    const input = usable(ctx, name, 'inputSchema', (tool.inputCheck ??= compiler.compile(tool.input)));
    const output = checkOutput && tool.output !== undefined ? usable(ctx, name, 'outputSchema', (tool.outputCheck ??= compiler.compile(tool.output))) : undefined;

    const errors = input?.check(params.arguments ?? {});
    if (errors) {
      const found = violations('arguments', errors);
      const summary = summarize(found, errors.length, maxErrors);
      if (asResult) return { content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${summary}` }], isError: true };
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${summary}`, { tool: name, errors: found });
    }

    const result = await next();
    if (!output || !result || result.isError === true || isJsonObject(result.task)) return result;
    return checked(ctx, name, output, result);
  }

  /** `result`, or an `isError` result saying how its structured content breaks the tool's outputSchema. */
  function checked(ctx: Context, name: string, output: Compiled & { ok: true }, result: JsonObject): Reply {
    const structured = result.structuredContent;
    let problem: string;
    if (structured === undefined) {
      problem = `Tool ${name} declares an outputSchema but returned no structuredContent`;
    } else {
      const errors = output.check(structured);
      if (!errors) return result;
      problem = `Tool ${name} returned structuredContent that does not match its outputSchema: ${summarize(violations('structuredContent', errors), errors.length, maxErrors)}`;
    }
    ctx.log.warn(`validate: ${problem}`, { tool: name });
    const broken: JsonObject = { content: [{ type: 'text', text: problem }], isError: true };
    if (result._meta !== undefined) broken._meta = result._meta;
    return broken;
  }

  async function list(ctx: Context, next: Next): Promise<Reply> {
    const reply = await next();
    schemas.seen(ctx.session, ctx.message.params ?? {}, reply);
    return reply;
  }

  // Not async: a message of any other method costs one comparison and the call to next.
  return function validate(ctx, next) {
    const method = ctx.method;
    if (method === 'tools/call') return ctx.direction === 'toUpstream' ? call(ctx, next) : next();
    if (method === 'tools/list') return ctx.direction === 'toUpstream' ? list(ctx, next) : next();
    if (method === 'notifications/tools/list_changed' && ctx.direction === 'toDownstream') schemas.invalidate(ctx.session);
    return next();
  };
}

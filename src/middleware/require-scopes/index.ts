/**
 * @module
 * `requireScopes`: tools, prompts and resources allowed by the caller's OAuth scopes
 * (`ctx.session.identity.scopes`). What the caller's scopes do not cover is hidden, as `filter`
 * hides it, or listed but refused with an error that names the scope it needs.
 */
import { matchAny } from '../../chain/glob.js';
import type { Context } from '../../chain/context.js';
import type { Middleware } from '../../chain/middleware.js';
import type { SessionInfo } from '../../core/session-info.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { uriForms, uriPatternForms } from '../filter/normalize-uri.js';
import { insufficientScope, type ScopedKind } from './insufficient-scope.js';
import type { RequireScopesOptions, ScopeRequirement } from './options.js';

export type { RequireScopesOptions, ScopeRequirement } from './options.js';

export { INSUFFICIENT_SCOPE, type InsufficientScopeData } from './insufficient-scope.js';

interface Entry {
  readonly matches: (value: string) => boolean;
  readonly scopes: readonly string[];
}

/** One kind's requirements: the scopes a name needs (an empty list: none). */
type Requirements = (name: string) => readonly string[];

/**
 * Allows tools, prompts and resources by the caller's OAuth scopes (`ctx.session.identity.scopes`,
 * set by the HTTP front's OAuth). Each item needs the scopes of the first key that matches it (a
 * list: all of them), or `default`'s when none does, or none.
 *
 * With `onMissing: 'hide'` (the default), an item the caller may not use is missing from every
 * page of `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`, and using
 * it fails exactly as `filter`'s hidden items do: -32602 `Unknown tool: <name>` (`tools/call`),
 * -32602 `Unknown prompt: <name>` (`prompts/get`, and completions of its arguments), -32002
 * `Resource not found: <uri>` (`resources/read`, `subscribe`, `unsubscribe`); its
 * `notifications/resources/updated` do not reach the client. With `onMissing: 'refuse'`, it is
 * listed, and using it fails with -32004 (`INSUFFICIENT_SCOPE`):
 * `Insufficient scope: the tool "deploy" needs the scope "deploy"; the caller lacks "deploy"`,
 * with `data: { scopes: [every scope it needs], tool }` (`prompt` for a prompt, `uri` for a
 * resource), which an HTTP front can answer as a 403 `insufficient_scope`.
 *
 * Sessions without scopes (static tokens, stdio) are decided by `unscoped`: allowed everything by
 * default, so one config serves the local user on stdio and OAuth users over HTTP. Resources are
 * judged by uri only (not by name). Other messages pass untouched, at no cost.
 *
 * Throws a `ChainError` ('CONFIG') for a scope that is empty or has whitespace in it.
 *
 * @example
 * chain()
 *   .use(requireScopes({
 *     tools: { 'github__create_*': ['repo', 'write'], 'github__*': 'repo', 'admin_*': 'admin' },
 *     resources: { 'file:///secrets/*': 'secrets:read' },
 *     default: 'mcp:use',
 *   }))
 *   .to(gateway);
 */
export function requireScopes(options: RequireScopesOptions = {}): Middleware {
  const fallback = options.default === undefined ? [] : scopesOf(options.default, 'requireScopes.default');
  const tools = requirements(options.tools, 'tools', fallback);
  const prompts = requirements(options.prompts, 'prompts', fallback);
  const resources = uriRequirements(options.resources, fallback);
  const templates = requirements(options.resources, 'resources', fallback);
  const hide = (options.onMissing ?? 'hide') === 'hide';
  const unscopedAllowed = (options.unscoped ?? 'allow') === 'allow';

  /** The scopes `needed` lacks in the session; `undefined`: it may use the item. */
  function missing(session: SessionInfo, needed: readonly string[]): readonly string[] | undefined {
    if (needed.length === 0) return undefined;
    const held = session.identity?.scopes;
    if (held === undefined) return unscopedAllowed ? undefined : needed;
    const lacking = needed.filter((scope) => !held.includes(scope));
    return lacking.length === 0 ? undefined : lacking;
  }

  const allowed = (session: SessionInfo, required: Requirements, name: unknown): boolean =>
    typeof name !== 'string' || missing(session, required(name)) === undefined;

  /** Throws the refusal of `name` when the session may not use it. */
  function check(session: SessionInfo, kind: ScopedKind, required: Requirements, name: unknown): void {
    if (typeof name !== 'string') return;
    const needed = required(name);
    const lacking = missing(session, needed);
    if (lacking === undefined) return;
    if (!hide) throw insufficientScope(kind, name, needed, lacking, session.identity?.scopes !== undefined);
    if (kind === 'tool') throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    if (kind === 'prompt') throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${name}`, { uri: name });
  }

  /** A list reply, with what the session may not use taken out when hiding. */
  const listed = (ctx: Context, reply: Reply, key: string, required: Requirements, field: string): Reply =>
    hide ? keep(reply, key, (item) => allowed(ctx.session, required, item[field])) : reply;

  // Not async: a message it lets through gets next()'s own promise back, at no cost (a refusal
  // thrown here becomes a rejection in compose).
  return function requireScopes(ctx, next) {
    if (ctx.direction === 'toDownstream') {
      if (hide && ctx.method === 'notifications/resources/updated' && !allowed(ctx.session, resources, ctx.message.params?.uri)) {
        return Promise.resolve(undefined);
      }
      return next();
    }
    const params = ctx.message.params ?? {};
    switch (ctx.method) {
      case 'tools/call':
        check(ctx.session, 'tool', tools, params.name);
        return next();
      case 'prompts/get':
        check(ctx.session, 'prompt', prompts, params.name);
        return next();
      case 'completion/complete': {
        const ref = isJsonObject(params.ref) ? params.ref : {};
        if (ref.type === 'ref/prompt') check(ctx.session, 'prompt', prompts, ref.name);
        return next();
      }
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        check(ctx.session, 'resource', resources, params.uri);
        return next();
      case 'tools/list':
        return hide ? next().then((reply) => listed(ctx, reply, 'tools', tools, 'name')) : next();
      case 'prompts/list':
        return hide ? next().then((reply) => listed(ctx, reply, 'prompts', prompts, 'name')) : next();
      case 'resources/list':
        return hide ? next().then((reply) => listed(ctx, reply, 'resources', resources, 'uri')) : next();
      case 'resources/templates/list':
        return hide ? next().then((reply) => listed(ctx, reply, 'resourceTemplates', templates, 'uriTemplate')) : next();
      default:
        return next();
    }
  };
}

function requirements(table: Readonly<Record<string, ScopeRequirement>> | undefined, kind: string, fallback: readonly string[]): Requirements {
  const entries: Entry[] = Object.entries(table ?? {}).map(([pattern, scopes]) => ({
    matches: matchAny([pattern]),
    scopes: scopesOf(scopes, `requireScopes.${kind}[${JSON.stringify(pattern)}]`),
  }));
  if (entries.length === 0) return () => fallback;
  return (name) => entries.find((entry) => entry.matches(name))?.scopes ?? fallback;
}

/**
 * Resource requirements by uri: the union of what its normal and decoded forms need (the first
 * key each matches, or `fallback`) and what any key its raw spelling matches needs. Each key
 * also matches as its own normal form (`uriPatternForms`).
 */
function uriRequirements(table: Readonly<Record<string, ScopeRequirement>> | undefined, fallback: readonly string[]): Requirements {
  const entries: Entry[] = Object.entries(table ?? {}).map(([pattern, scopes]) => ({
    matches: matchAny(uriPatternForms(pattern)),
    scopes: scopesOf(scopes, `requireScopes.resources[${JSON.stringify(pattern)}]`),
  }));
  if (entries.length === 0) return () => fallback;
  const first = (form: string): Entry | undefined => entries.find((entry) => entry.matches(form));
  return (uri) => {
    const { raw, normal, decoded } = uriForms(uri);
    const needed = new Set([...(first(normal)?.scopes ?? fallback), ...(first(decoded)?.scopes ?? fallback), ...(first(raw)?.scopes ?? [])]);
    return [...needed];
  };
}

/** A requirement as a list, each scope checked (RFC 6749: no spaces, not empty). */
function scopesOf(requirement: ScopeRequirement, where: string): readonly string[] {
  const scopes: readonly string[] = typeof requirement === 'string' ? [requirement] : requirement;
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/u.test(scope)) {
      throw new ChainError('CONFIG', `${where}: ${JSON.stringify(scope)} is not a scope (printable characters, no spaces, quotes or backslashes)`);
    }
  }
  return [...new Set(scopes)];
}

/** The reply with only the allowed items of its `key` list (cursor, `_meta` and the rest kept). */
function keep(reply: Reply, key: string, visible: (item: JsonObject) => boolean): Reply {
  const items = reply?.[key];
  if (!Array.isArray(items)) return reply;
  return { ...reply, [key]: items.filter((item: unknown) => !isJsonObject(item) || visible(item)) };
}

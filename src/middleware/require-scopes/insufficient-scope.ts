import { McpError } from '../../errors/mcp-error.js';

/**
 * The JSON-RPC error code of a call `requireScopes` refused (with `onMissing: 'refuse'`): in the
 * implementation-defined range (-32000 to -32099), next to `approve`'s -32003 (both read as HTTP's
 * 403) and clear of the codes in use (-32000 connection closed, -32001 timeout, -32002 resource not
 * found, -32003 approval denied, -32029 rate limited, -32042 URL elicitation required).
 */
export const INSUFFICIENT_SCOPE = -32004;

/** What a refusal's `data` carries: every scope the item needs, and the item (one of `tool`, `prompt`, `uri`). */
export type InsufficientScopeData =
  | { readonly scopes: readonly string[]; readonly tool: string }
  | { readonly scopes: readonly string[]; readonly prompt: string }
  | { readonly scopes: readonly string[]; readonly uri: string };

/** Which kind of item a refusal is about, and the key its name goes under in `data`. */
export type ScopedKind = 'tool' | 'prompt' | 'resource';

/**
 * The refusal of a call to an item the caller's scopes do not cover. The message names the scopes
 * it needs and, when the session has scopes at all, those it lacks; never the caller's token.
 */
export function insufficientScope(kind: ScopedKind, name: string, needed: readonly string[], missing: readonly string[], scoped: boolean): McpError {
  const what = `the ${kind} ${JSON.stringify(name)}`;
  const needs = `${needed.length === 1 ? 'the scope' : 'the scopes'} ${quoteAll(needed)}`;
  const lacking = scoped
    ? `the caller lacks ${quoteAll(missing)}`
    : 'the caller has no scopes (a session without an OAuth token)';
  const data = kind === 'resource' ? { scopes: [...needed], uri: name } : kind === 'tool' ? { scopes: [...needed], tool: name } : { scopes: [...needed], prompt: name };
  return new McpError(INSUFFICIENT_SCOPE, `Insufficient scope: ${what} needs ${needs}; ${lacking}`, data);
}

function quoteAll(scopes: readonly string[]): string {
  const quoted = scopes.map((scope) => JSON.stringify(scope));
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1] ?? ''}`;
}

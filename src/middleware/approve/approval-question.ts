/**
 * @module
 * The question `approve` asks: an `elicitation/create` request in form mode (no `mode` member,
 * so clients of 2025-06-18 understand it too) naming the tool and
 * showing its arguments, with an "always allow" checkbox when approvals may be remembered.
 */
import type { JsonObject, McpMessage } from '../../message/jsonrpc.js';

/** The default question; `{tool}` and `{arguments}` are filled in. */
export const DEFAULT_MESSAGE = 'Allow the tool "{tool}" to run?\nArguments: {arguments}';

/** A string argument longer than this is cut in the question. */
export const MAX_VALUE_CHARS = 200;
/** The arguments are shown in at most this many characters. */
export const MAX_ARGUMENTS_CHARS = 2000;
const MAX_DEPTH = 20;

/** The property of the form that says "always allow this tool for this session". */
export const ALWAYS = 'always';

/**
 * The `elicitation/create` request for a call of `tool` with `args`. `template` may use `{tool}`
 * and `{arguments}` (compact JSON, long strings cut); `remember` adds the boolean `always`
 * property to the form.
 */
export function approvalQuestion(template: string, tool: string, args: unknown, remember: boolean): McpMessage {
  const values: Record<string, string> = { tool, arguments: previewArguments(args) };
  const message = template.replace(/\{(tool|arguments)\}/g, (_, key: string) => values[key] ?? '');
  const properties: JsonObject = remember
    ? { [ALWAYS]: { type: 'boolean', title: 'Always allow', description: `Always allow ${tool} for this session`, default: false } }
    : {};
  return { method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties } } };
}

/** Compact JSON of the arguments, with long strings and deep nesting cut, at most {@link MAX_ARGUMENTS_CHARS}. */
export function previewArguments(args: unknown): string {
  const text = JSON.stringify(shorten(args ?? {}, 0)) ?? '{}';
  return text.length <= MAX_ARGUMENTS_CHARS ? text : `${cut(text, MAX_ARGUMENTS_CHARS - 1)}…`;
}

/** The first `n` UTF-16 units of `text`, one fewer rather than half a surrogate pair. */
function cut(text: string, n: number): string {
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

function shorten(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return value.length <= MAX_VALUE_CHARS ? value : `${cut(value, MAX_VALUE_CHARS)}… (${value.length - MAX_VALUE_CHARS} more characters)`;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.map((item) => shorten(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shorten(item, depth + 1)]));
}

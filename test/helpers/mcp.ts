// Small typed helpers over SDK results, shared by the e2e suites.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolRequest, CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * client.callTool (which also validates structuredContent against the tool's outputSchema),
 * narrowed to a plain CallToolResult (the SDK types it as a union with the legacy toolResult shape).
 */
export async function callTool(
  client: Client,
  params: CallToolRequest['params'],
  options?: RequestOptions,
): Promise<CallToolResult> {
  return CallToolResultSchema.parse(await client.callTool(params, undefined, options));
}

export type BlockOf<T extends ContentBlock['type']> = Extract<ContentBlock, { type: T }>;

/** Content blocks of one type, in order. */
export function blocks<T extends ContentBlock['type']>(result: { content: ContentBlock[] }, type: T): BlockOf<T>[] {
  return result.content.filter((b): b is BlockOf<T> => b.type === type);
}

/** All text blocks of a tool result, joined with "\n". */
export function textOf(result: { content: ContentBlock[] }): string {
  return blocks(result, 'text')
    .map((b) => b.text)
    .join('\n');
}

/** The only element of `items`, failing loudly otherwise. */
export function only<T>(items: readonly T[], what = 'item'): T {
  if (items.length !== 1) throw new Error(`expected exactly one ${what}, got ${items.length}`);
  return items[0] as T;
}

/** Element `i` of `items`, failing loudly when missing (noUncheckedIndexedAccess-friendly). */
export function at<T>(items: readonly T[], i: number, what = 'item'): T {
  const v = items[i];
  if (v === undefined) throw new Error(`expected ${what} at index ${i}, have ${items.length}`);
  return v;
}

/** Predicate for assert.rejects: an McpError carrying JSON-RPC error `code`. */
export function mcpErrorWithCode(code: number, messageIncludes?: string): (e: unknown) => boolean {
  return (e) => {
    if (!(e instanceof McpError)) throw new Error(`expected McpError ${code}, got ${String(e)}`);
    if (e.code !== code) throw new Error(`expected McpError code ${code}, got ${e.code}: ${e.message}`);
    if (messageIncludes !== undefined && !e.message.includes(messageIncludes)) {
      throw new Error(`expected McpError message to include ${JSON.stringify(messageIncludes)}, got ${e.message}`);
    }
    return true;
  };
}

export type { CallToolResult };

/**
 * Progress values the SDK client reported through `onerror` as "unknown token": the 1.x client
 * drops a progress notification that arrives in the same read as its response.
 */
export function droppedProgress(errors: readonly Error[]): number[] {
  const prefix = 'Received a progress notification for an unknown token: ';
  return errors
    .filter((e) => e.message.startsWith(prefix))
    .map((e) => {
      const n: unknown = JSON.parse(e.message.slice(prefix.length));
      const params: unknown = typeof n === 'object' && n !== null ? Reflect.get(n, 'params') : undefined;
      const progress: unknown = typeof params === 'object' && params !== null ? Reflect.get(params, 'progress') : undefined;
      return typeof progress === 'number' ? progress : Number.NaN;
    });
}

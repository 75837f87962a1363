import type { JsonObject } from '../message/jsonrpc.js';
import { paramHeadersOf, type ParamHeader } from './param-headers.js';

/**
 * The `x-mcp-header` declarations of a server's tools, by tool name, as learnt from its
 * `tools/list` pages: what a 2026-07-28 client mirrors into `Mcp-Param-*` headers, and what a
 * server checks them against. A tool whose declarations are invalid maps to `undefined` (the spec
 * tells clients to leave it out). Forget it all when the list changes.
 */
export class ToolHeaderMap {
  readonly #tools = new Map<string, readonly ParamHeader[] | undefined>();
  #complete = false;

  /** Whether a whole list has been read since the last change (then an unknown tool has none). */
  get complete(): boolean {
    return this.#complete;
  }

  /** Notes the tools of one page of `tools/list`; `last`: it had no `nextCursor`. */
  learn(result: JsonObject, last: boolean): void {
    const tools = result.tools;
    if (Array.isArray(tools)) {
      for (const tool of tools) {
        if (typeof tool !== 'object' || tool === null) continue;
        const { name, inputSchema } = tool as JsonObject;
        if (typeof name !== 'string') continue;
        const headers = paramHeadersOf(inputSchema);
        // Only what declares headers (or declares them wrongly) is kept: the rest has none.
        if (headers === undefined || headers.length > 0) this.#tools.set(name, headers);
        else this.#tools.delete(name);
      }
    }
    if (last) this.#complete = true;
  }

  /** Notes a page of `tools/list` known to declare no headers at all (not read); `last` as above. */
  learnNone(last: boolean): void {
    if (last) this.#complete = true;
  }

  /** The declarations of `name`: `[]` when it declares none (or is not known), `undefined` when they are invalid. */
  headersOf(name: string): readonly ParamHeader[] | undefined {
    return this.#tools.has(name) ? this.#tools.get(name) : [];
  }

  /** The list changed: everything learnt is stale. */
  forget(): void {
    this.#tools.clear();
    this.#complete = false;
  }
}

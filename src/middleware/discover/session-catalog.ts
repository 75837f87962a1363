/**
 * @module
 * Each session's full tool catalog, as `discover` reads it through the rest of the chain: every
 * page of `tools/list`, read once (concurrent readers share the reading), kept until
 * `notifications/tools/list_changed`, with its search index built on first use.
 */
import type { Next } from '../../chain/middleware.js';
import type { SessionInfo } from '../../core/session-info.js';
import type { JsonObject, Result } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { ToolIndex } from './tool-index.js';

/** A guard against a server whose cursors never end. */
const MAX_PAGES = 1000;

/** One version of a session's catalog. */
export class Catalog {
  readonly tools: readonly JsonObject[];
  readonly byName: ReadonlyMap<string, JsonObject>;
  /** The first page as the server answered it, when it was the only page (for a list passed through unchanged). */
  readonly onlyPage: Result | undefined;
  #index: ToolIndex | undefined;

  constructor(tools: readonly JsonObject[], onlyPage: Result | undefined) {
    this.tools = tools;
    this.byName = new Map(tools.map((tool) => [tool.name as string, tool]));
    this.onlyPage = onlyPage;
  }

  /** The search index, built on first use (once per catalog version). */
  get index(): ToolIndex {
    return (this.#index ??= new ToolIndex(this.tools));
  }
}

/** Catalogs per session; a session's entry goes with the session. */
export class SessionCatalogs {
  readonly #sessions = new WeakMap<SessionInfo, Promise<Catalog>>();

  /** The session's catalog, reading it through `next` if it is not known (or is being read). */
  get(session: SessionInfo, next: Next): Promise<Catalog> {
    let catalog = this.#sessions.get(session);
    if (catalog === undefined) {
      catalog = read(next);
      this.#sessions.set(session, catalog);
      // A failed reading is not kept: the next use reads again.
      catalog.catch(() => {
        if (this.#sessions.get(session) === catalog) this.#sessions.delete(session);
      });
    }
    return catalog;
  }

  /** The session's tools changed: the next use reads them again (a reading under way answers those waiting for it). */
  invalidate(session: SessionInfo): void {
    this.#sessions.delete(session);
  }
}

/** Every page of the tools, through the rest of the chain. */
async function read(next: Next): Promise<Catalog> {
  const tools: JsonObject[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let first: Result | undefined;
  let pages = 0;
  for (; pages < MAX_PAGES; pages++) {
    const reply = await next({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } });
    first ??= reply;
    const items: unknown[] = Array.isArray(reply?.tools) ? reply.tools : [];
    for (const item of items) if (isJsonObject(item) && typeof item.name === 'string') tools.push(item);
    cursor = typeof reply?.nextCursor === 'string' ? reply.nextCursor : undefined;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return new Catalog(tools, pages === 0 && cursor === undefined ? first : undefined);
}

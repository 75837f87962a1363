/**
 * @module
 * The names of a session's resources by uri. `filter` rules may name a resource instead of its
 * uri, so to judge a `resources/read` of a bare uri it needs the name the server lists it under.
 */
import type { Next } from '../../chain/middleware.js';
import { isJsonObject } from '../../message/parse-message.js';
import type { SessionInfo } from '../../core/session-info.js';

/** A guard against a server whose cursors never end. */
const MAX_PAGES = 1000;

interface Names {
  byUri: Map<string, string>;
  stale: boolean;
  refreshing: Promise<void> | undefined;
}

/** uri → name per session, listed on first need and again after `notifications/resources/list_changed`. */
export class ResourceNames {
  readonly #sessions = new WeakMap<SessionInfo, Names>();

  /** The name `uri` is listed under, listing the session's resources through `next` when stale. */
  async lookup(session: SessionInfo, next: Next, uri: string): Promise<string | undefined> {
    let names = this.#sessions.get(session);
    if (!names) {
      names = { byUri: new Map(), stale: true, refreshing: undefined };
      this.#sessions.set(session, names);
    }
    if (names.stale) names.refreshing = refresh(names, next);
    await names.refreshing;
    return names.byUri.get(uri);
  }

  /** The name `uri` was last listed under, without listing. */
  known(session: SessionInfo, uri: string): string | undefined {
    return this.#sessions.get(session)?.byUri.get(uri);
  }

  /** The next lookup lists again; until then the old names still answer `known`. */
  invalidate(session: SessionInfo): void {
    const names = this.#sessions.get(session);
    if (names) names.stale = true;
  }
}

async function refresh(names: Names, next: Next): Promise<void> {
  names.stale = false; // set first, so that a list_changed arriving meanwhile makes it stale again
  const byUri = new Map<string, string>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await next({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } });
      const items: unknown[] = Array.isArray(reply?.resources) ? reply.resources : [];
      for (const item of items) {
        if (isJsonObject(item) && typeof item.uri === 'string' && typeof item.name === 'string') byUri.set(item.uri, item.name);
      }
      cursor = typeof reply?.nextCursor === 'string' ? reply.nextCursor : undefined;
      if (cursor === undefined || seen.has(cursor)) break;
      seen.add(cursor);
    }
    names.byUri = byUri;
  } catch {
    // No list (the server has no resources/list, or it failed): judge by uri alone, list next time.
    names.stale = true;
  }
}

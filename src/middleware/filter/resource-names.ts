/**
 * @module
 * The names of a session's resources by uri. `filter` rules may name a resource instead of its
 * uri, so to judge a `resources/read` of a bare uri it needs the name the server lists it under.
 */
import type { Next } from '../../chain/middleware.js';
import { isJsonObject } from '../../message/parse-message.js';
import type { SessionInfo } from '../../core/session-info.js';
import { uriForms } from './normalize-uri.js';

/** A guard against a server whose cursors never end. */
const MAX_PAGES = 1000;

interface Names {
  /** Names by each form (normal, decoded) of the uris they are listed under. */
  byUri: Map<string, string[]>;
  stale: boolean;
  refreshing: Promise<void> | undefined;
}

const NONE: readonly string[] = [];

/**
 * uri → names per session, listed on first need and again after
 * `notifications/resources/list_changed`. Keyed by the normal and decoded forms of each listed
 * uri ({@link uriForms}), so a uri spelt another way finds the names of what it reads.
 */
export class ResourceNames {
  readonly #sessions = new WeakMap<SessionInfo, Names>();

  /**
   * The names listed under a form (normal or decoded) of a uri, listing the session's resources
   * through `next` first when stale.
   */
  async lookup(session: SessionInfo, next: Next): Promise<(form: string) => readonly string[]> {
    let names = this.#sessions.get(session);
    if (!names) {
      names = { byUri: new Map(), stale: true, refreshing: undefined };
      this.#sessions.set(session, names);
    }
    if (names.stale) names.refreshing = refresh(names, next);
    await names.refreshing;
    const byUri = names.byUri;
    return (form) => byUri.get(form) ?? NONE;
  }

  /** The names `form` was last listed under, without listing. */
  known(session: SessionInfo, form: string): readonly string[] {
    return this.#sessions.get(session)?.byUri.get(form) ?? NONE;
  }

  /** The next lookup lists again; until then the old names still answer `known`. */
  invalidate(session: SessionInfo): void {
    const names = this.#sessions.get(session);
    if (names) names.stale = true;
  }
}

async function refresh(names: Names, next: Next): Promise<void> {
  names.stale = false; // set first, so that a list_changed arriving meanwhile makes it stale again
  const byUri = new Map<string, string[]>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await next({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } });
      const items: unknown[] = Array.isArray(reply?.resources) ? reply.resources : [];
      for (const item of items) {
        if (isJsonObject(item) && typeof item.uri === 'string' && typeof item.name === 'string') {
          const { normal, decoded } = uriForms(item.uri);
          for (const form of new Set([normal, decoded])) {
            const listed = byUri.get(form);
            if (listed) listed.push(item.name);
            else byUri.set(form, [item.name]);
          }
        }
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

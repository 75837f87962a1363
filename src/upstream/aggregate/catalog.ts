import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import type { JsonObject, Result } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { objectOfTexts, RawItem, rawItemsOf } from '../../message/raw-list.js';
import { CancelScope } from '../../core/cancel-scope.js';
import { requestScope } from '../../core/request-scope.js';
import { listDigest, type CursorCodec } from './cursor-codec.js';
import type { MemberLink } from './member-link.js';
import { NameTable, type NamingOptions } from './names.js';
import { uriTemplateMatcher } from './uri-template.js';
import { cacheHintsOf, mergeCacheHints, type CacheHints } from '../../eras/stateless-results.js';

/** The lists an aggregate merges. */
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

interface KindSpec {
  readonly method: string;
  /** The array in the result. */
  readonly field: string;
  /** The capability a member must have to be asked. */
  readonly capability: string;
  /** What identifies an item (and goes into the list's digest). */
  readonly key: string;
}

export const LIST_KINDS: Readonly<Record<ListKind, KindSpec>> = {
  tools: { method: 'tools/list', field: 'tools', capability: 'tools', key: 'name' },
  prompts: { method: 'prompts/list', field: 'prompts', capability: 'prompts', key: 'name' },
  resources: { method: 'resources/list', field: 'resources', capability: 'resources', key: 'uri' },
  resourceTemplates: { method: 'resources/templates/list', field: 'resourceTemplates', capability: 'resources', key: 'uriTemplate' },
};

/**
 * An item of a member's list: parsed, or (read lazily off the wire) as its bytes, so that a list
 * whose names only need mapping is merged without parsing and serializing every schema.
 */
type Item = JsonObject | RawItem;

/** One merged list, as the client sees it. */
interface Snapshot {
  readonly items: readonly Item[];
  readonly digest: string;
  /**
   * The caching hints of the merged list (2026-07-28): the smallest TTL and the most private scope
   * of the members', on every page; none when a member gave none (a session-era server), as a
   * list that is partly without hints has none.
   */
  readonly hints: CacheHints | undefined;
}

/** One member's whole list, and its hints when every page had them. */
interface MemberList {
  readonly items: Item[];
  readonly hints: CacheHints | undefined;
}

interface Template {
  readonly member: string;
  readonly uriTemplate: string;
  readonly matches: (uri: string) => boolean;
}

export interface CatalogOptions {
  readonly naming: NamingOptions;
  readonly listTimeoutMs: number;
  readonly pageSize: number | undefined;
  readonly codec: CursorCodec;
  readonly log: Logger;
}

/** A bound on the pages read from one member for one list: a server that loops is cut off. */
const MAX_PAGES = 10_000;

/**
 * What the members of one session offer, merged: the lists the client pages through (each a
 * snapshot, kept until a member says it changed or goes up or down), and the tables that route a
 * name, URI or template back to the member that listed it. Names are mapped with a
 * {@link NameTable}; a name once given keeps routing for the life of the session.
 */
export class Catalog {
  readonly #links: () => readonly MemberLink[];
  readonly #options: CatalogOptions;
  #tools: NameTable;
  #prompts: NameTable;
  /** URI → the member that listed it first (in member order). */
  #uriOwners = new Map<string, string>();
  #templates: readonly Template[] | undefined;
  /** The lists read since they last changed. */
  #fresh = new Set<ListKind>();
  /** With `pageSize`, the merged lists whose later pages may be asked for (their cursors name them). */
  #kept = new Map<ListKind, Snapshot>();
  /** A read under way per list, shared by the requests that arrive meanwhile (of the same epoch). */
  #reading = new Map<ListKind, { epoch: number; snapshot: Promise<Snapshot> }>();
  /** Counts the changes of each list: a read that began before a change is not fresh. */
  #epochs = new Map<ListKind, number>();
  /** Warnings given once per session (hidden names, URIs two members list, slow members). */
  readonly #warned = new Set<string>();

  constructor(links: () => readonly MemberLink[], options: CatalogOptions) {
    this.#links = links;
    this.#options = options;
    this.#tools = new NameTable(options.naming);
    this.#prompts = new NameTable(options.naming);
  }

  /** Forget a list (a member said it changed, or went down or up); the next page asked re-reads it. */
  invalidate(kind: ListKind): void {
    this.#epochs.set(kind, this.#epochOf(kind) + 1);
    this.#fresh.delete(kind);
    this.#kept.delete(kind);
    if (kind === 'resourceTemplates') this.#templates = undefined;
  }

  /** Start over: the set of members changed, so names may map differently. */
  reset(): void {
    for (const kind of Object.keys(LIST_KINDS) as ListKind[]) this.invalidate(kind);
    this.#tools = new NameTable(this.#options.naming);
    this.#prompts = new NameTable(this.#options.naming);
    this.#uriOwners = new Map();
  }

  /** Answers a list request: the first page re-reads every member; later pages come from the snapshot their cursor names. */
  async page(kind: ListKind, params: JsonObject | undefined): Promise<Result> {
    const cursor = params?.cursor;
    if (cursor === undefined) return this.#slice(kind, await this.refresh(kind), 0);
    const { digest, offset } = this.#options.codec.decode(cursor, kind);
    let snapshot = this.#kept.get(kind);
    if (snapshot?.digest !== digest) snapshot = await this.refresh(kind);
    if (snapshot.digest !== digest) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: the list changed since this cursor was given; list again from the start');
    }
    if (offset > snapshot.items.length) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: past the end of the list');
    return this.#slice(kind, snapshot, offset);
  }

  /**
   * Reads every member's whole list of `kind` (in parallel, each bounded) and merges them. Requests
   * that come while a read is under way share it (64 calls before the first list make one read,
   * not 64); a read is bounded by the list deadline, not by any one request's cancellation.
   */
  refresh(kind: ListKind): Promise<Snapshot> {
    const epoch = this.#epochOf(kind);
    const reading = this.#reading.get(kind);
    if (reading?.epoch === epoch) return reading.snapshot;
    const entry = { epoch, snapshot: this.#read(kind, epoch) };
    this.#reading.set(kind, entry);
    const done = (): void => {
      if (this.#reading.get(kind) === entry) this.#reading.delete(kind);
    };
    entry.snapshot.then(done, done);
    return entry.snapshot;
  }

  async #read(kind: ListKind, epoch: number): Promise<Snapshot> {
    const spec = LIST_KINDS[kind];
    const links = this.#links().filter((link) => link.isUp && link.has(spec.capability));
    const lists = await Promise.all(links.map((link) => this.#readAll(link, spec)));
    const items: Item[] = [];
    const owners = kind === 'resources' ? this.#keptOwners() : undefined;
    const templates: Template[] = [];
    links.forEach((link, i) => {
      for (const item of lists[i]?.items ?? []) {
        const merged = this.#merge(kind, link, item, owners, templates);
        if (merged !== undefined) items.push(merged);
      }
    });
    if (owners) this.#uriOwners = owners;
    if (kind === 'resourceTemplates') this.#templates = templates;
    // Only pages need the digest (it goes into their cursors), and only pages need the items kept.
    const paged = this.#options.pageSize !== undefined;
    const snapshot: Snapshot = { items, digest: paged ? listDigest(items.map((item) => String(member(item, spec.key)))) : '', hints: mergedHints(lists) };
    if (this.#epochOf(kind) === epoch) {
      this.#fresh.add(kind);
      if (paged) this.#kept.set(kind, snapshot);
    }
    return snapshot;
  }

  #epochOf(kind: ListKind): number {
    return this.#epochs.get(kind) ?? 0;
  }

  /** Whether the list of `kind` was read since it last changed. */
  isFresh(kind: ListKind): boolean {
    return this.#fresh.has(kind);
  }

  /** The member and original name of a tool (or prompt) as the client calls it. */
  route(kind: 'tools' | 'prompts', exposed: string): { member: string; original: string } | undefined {
    return (kind === 'tools' ? this.#tools : this.#prompts).resolve(exposed);
  }

  /** The member that listed `uri`, or whose template matches it. */
  async ownerOfUri(uri: string): Promise<string | undefined> {
    let owner = this.#uriOwners.get(uri);
    if (owner === undefined && !this.isFresh('resources')) {
      await this.refresh('resources');
      owner = this.#uriOwners.get(uri);
    }
    if (owner !== undefined) return owner;
    const templates = this.#templates ?? (await this.refresh('resourceTemplates'), this.#templates ?? []);
    return templates.find((template) => template.uriTemplate === uri || template.matches(uri))?.member;
  }

  #slice(kind: ListKind, snapshot: Snapshot, offset: number): Result {
    const { field } = LIST_KINDS[kind];
    const size = this.#options.pageSize;
    const end = size === undefined ? snapshot.items.length : Math.min(snapshot.items.length, offset + size);
    const items = offset === 0 && end === snapshot.items.length ? snapshot.items : snapshot.items.slice(offset, end);
    const nextCursor = end < snapshot.items.length ? this.#options.codec.encode({ kind, digest: snapshot.digest, offset: end }) : undefined;
    const hints = snapshot.hints;
    if (!items.some((item) => item instanceof RawItem)) {
      const page: Result = nextCursor === undefined ? { [field]: items } : { [field]: items, nextCursor };
      return hints === undefined ? page : { ...page, ttlMs: hints.ttlMs, cacheScope: hints.cacheScope };
    }
    // Items as bytes (those parsed, serialized once): the page is built as bytes, and goes out as them.
    const members: [string, string | readonly Item[]][] = [[field, items]];
    if (nextCursor !== undefined) members.push(['nextCursor', JSON.stringify(nextCursor)]);
    if (hints !== undefined) members.push(['ttlMs', String(hints.ttlMs)], ['cacheScope', JSON.stringify(hints.cacheScope)]);
    return objectOfTexts(members);
  }

  /** One member's item as the merged list shows it; undefined when it is hidden. */
  #merge(kind: ListKind, link: MemberLink, item: Item, owners: Map<string, string> | undefined, templates: Template[]): Item | undefined {
    if (kind === 'tools' || kind === 'prompts') {
      const name = member(item, 'name');
      if (typeof name !== 'string') return undefined;
      const added = (kind === 'tools' ? this.#tools : this.#prompts).add(link.name, link.prefix, name);
      if ('hiddenBy' in added) {
        this.#warnOnce(`${kind}:${name}:${link.name}`, `${kind === 'tools' ? 'tool' : 'prompt'} "${name}" of server "${link.name}" is hidden: server "${added.hiddenBy}" has one of that name`);
        return undefined;
      }
      if (added.exposed === name) return item;
      return item instanceof RawItem ? item.with('name', added.exposed) : { ...item, name: added.exposed };
    }
    if (kind === 'resources') {
      const uri = member(item, 'uri');
      if (typeof uri !== 'string' || !owners) return undefined;
      const owner = owners.get(uri);
      if (owner !== undefined && owner !== link.name && this.#links().some((other) => other.name === owner && other.isUp)) {
        this.#warnOnce(`uri:${uri}:${link.name}`, `resource ${uri} of server "${link.name}" is hidden: server "${owner}" lists it too`);
        return undefined;
      }
      owners.set(uri, link.name);
      return item;
    }
    const uriTemplate = member(item, 'uriTemplate');
    if (typeof uriTemplate !== 'string') return undefined;
    templates.push({ member: link.name, uriTemplate, matches: uriTemplateMatcher(uriTemplate) });
    return item;
  }

  /** The URI owners worth keeping across a re-read: those of members that are down now (their reads get "unavailable", not "not found"). */
  #keptOwners(): Map<string, string> {
    const down = new Set(this.#links().filter((link) => !link.isUp).map((link) => link.name));
    const kept = new Map<string, string>();
    for (const [uri, owner] of this.#uriOwners) if (down.has(owner)) kept.set(uri, owner);
    return kept;
  }

  /** Every page of one member's list, within the list deadline; undefined (and a warning) when it fails. */
  async #readAll(link: MemberLink, spec: KindSpec): Promise<MemberList | undefined> {
    const cancel = new CancelScope();
    const timeoutMs = this.#options.listTimeoutMs;
    const timer = setTimeout(() => cancel.abort(new McpError(ErrorCode.RequestTimeout, `did not list ${spec.field} within ${timeoutMs} ms`)), timeoutMs);
    const aborted = new Promise<never>((_, reject) => cancel.onAbort(reject));
    aborted.catch(noop);
    try {
      const items: Item[] = [];
      const pageHints: CacheHints[] = [];
      let hinted = true;
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const message = { method: spec.method, params: cursor === undefined ? {} : { cursor } };
        const result = await Promise.race([link.connection.request(message, requestScope(cancel, undefined)), aborted]);
        const hints = cacheHintsOf(result);
        if (hints === undefined) hinted = false;
        else pageHints.push(hints);
        const raw = rawItemsOf(result, spec.field);
        if (raw !== undefined) {
          for (const item of raw) items.push(item);
        } else {
          const list = result[spec.field];
          if (Array.isArray(list)) for (const item of list) if (isJsonObject(item)) items.push(item);
        }
        const next = result.nextCursor;
        if (typeof next !== 'string' || next === '' || seen.has(next)) break;
        seen.add(next);
        cursor = next;
      }
      this.#warned.delete(`slow:${link.name}:${spec.field}`);
      return { items, hints: hinted ? mergeCacheHints(pageHints, PRIVATE_NOW) : undefined };
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) link.suspect();
      if (!(error instanceof McpError && error.code === ErrorCode.MethodNotFound)) {
        const reason = error instanceof Error ? error.message : String(error);
        this.#warnOnce(`slow:${link.name}:${spec.field}`, `server "${link.name}" left out of ${spec.method}: ${reason}`);
      }
      return undefined;
    } finally {
      clearTimeout(timer);
      // A list nobody waits for any more is cancelled at the member.
      cancel.abort(new McpError(ErrorCode.RequestTimeout, 'list read ended'));
    }
  }

  #warnOnce(key: string, message: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#options.log.warn(message);
  }
}

/** Hints that allow no caching: what a list without any amounts to. */
const PRIVATE_NOW: CacheHints = { ttlMs: 0, cacheScope: 'private' };

/** The hints of a merged list: each member's merged, when every member that answered had some. */
function mergedHints(lists: readonly (MemberList | undefined)[]): CacheHints | undefined {
  const answered = lists.filter((list): list is MemberList => list !== undefined);
  if (answered.length === 0 || answered.some((list) => list.hints === undefined)) return undefined;
  return mergeCacheHints(answered.map((list) => list.hints as CacheHints), PRIVATE_NOW);
}

/** A member of an item, parsed or raw. */
function member(item: Item, key: string): unknown {
  return item instanceof RawItem ? item.get(key) : item[key];
}

function noop(): void {}

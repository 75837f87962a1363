import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import type { JsonObject, McpMessage, Result } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import type { Downstream } from '../../core/downstream.js';
import type { RequestScope } from '../../core/request-scope.js';
import type { SessionInfo } from '../../core/session-info.js';
import type { UpstreamConnection } from '../../core/upstream.js';
import type { AggregateMember } from './aggregate-options.js';
import { Catalog, LIST_KINDS, type CatalogOptions, type ListKind } from './catalog.js';
import { MemberLink, type LinkEvents, type RetryPolicy } from './member-link.js';
import { mergeInitialize } from './merge-initialize.js';
import { defaultPrefix } from './names.js';

/** What every connection of one aggregate shares. */
export interface ConnectionSettings {
  readonly catalog: Omit<CatalogOptions, 'log'>;
  readonly retry: RetryPolicy;
  readonly serverInfo: JsonObject;
}

/** `list_changed` notification of each merged list. */
const LIST_CHANGED: Readonly<Record<'tools' | 'prompts' | 'resources', string>> = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
};

/**
 * One client session's view of an aggregate: a {@link MemberLink} per member, the merged
 * {@link Catalog}, and the routing of every message to the member it belongs to.
 */
export class AggregateConnection implements UpstreamConnection {
  readonly #downstream: Downstream;
  readonly #session: SessionInfo;
  readonly #settings: ConnectionSettings;
  readonly #log: Logger;
  readonly #catalog: Catalog;
  #links: MemberLink[] = [];
  #byName = new Map<string, MemberLink>();
  /** The client's `initialize` params, once it sent them; members that start late get them too. */
  #initializeParams: JsonObject | undefined;
  #initialized = false;
  /** The last `logging/setLevel` the client sent, for members that start late. */
  #logLevel: JsonObject | undefined;
  /** URIs the client subscribed to: only their `resources/updated` reach it. */
  readonly #subscriptions = new Set<string>();
  /** Task id → the member that made it. */
  readonly #tasks = new Map<string, string>();
  /** Nested pauses asked by the session, applied to members added later. */
  #paused = 0;
  #closed = false;
  readonly #onClose: () => void;

  /** `onClose` is called once when the session closes it. */
  constructor(members: readonly AggregateMember[], downstream: Downstream, session: SessionInfo, settings: ConnectionSettings, onClose: () => void = noop) {
    this.#onClose = onClose;
    this.#downstream = downstream;
    this.#session = session;
    this.#settings = settings;
    this.#log = session.log;
    this.#catalog = new Catalog(() => this.#links, { ...settings.catalog, log: this.#log });
    this.#setLinks(members.map((member) => this.#link(member, members.length)));
  }

  request(message: McpMessage, scope: RequestScope): Promise<Result> {
    switch (message.method) {
      case 'tools/call':
        return this.#callNamed('tools', message, scope);
      case 'prompts/get':
        return this.#callNamed('prompts', message, scope);
      case 'tools/list':
        return this.#list('tools', message, scope);
      case 'prompts/list':
        return this.#list('prompts', message, scope);
      case 'resources/list':
        return this.#list('resources', message, scope);
      case 'resources/templates/list':
        return this.#list('resourceTemplates', message, scope);
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.#resourceRequest(message, scope);
      case 'completion/complete':
        return this.#complete(message, scope);
      case 'logging/setLevel':
        return this.#setLevel(message, scope);
      case 'tasks/get':
      case 'tasks/result':
      case 'tasks/cancel':
        return this.#taskRequest(message, scope);
      case 'tasks/list':
        return this.#listTasks(message, scope);
      case 'initialize':
        return this.#initialize(message, scope);
      default:
        return this.#unknown(message, scope);
    }
  }

  notify(message: McpMessage): Promise<void> {
    if (message.method === 'notifications/initialized') this.#initialized = true;
    for (const link of this.#links) link.notify(message);
    return Promise.resolve();
  }

  pause(): void {
    this.#paused++;
    for (const link of this.#links) link.connection.pause?.();
  }

  resume(): void {
    if (this.#paused === 0) return;
    this.#paused--;
    for (const link of this.#links) link.connection.resume?.();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose();
    await Promise.all(this.#links.map((link) => link.close()));
  }

  /**
   * Replaces the members: those whose settings and upstream object are unchanged keep their
   * connection; the others are closed, and the new ones connected (and initialized, if the client
   * already was). The client hears `list_changed`.
   */
  async update(members: readonly AggregateMember[]): Promise<void> {
    if (this.#closed) return;
    const kept: MemberLink[] = [];
    const added: MemberLink[] = [];
    const next = members.map((member) => {
      const current = this.#byName.get(member.name);
      if (current && sameMember(current.member, member) && current.prefix === prefixOf(member, members.length)) {
        kept.push(current);
        return current;
      }
      const link = this.#link(member, members.length);
      added.push(link);
      return link;
    });
    const removed = this.#links.filter((link) => !kept.includes(link));
    this.#setLinks(next);
    this.#catalog.reset();
    await Promise.all(removed.map((link) => link.close().catch((error: unknown) => link.log.warn('closing a removed server failed', { error: String(error) }))));
    const params = this.#initializeParams;
    if (params) await Promise.all(added.map((link) => this.#start(link, params, undefined)));
    if (this.#initialized) this.#tellListsChanged(['tools', 'prompts', 'resources']);
  }

  #link(member: AggregateMember, count: number): MemberLink {
    const link: MemberLink = new MemberLink(member, prefixOf(member, count), this.#memberDownstream(() => link), this.#session, this.#events, this.#settings.retry);
    for (let i = 0; i < this.#paused; i++) link.connection.pause?.();
    return link;
  }

  #setLinks(links: MemberLink[]): void {
    this.#links = links;
    this.#byName = new Map(links.map((link) => [link.name, link]));
  }

  readonly #events: LinkEvents = {
    changed: (link) => {
      if (this.#closed || !this.#byName.has(link.name)) return;
      for (const kind of Object.keys(LIST_KINDS) as ListKind[]) this.#catalog.invalidate(kind);
      if (this.#initialized) this.#tellListsChanged(listedBy(link));
    },
    lateStart: (link) => this.#afterStart(link),
  };

  async #initialize(message: McpMessage, scope: RequestScope): Promise<Result> {
    const params = message.params ?? {};
    this.#initializeParams = params;
    await Promise.all(this.#links.map((link) => this.#start(link, params, scope)));
    const offered = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
    return mergeInitialize(this.#links, offered, this.#settings.serverInfo);
  }

  async #start(link: MemberLink, params: JsonObject, scope: RequestScope | undefined): Promise<void> {
    await link.initialize(params, scope);
    if (link.isUp) await this.#afterStart(link);
  }

  /** A member that started after the client initialized is told what the others were told. */
  async #afterStart(link: MemberLink): Promise<void> {
    if (this.#initialized) link.connection.notify({ method: 'notifications/initialized' }).catch(() => undefined);
    const level = this.#logLevel;
    if (level && link.has('logging')) {
      await link.connection.request({ method: 'logging/setLevel', params: level }, { signal: AbortSignal.timeout(10_000) }).catch((error: unknown) => {
        link.log.debug('the server refused the log level', { error: String(error) });
      });
    }
  }

  /** The only member, when there is one and it has no prefix: everything passes to it as it is. */
  #only(): MemberLink | undefined {
    const only = this.#links.length === 1 ? this.#links[0] : undefined;
    return only?.prefix === undefined ? only : undefined;
  }

  /**
   * A list: merged from every member's pages; from a lone member without a prefix, its own answer
   * (its own pages and cursors, its very bytes), or an empty list while it is down.
   */
  #list(kind: ListKind, message: McpMessage, scope: RequestScope): Promise<Result> {
    const only = this.#only();
    if (!only) return this.#catalog.page(kind, message.params);
    if (only.isUp) return only.request(message, scope);
    return Promise.resolve({ [LIST_KINDS[kind].field]: [] });
  }

  /** `tools/call` and `prompts/get`: to the member whose name it is, under its own name. */
  #callNamed(kind: 'tools' | 'prompts', message: McpMessage, scope: RequestScope): Promise<Result> {
    const params = message.params ?? {};
    const only = this.#only();
    // One member without a prefix: names are its own, and it answers for unknown ones itself.
    if (only) return this.#withTask(only, only.request(message, scope), params);
    // The hot path: a listed name goes out at once, without an async frame.
    const name = params.name;
    const route = typeof name === 'string' ? this.#catalog.route(kind, name) : undefined;
    const link = route && this.#byName.get(route.member);
    if (route && link) return this.#send(link, route.original, message, params, scope);
    return this.#callUnlisted(kind, message, params, scope);
  }

  /** A name not (yet) in the tables: the lists are read if they were not since they changed, then it is looked up again. */
  async #callUnlisted(kind: 'tools' | 'prompts', message: McpMessage, params: JsonObject, scope: RequestScope): Promise<Result> {
    const name = params.name;
    const route = typeof name === 'string' ? await this.#route(kind, name) : undefined;
    const link = route && this.#byName.get(route.member);
    if (!route || !link) throw this.#unknownName(kind, name);
    return this.#send(link, route.original, message, params, scope);
  }

  /** The call to `link`, under the member's own name. */
  #send(link: MemberLink, original: string, message: McpMessage, params: JsonObject, scope: RequestScope): Promise<Result> {
    const sent = original === params.name ? message : { method: message.method, params: { ...params, name: original } };
    return this.#withTask(link, link.request(sent, scope), params);
  }

  /**
   * The error for a name no member listed: when it carries the prefix of a member that is down
   * (one that never started has listed nothing), that member is named; otherwise -32602.
   */
  #unknownName(kind: 'tools' | 'prompts', name: unknown): McpError {
    const separator = this.#settings.catalog.naming.separator;
    if (typeof name === 'string') {
      const down = this.#links.find((link) => !link.isUp && link.prefix !== undefined && name.startsWith(link.prefix + separator));
      if (down) return down.unavailable();
    }
    return new McpError(ErrorCode.InvalidParams, `Unknown ${kind === 'tools' ? 'tool' : 'prompt'}: ${String(name)}`);
  }

  async #route(kind: 'tools' | 'prompts', name: string): Promise<{ member: string; original: string } | undefined> {
    const route = this.#catalog.route(kind, name);
    if (route || this.#catalog.isFresh(kind)) return route;
    // Called before it was listed (or since a list changed): list, then look again.
    await this.#catalog.refresh(kind);
    return this.#catalog.route(kind, name);
  }

  /** A call made as a task (2025-11-25): remember which member has it. */
  #withTask(link: MemberLink, reply: Promise<Result>, params: JsonObject): Promise<Result> {
    return params.task === undefined ? reply : this.#rememberTask(link, reply);
  }

  async #rememberTask(link: MemberLink, reply: Promise<Result>): Promise<Result> {
    const result = await reply;
    const task = result.task;
    if (isJsonObject(task) && typeof task.taskId === 'string') this.#tasks.set(task.taskId, link.name);
    return result;
  }

  async #resourceRequest(message: McpMessage, scope: RequestScope): Promise<Result> {
    const uri = message.params?.uri;
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${message.method} needs a uri string`);
    const link = await this.#ownerOf(uri);
    const result = link ? await link.request(message, scope) : await this.#firstThatHas(uri, message, scope);
    if (message.method === 'resources/subscribe') this.#subscriptions.add(uri);
    else if (message.method === 'resources/unsubscribe') this.#subscriptions.delete(uri);
    return result;
  }

  async #ownerOf(uri: string): Promise<MemberLink | undefined> {
    if (this.#links.length === 1) return this.#links[0];
    const owner = await this.#catalog.ownerOfUri(uri);
    return owner === undefined ? undefined : this.#byName.get(owner);
  }

  /** A URI no member listed and no template matches: asked of each member with resources, in order, until one has it. */
  async #firstThatHas(uri: string, message: McpMessage, scope: RequestScope): Promise<Result> {
    let first: unknown;
    for (const link of this.#links) {
      if (!link.isUp || !link.has('resources')) continue;
      try {
        return await link.request(message, scope);
      } catch (error) {
        first ??= error;
      }
    }
    if (first instanceof McpError && first.code !== ErrorCode.ConnectionClosed) throw first;
    throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
  }

  /** `completion/complete`: by the prompt (its name mapped back) or the resource template it completes. */
  async #complete(message: McpMessage, scope: RequestScope): Promise<Result> {
    if (this.#links.length === 1 && this.#links[0]) return this.#links[0].request(message, scope);
    const params = message.params ?? {};
    const ref = params.ref;
    if (!isJsonObject(ref)) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: completion/complete needs a ref');
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const route = await this.#route('prompts', ref.name);
      const link = route && this.#byName.get(route.member);
      if (!route || !link) throw this.#unknownName('prompts', ref.name);
      return link.request({ ...message, params: { ...params, ref: { ...ref, name: route.original } } }, scope);
    }
    if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      const link = await this.#ownerOf(ref.uri);
      if (!link) throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      return link.request(message, scope);
    }
    throw new McpError(ErrorCode.InvalidParams, 'Invalid params: unknown completion ref');
  }

  /** `logging/setLevel` goes to every member with logging; it succeeds when one accepts it. */
  async #setLevel(message: McpMessage, scope: RequestScope): Promise<Result> {
    this.#logLevel = message.params ?? {};
    const links = this.#links.filter((link) => link.isUp && link.has('logging'));
    const outcomes = await Promise.allSettled(links.map((link) => link.request(message, scope)));
    const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (refused && outcomes.every((outcome) => outcome.status === 'rejected')) throw refused.reason;
    return {};
  }

  async #taskRequest(message: McpMessage, scope: RequestScope): Promise<Result> {
    const taskId = message.params?.taskId;
    if (typeof taskId !== 'string') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${message.method} needs a taskId`);
    let owner = this.#tasks.get(taskId);
    if (owner === undefined && this.#links.length > 1) {
      await this.#listTasks({ method: 'tasks/list' }, scope);
      owner = this.#tasks.get(taskId);
    }
    const link = owner === undefined ? (this.#links.length === 1 ? this.#links[0] : undefined) : this.#byName.get(owner);
    if (!link) throw new McpError(ErrorCode.InvalidParams, `Unknown task: ${taskId}`);
    return link.request(message, scope);
  }

  /** `tasks/list`: every member's tasks, on one page. */
  async #listTasks(message: McpMessage, scope: RequestScope): Promise<Result> {
    if (message.params?.cursor !== undefined && this.#links.length > 1) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor: tasks/list answers on one page');
    }
    if (this.#links.length === 1 && this.#links[0]) return this.#links[0].request(message, scope);
    const links = this.#links.filter((link) => link.isUp && link.has('tasks'));
    const tasks: unknown[] = [];
    const lists = await Promise.allSettled(links.map((link) => this.#allTasks(link, scope)));
    lists.forEach((outcome, i) => {
      if (outcome.status !== 'fulfilled') return;
      for (const task of outcome.value) {
        if (isJsonObject(task) && typeof task.taskId === 'string' && links[i]) this.#tasks.set(task.taskId, links[i].name);
        tasks.push(task);
      }
    });
    return { tasks };
  }

  async #allTasks(link: MemberLink, scope: RequestScope): Promise<unknown[]> {
    const tasks: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const result = await link.request({ method: 'tasks/list', params: cursor === undefined ? {} : { cursor } }, scope);
      if (Array.isArray(result.tasks)) tasks.push(...(result.tasks as unknown[]));
      if (typeof result.nextCursor !== 'string' || result.nextCursor === cursor) break;
      cursor = result.nextCursor;
    }
    return tasks;
  }

  /** A method the aggregate does not know: to the first member that does (one that does not answer -32601). */
  async #unknown(message: McpMessage, scope: RequestScope): Promise<Result> {
    let notFound: unknown;
    for (const link of this.#links) {
      if (!link.isUp) continue;
      try {
        return await link.request(message, scope);
      } catch (error) {
        if (!(error instanceof McpError && error.code === ErrorCode.MethodNotFound)) throw error;
        notFound ??= error;
      }
    }
    throw notFound ?? new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`);
  }

  /**
   * What a member sends toward the client: lists that changed refresh ours; updates only for
   * subscribed URIs; an elicitation that completed (a login) tries the member again if it waits for
   * one, and reaches the client if it was told of it.
   */
  #memberDownstream(link: () => MemberLink): Downstream {
    return {
      request: (message, scope) => this.#downstream.request(message, scope),
      notify: (message) => {
        const kind = changedList(message.method);
        if (kind) {
          this.#catalog.invalidate(kind);
          if (kind === 'resources') this.#catalog.invalidate('resourceTemplates');
          // Before the client is initialized it has listed nothing, and may not be told anything yet.
          if (!this.#initialized) return Promise.resolve();
        } else if (message.method === 'notifications/resources/updated') {
          const uri = message.params?.uri;
          if (typeof uri !== 'string' || !this.#subscriptions.has(uri)) return Promise.resolve();
        } else if (message.method === 'notifications/tasks/status') {
          const taskId = message.params?.taskId;
          if (typeof taskId === 'string' && !this.#tasks.has(taskId)) this.#tasks.set(taskId, link().name);
        } else if (message.method === 'notifications/elicitation/complete') {
          // A login it asked for ended: a member down for it is tried again at once. The client
          // hears of it when it was given that login (a call answered -32042), not otherwise.
          const member = link();
          member.retryLogin();
          if (!member.tellsCompletion(message.params?.elicitationId)) return Promise.resolve();
        }
        return this.#downstream.notify(message);
      },
      pause: () => this.#downstream.pause?.(),
      resume: () => this.#downstream.resume?.(),
    };
  }

  #tellListsChanged(kinds: readonly ('tools' | 'prompts' | 'resources')[]): void {
    for (const kind of kinds) {
      this.#downstream.notify({ method: LIST_CHANGED[kind] }).catch((error: unknown) => {
        this.#log.debug('telling the client a list changed failed', { error: String(error) });
      });
    }
  }
}

/** The prefix of `member` among `count` members. */
function prefixOf(member: AggregateMember, count: number): string | undefined {
  if (member.prefix === false || member.prefix === '') return undefined;
  if (member.prefix !== undefined) return member.prefix;
  return count > 1 ? defaultPrefix(member.name) : undefined;
}

function sameMember(a: AggregateMember, b: AggregateMember): boolean {
  return a.upstream === b.upstream && a.prefix === b.prefix && a.startupTimeoutMs === b.startupTimeoutMs && a.timeoutMs === b.timeoutMs;
}

/** The merged lists a member takes part in (all of them while it never said). */
function listedBy(link: MemberLink): ('tools' | 'prompts' | 'resources')[] {
  const kinds = (['tools', 'prompts', 'resources'] as const).filter((kind) => link.has(kind));
  return link.initializeResult === undefined ? ['tools', 'prompts', 'resources'] : kinds;
}

function changedList(method: string): ListKind | undefined {
  switch (method) {
    case 'notifications/tools/list_changed':
      return 'tools';
    case 'notifications/prompts/list_changed':
      return 'prompts';
    case 'notifications/resources/list_changed':
      return 'resources';
    default:
      return undefined;
  }
}

function noop(): void {}

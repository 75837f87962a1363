import { silentLogger } from '../../log/stderr-logger.js';
import type { Logger } from '../../log/logger.js';
import type { Downstream } from '../../core/downstream.js';
import type { SessionInfo } from '../../core/session-info.js';
import type { Upstream, UpstreamConnection } from '../../core/upstream.js';
import { AggregateConnection, type ConnectionSettings } from './aggregate-connection.js';
import type { AggregateMember, AggregateOptions } from './aggregate-options.js';
import { CursorCodec } from './cursor-codec.js';
import type { RetryPolicy } from './member-link.js';
import { DEFAULT_NAMING } from './names.js';

/**
 * Many servers behind one: an {@link Upstream} over named members (stdio, HTTP, in-process, chains,
 * other aggregates), itself usable anywhere an upstream is. Each client session gets a connection
 * to every member; their tools and prompts are merged under `<server>__<name>` (left as they are
 * with a single member), resources keep their URIs and are routed to the member that listed them,
 * lists are merged across all pages with our own signed cursors, and a member that fails drops out
 * of the lists until it is back. See "The aggregate" in docs/architecture.md.
 *
 * @example
 * const gateway = aggregate([
 *   { name: 'files', upstream: stdio({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] }) },
 *   { name: 'memory', upstream: stdio({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }) },
 * ]);
 * await serveStdio(chain().use(log()).to(gateway));
 */
export function aggregate(members: readonly AggregateMember[], options: AggregateOptions = {}): Aggregate {
  return new Aggregate(members, options);
}

export class Aggregate implements Upstream {
  #members: readonly AggregateMember[];
  readonly #settings: ConnectionSettings;
  readonly #log: Logger;
  readonly #connections = new Set<AggregateConnection>();

  constructor(members: readonly AggregateMember[], options: AggregateOptions = {}) {
    this.#members = checkedMembers(members);
    this.#log = options.log ?? silentLogger;
    const retry = options.retry ?? {};
    this.#settings = {
      catalog: {
        naming: {
          separator: options.separator ?? DEFAULT_NAMING.separator,
          maxNameLength: options.maxNameLength ?? DEFAULT_NAMING.maxNameLength,
        },
        listTimeoutMs: options.listTimeoutMs ?? 10_000,
        pageSize: options.pageSize,
        codec: new CursorCodec(),
      },
      retry: {
        initialDelayMs: retry.initialDelayMs ?? 1000,
        factor: retry.factor ?? 2,
        maxDelayMs: retry.maxDelayMs ?? 30_000,
        pingTimeoutMs: retry.pingTimeoutMs ?? 10_000,
        loginDelayMs: retry.loginDelayMs ?? 1000,
        loginWindowMs: retry.loginWindowMs ?? 15 * 60_000,
        ...breakerOf(options.breaker),
      },
      serverInfo: { ...(options.serverInfo ?? { name: 'mcp-chain', version: '0.0.0' }) },
    };
  }

  /** The members, in order. */
  get members(): readonly AggregateMember[] {
    return this.#members;
  }

  connect(downstream: Downstream, session: SessionInfo): UpstreamConnection {
    const connection = new AggregateConnection(this.#members, downstream, session, this.#settings, () => this.#connections.delete(connection));
    this.#connections.add(connection);
    return connection;
  }

  /**
   * Replaces the members. Running sessions keep the members whose upstream object and settings are
   * unchanged, close the ones removed, and connect (and initialize) the ones added or changed; their
   * clients hear `list_changed`. New sessions get the new members. The upstreams of members no longer
   * used are closed once every session has let them go.
   */
  async update(members: readonly AggregateMember[]): Promise<void> {
    const next = checkedMembers(members);
    const retired = this.#members.filter((old) => !next.some((member) => member.upstream === old.upstream));
    this.#members = next;
    await Promise.all([...this.#connections].map((connection) => connection.update(next)));
    for (const member of retired) {
      await member.upstream.close?.().catch((error: unknown) => this.#log.warn('closing a removed server failed', { server: member.name, error: String(error) }));
    }
  }

  /** Closes what the members' upstreams hold (shared connections); called once at shutdown. */
  async close(): Promise<void> {
    await Promise.all(this.#members.map((member) => member.upstream.close?.()));
  }
}

function breakerOf(options: AggregateOptions['breaker']): Pick<RetryPolicy, 'breaker' | 'now'> {
  if (options === false) return {};
  const { failureThreshold = 5, openMs = 1000, factor = 2, maxOpenMs = 30_000, now } = options ?? {};
  return { breaker: { failureThreshold, openMs, factor, maxOpenMs }, now };
}

function checkedMembers(members: readonly AggregateMember[]): readonly AggregateMember[] {
  const names = new Set<string>();
  for (const member of members) {
    if (names.has(member.name)) throw new TypeError(`aggregate: two members are named "${member.name}"`);
    names.add(member.name);
  }
  return [...members];
}

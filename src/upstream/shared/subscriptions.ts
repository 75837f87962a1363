import type { Result } from '../../message/jsonrpc.js';

/**
 * Who is subscribed to which resource URI, for many sessions sharing one upstream: the upstream is
 * subscribed once per URI (by the first subscriber) and unsubscribed when the last one leaves.
 * Changes to one URI run one after the other, so a subscribe and an unsubscribe cannot cross.
 */
export class Subscriptions<Member> {
  readonly #subscribers = new Map<string, Set<Member>>();
  readonly #queues = new Map<string, Promise<unknown>>();

  /** The members subscribed to `uri` (none if nobody is). */
  subscribers(uri: string): ReadonlySet<Member> {
    return this.#subscribers.get(uri) ?? noMembers;
  }

  /** The URIs `member` is subscribed to. */
  of(member: Member): string[] {
    return [...this.#subscribers].filter(([, members]) => members.has(member)).map(([uri]) => uri);
  }

  /** Subscribes `member`; `send` subscribes the upstream, and runs only for the first subscriber. */
  subscribe(uri: string, member: Member, send: () => Promise<Result>): Promise<Result> {
    return this.#serial(uri, async () => {
      const members = this.#subscribers.get(uri);
      if (members && members.size > 0) {
        members.add(member);
        return {};
      }
      const result = await send();
      this.#subscribers.set(uri, new Set([member]));
      return result;
    });
  }

  /**
   * Unsubscribes `member`; `send` unsubscribes the upstream, and runs only for the last
   * subscriber (a refusal leaves the subscription as it was). Unsubscribing what one is not
   * subscribed to succeeds and sends nothing.
   */
  unsubscribe(uri: string, member: Member, send: () => Promise<Result>): Promise<Result> {
    return this.#serial(uri, async () => {
      const members = this.#subscribers.get(uri);
      if (!members?.has(member)) return {};
      if (members.size > 1) {
        members.delete(member);
        return {};
      }
      const result = await send();
      this.#subscribers.delete(uri);
      return result;
    });
  }

  /**
   * Drops every subscription of a member that is gone; `send(uri)` unsubscribes the upstream from
   * the URIs nobody else is subscribed to (whether it succeeds or not, the member is dropped).
   */
  async release(member: Member, send: (uri: string) => Promise<unknown>): Promise<void> {
    await Promise.all(this.of(member).map((uri) => this.#serial(uri, async () => {
      const members = this.#subscribers.get(uri);
      if (!members?.delete(member) || members.size > 0) return;
      this.#subscribers.delete(uri);
      await send(uri);
    })));
  }

  /** Runs `task` after every earlier task on `uri` has settled. */
  #serial<T>(uri: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(uri) ?? Promise.resolve();
    const next = previous.then(task);
    const settled = next.then(noop, noop);
    this.#queues.set(uri, settled);
    void settled.then(() => {
      if (this.#queues.get(uri) === settled) this.#queues.delete(uri);
    });
    return next;
  }
}

const noMembers: ReadonlySet<never> = new Set();

function noop(): void {}

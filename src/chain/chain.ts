import { ChainError } from '../errors/chain-error.js';
import type { McpMessage, Result } from '../message/jsonrpc.js';
import { requestScope, type RequestScope } from '../core/request-scope.js';
import type { Downstream } from '../core/downstream.js';
import type { SessionInfo } from '../core/session-info.js';
import type { Upstream, UpstreamConnection } from '../core/upstream.js';
import { compose, type Composed } from './compose.js';
import { createContext, scopeOf, type Direction } from './context.js';
import type { Middleware } from './middleware.js';

const CHAIN = Symbol.for('mcp-chain.chain');

/**
 * Middleware in front of a terminal upstream. Client→server traffic runs the middleware in the
 * order they were added; server→client traffic runs them in reverse. A Chain is itself an
 * {@link Upstream}, so a chain can be the terminal of another chain.
 *
 * @example
 * const gateway = chain().use(filter({ tools: { deny: ['delete_*'] } })).use(log()).to(stdio({ command: 'my-server' }));
 */
export class Chain implements Upstream {
  /** Recognized across copies of this module (a chain file may load its own copy). */
  readonly [CHAIN] = true;
  readonly #middleware: Middleware[] = [];
  #terminal: Upstream | undefined;
  #compiled: { forward: Composed; backward: Composed } | undefined;

  use(...middleware: Middleware[]): this {
    if (this.#compiled) throw new ChainError('USAGE', 'use() after the chain was connected');
    this.#middleware.push(...middleware);
    return this;
  }

  /** Sets the terminal upstream: where messages go after the last middleware. */
  to(upstream: Upstream): this {
    if (this.#compiled) throw new ChainError('USAGE', 'to() after the chain was connected');
    this.#terminal = upstream;
    return this;
  }

  /** The terminal upstream, once set with `to()`. */
  get upstream(): Upstream | undefined {
    return this.#terminal;
  }

  /** Closes the middleware that hold resources, then the terminal upstream. Call once, at shutdown. */
  async close(): Promise<void> {
    for (const middleware of this.#middleware) await closeOf(middleware)?.();
    await this.#terminal?.close?.();
  }

  connect(downstream: Downstream, session: SessionInfo): UpstreamConnection {
    const terminal = this.#terminal;
    if (!terminal) throw new ChainError('USAGE', 'the chain has no upstream: end it with .to(upstream)');
    this.#compiled ??= { forward: compose(this.#middleware), backward: compose([...this.#middleware].reverse()) };
    const { forward, backward } = this.#compiled;
    const toClient = new Passage(backward, 'toDownstream', session, downstream, backward);
    const inner = terminal.connect(toClient, session);
    const toServer = new Passage(forward, 'toUpstream', session, inner, backward, toClient);
    return {
      request: (message, scope) => toServer.request(message, scope),
      notify: (message) => toServer.notify(message),
      close: () => inner.close(),
      pause: () => inner.pause?.(),
      resume: () => inner.resume?.(),
      // The terminal's health, unchanged: a chain goes down and up when its upstream does.
      onStatus: (listener) => inner.onStatus?.(listener) ?? (() => undefined),
    };
  }
}

/**
 * One direction of a connected chain: runs its onion for each message on its way to `target`.
 * Server→client traffic runs the stack in reverse (`backward`), so does the channel of messages
 * related to a request (its progress, the server's questions about it), made per request only
 * when the request has one.
 */
class Passage implements Downstream {
  readonly #onion: Composed;
  readonly #direction: Direction;
  readonly #session: SessionInfo;
  readonly #target: Downstream | UpstreamConnection;
  readonly #backward: Composed;
  /** The client side, for `ctx.downstream`; undefined: this passage is it. */
  readonly #toClient: Passage | undefined;

  constructor(onion: Composed, direction: Direction, session: SessionInfo, target: Downstream | UpstreamConnection, backward: Composed, toClient?: Passage) {
    this.#onion = onion;
    this.#direction = direction;
    this.#session = session;
    this.#target = target;
    this.#backward = backward;
    this.#toClient = toClient;
  }

  request(message: McpMessage, scope: RequestScope): Promise<Result> {
    const toClient = this.#toClient ?? this;
    const related = scope.related && new Passage(this.#backward, 'toDownstream', this.#session, scope.related, this.#backward, toClient);
    // Asking the client while handling a client's request belongs with that request (over
    // Streamable HTTP it then travels on that request's own stream).
    const downstream = related && this.#direction === 'toUpstream' ? related : toClient;
    const ctx = createContext({ message, kind: 'request', direction: this.#direction, session: this.#session, downstream, scope, related });
    const target = this.#target;
    // A middleware may have narrowed the scope (`next(message, { signal })`): the terminal sends with the context's.
    return this.#onion(ctx, (c) => {
      const current = scopeOf(c) ?? scope;
      return target.request(c.message, related ? withRelated(current, related) : current);
    }).then(requireResult(message));
  }

  notify(message: McpMessage): Promise<void> {
    const ctx = createContext({ message, kind: 'notification', direction: this.#direction, session: this.#session, downstream: this.#toClient ?? this });
    const target = this.#target;
    return this.#onion(ctx, (c) => target.notify(c.message).then(() => undefined)).then(() => undefined);
  }

  pause(): void {
    this.#target.pause?.();
  }

  resume(): void {
    this.#target.resume?.();
  }
}

/** A middleware may hold resources (a log file): the chain's `close()` calls its `close()`. */
function closeOf(middleware: Middleware): (() => Promise<void>) | undefined {
  const close = (middleware as { close?: unknown }).close;
  return typeof close === 'function' ? () => Promise.resolve(close.call(middleware)) : undefined;
}

/** True for a {@link Chain}, even one made by another copy of this module. */
export function isChain(value: unknown): value is Chain {
  return typeof value === 'object' && value !== null && (value as { [CHAIN]?: unknown })[CHAIN] === true;
}

/** Starts a chain, optionally with middleware. */
export function chain(...middleware: Middleware[]): Chain {
  return new Chain().use(...middleware);
}

/** The same cancellation, with another channel for related messages. */
function withRelated(scope: RequestScope, related: Downstream): RequestScope {
  const { cancel } = scope;
  return cancel ? requestScope(cancel, related) : { signal: scope.signal, related };
}

function requireResult(message: McpMessage): (reply: Result | undefined) => Result {
  return (reply) => {
    if (reply === undefined) {
      throw new ChainError('USAGE', `a middleware returned no result for ${message.method}: did it forget to return next()?`);
    }
    return reply;
  };
}

import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import type { JsonObject, McpMessage, Result } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { CancelScope } from '../../core/cancel-scope.js';
import { requestScope, type RequestScope } from '../../core/request-scope.js';
import type { Downstream } from '../../core/downstream.js';
import type { SessionInfo } from '../../core/session-info.js';
import type { Upstream, UpstreamConnection } from '../../core/upstream.js';
import { isLogLevel, LogLevels, type McpLogLevel } from './log-levels.js';
import { SharedSession, type SharedHub } from './shared-session.js';
import { Subscriptions } from './subscriptions.js';

export interface SharedOptions {
  /**
   * Where the shared connection logs (a stdio server's stderr is relayed there). Default: the log
   * of the session that opened it.
   */
  log?: Logger;
}

/** An `initialize` sent upstream for one session, which the others wait on. */
interface InitializeAttempt {
  owner: SharedSession;
  result: Promise<Result>;
}

/**
 * Many downstream sessions on ONE connection to `upstream` (opt-in; by default every session gets
 * its own). The connection is opened by the first session and closed by `close()`, at shutdown,
 * never when a session ends. See "Shared upstream" in docs/architecture.md for what is shared
 * (initialize, log level) and how server-originated traffic finds its session.
 *
 * @example
 * serveHttp(chain().use(log()).to(shared(stdio({ command: 'my-server' }))), { port: 8080 });
 */
export function shared(upstream: Upstream, options: SharedOptions = {}): SharedUpstream {
  return new SharedUpstream(upstream, options);
}

export class SharedUpstream implements Upstream {
  readonly #upstream: Upstream;
  readonly #options: SharedOptions;
  #inner: UpstreamConnection | undefined;
  readonly #members = new Set<SharedSession>();
  #initializing: InitializeAttempt | undefined;
  #initialized: { result: Result; params: JsonObject } | undefined;
  #initializedSent = false;
  readonly #subscriptions = new Subscriptions<SharedSession>();
  readonly #levels = new LogLevels<SharedSession>();
  /** Sessions held back while the upstream's input is full (nested pauses count once). */
  #paused = 0;
  readonly #held = new Set<SharedSession>();
  #log: Logger | undefined;
  #closed = false;

  constructor(upstream: Upstream, options: SharedOptions = {}) {
    this.#upstream = upstream;
    this.#options = options;
  }

  /** How many downstream sessions share the connection now. */
  get sessions(): number {
    return this.#members.size;
  }

  /** Whether the shared connection has been opened (by the first session). */
  get opened(): boolean {
    return this.#inner !== undefined;
  }

  connect(downstream: Downstream, session: SessionInfo): UpstreamConnection {
    const member = new SharedSession(this.#hub, downstream, session);
    if (this.#closed) {
      void member.close();
      return member;
    }
    this.#members.add(member);
    this.#log ??= this.#options.log ?? session.log;
    if (this.#paused > 0) this.#hold(member);
    this.#inner ??= this.#upstream.connect(this.#mux, this.#sharedInfo(session));
    return member;
  }

  /** Closes the shared connection (requests in flight fail) and the wrapped upstream. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const members = [...this.#members];
    this.#members.clear();
    for (const member of members) void member.close();
    await this.#inner?.close();
    await this.#upstream.close?.();
  }

  /** What the inner connection knows of "its" session: the first one's client, the shared log. */
  #sharedInfo(first: SessionInfo): SessionInfo {
    const read = <T>(get: () => T): { get: () => T; enumerable: true } => ({ get, enumerable: true });
    const params = (): JsonObject | undefined => this.#initialized?.params;
    const info = { id: `shared-${first.id}`, log: this.#options.log ?? first.log };
    return Object.defineProperties(info as SessionInfo, {
      protocolVersion: read(() => {
        const version = this.#initialized?.result.protocolVersion;
        return typeof version === 'string' ? version : undefined;
      }),
      clientInfo: read(() => objectOf(params()?.clientInfo)),
      clientCapabilities: read(() => objectOf(params()?.capabilities)),
    });
  }

  #connection(): UpstreamConnection {
    if (this.#closed || !this.#inner) throw new McpError(ErrorCode.ConnectionClosed, 'Shared upstream closed');
    return this.#inner;
  }

  readonly #hub: SharedHub = {
    initialize: (member, message, scope) => this.#initialize(member, message, scope),
    forward: (member, message, scope) => this.#forward(member, message, scope),
    notify: (_member, message) => this.#notifyUpstream(message),
    leave: (member) => this.#leave(member),
    onStatus: (listener) => this.#inner?.onStatus?.(listener) ?? (() => undefined),
  };

  /**
   * The first session's `initialize` goes upstream; the others get its result. If that one fails,
   * a waiting session tries its own.
   */
  async #initialize(member: SharedSession, message: McpMessage, scope: RequestScope): Promise<Result> {
    for (;;) {
      if (this.#initialized) return structuredClone(this.#initialized.result);
      let attempt = this.#initializing;
      if (!attempt) {
        const params = message.params ?? {};
        const result = this.#connection().request(message, scope);
        const started: InitializeAttempt = { owner: member, result };
        attempt = started;
        this.#initializing = started;
        result.then(
          (answer) => {
            this.#initialized = { result: answer, params };
            if (this.#initializing === started) this.#initializing = undefined;
          },
          () => {
            if (this.#initializing === started) this.#initializing = undefined;
          },
        );
      }
      try {
        const answer = await attempt.result;
        return attempt.owner === member ? answer : structuredClone(answer);
      } catch (error) {
        if (attempt.owner === member || aborted(scope)) throw error;
      }
    }
  }

  #forward(member: SharedSession, message: McpMessage, scope: RequestScope): Promise<Result> {
    const connection = this.#connection();
    const params = message.params ?? {};
    switch (message.method) {
      case 'resources/subscribe':
        if (typeof params.uri !== 'string') break;
        return this.#subscriptions.subscribe(params.uri, member, () => connection.request(message, scope));
      case 'resources/unsubscribe':
        if (typeof params.uri !== 'string') break;
        return this.#subscriptions.unsubscribe(params.uri, member, () => connection.request(message, scope));
      case 'logging/setLevel':
        if (!isLogLevel(params.level)) break;
        return this.#setLevel(member, params.level, message, scope);
    }
    return connection.request(message, scope);
  }

  /** The upstream is set to the most verbose level any session asked for. */
  async #setLevel(member: SharedSession, level: McpLogLevel, message: McpMessage, scope: RequestScope): Promise<Result> {
    const upstream = this.#levels.upstreamFor(member, level);
    if (upstream === undefined) {
      this.#levels.set(member, level, undefined);
      return {};
    }
    const result = await this.#connection().request({ ...message, params: { ...message.params, level: upstream } }, scope);
    this.#levels.set(member, level, upstream);
    return result;
  }

  #notifyUpstream(message: McpMessage): Promise<void> {
    if (message.method === 'notifications/initialized') {
      if (this.#initializedSent) return Promise.resolve();
      this.#initializedSent = true;
    }
    return this.#connection().notify(message);
  }

  /** A session ended: its subscriptions and log level are released; the connection stays. */
  async #leave(member: SharedSession): Promise<void> {
    this.#members.delete(member);
    this.#held.delete(member);
    if (this.#closed || !this.#inner) return;
    const inner = this.#inner;
    const background = (): RequestScope => requestScope(new CancelScope(), undefined);
    const warn = (what: string) => (error: unknown): void => {
      this.#log?.warn(`shared upstream: ${what} failed after a session ended`, { error: String(error) });
    };
    await this.#subscriptions.release(member, (uri) =>
      inner.request({ method: 'resources/unsubscribe', params: { uri } }, background()).catch(warn('unsubscribing')));
    const level = this.#levels.upstreamFor(member, undefined);
    this.#levels.set(member, undefined, undefined);
    if (level !== undefined) {
      await inner.request({ method: 'logging/setLevel', params: { level } }, background()).then(
        () => this.#levels.set(member, undefined, level),
        warn('lowering the log level'),
      );
    }
  }

  /** Where the shared connection's server-originated traffic arrives. */
  readonly #mux: Downstream = {
    request: (message, scope) => this.#serverRequest(message, scope),
    notify: (message) => {
      this.#serverNotification(message);
      return Promise.resolve();
    },
    pause: () => {
      if (this.#paused++ === 0) for (const member of this.#members) this.#hold(member);
    },
    resume: () => {
      if (this.#paused === 0 || --this.#paused > 0) return;
      const held = [...this.#held];
      this.#held.clear();
      for (const member of held) member.downstream.resume?.();
    },
  };

  #hold(member: SharedSession): void {
    this.#held.add(member);
    member.downstream.pause?.();
  }

  /**
   * A server→client request that came without saying which request it is for (a relation is
   * followed before it gets here: it goes to the related request's session directly). It goes to
   * the one session with requests in flight, or to the one session there is; otherwise it is
   * refused rather than guessed.
   */
  #serverRequest(message: McpMessage, scope: RequestScope): Promise<Result> {
    const ready = [...this.#members].filter((member) => member.ready);
    const busy = ready.filter((member) => member.inFlight > 0);
    const target = busy.length === 1 ? busy[0] : busy.length === 0 && ready.length === 1 ? ready[0] : undefined;
    if (target) return target.serverRequest(message, scope);
    return Promise.reject(new McpError(
      ErrorCode.InternalError,
      `mcp-chain shared upstream: cannot tell which client session ${message.method} is for ` +
        `(${busy.length} of ${ready.length} sessions have requests in flight); refused rather than guessed`,
    ));
  }

  /**
   * Resource updates go to the sessions subscribed to the resource, log messages to those whose
   * level wants them, list changes to every session; any other notification (progress and
   * cancellation are routed by the connection itself) only when there is one session to send it to.
   */
  #serverNotification(message: McpMessage): void {
    const params = message.params ?? {};
    const ready = [...this.#members].filter((member) => member.ready);
    let targets: Iterable<SharedSession>;
    if (message.method === 'notifications/resources/updated') {
      targets = typeof params.uri === 'string' ? this.#subscriptions.subscribers(params.uri) : [];
    } else if (message.method === 'notifications/message') {
      targets = ready.filter((member) => this.#levels.accepts(member, params.level));
    } else if (message.method.endsWith('/list_changed')) {
      targets = ready;
    } else if (ready.length === 1) {
      targets = ready;
    } else {
      this.#log?.debug('shared upstream: dropped a notification no session can be told apart for', { method: message.method });
      targets = [];
    }
    for (const member of targets) member.deliver(message);
  }
}

function objectOf(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

function aborted(scope: RequestScope): boolean {
  return scope.cancel ? scope.cancel.aborted : scope.signal.aborted;
}

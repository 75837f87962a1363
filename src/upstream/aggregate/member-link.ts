import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Logger } from '../../log/logger.js';
import type { JsonObject, McpMessage, Result } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { negotiateVersion } from '../../eras/versions.js';
import { CancelScope, onAbort } from '../../core/cancel-scope.js';
import type { Downstream } from '../../core/downstream.js';
import { requestScope, type RequestScope } from '../../core/request-scope.js';
import type { SessionInfo } from '../../core/session-info.js';
import type { UpstreamConnection } from '../../core/upstream.js';
import { URL_ELICITATION_REQUIRED } from '../http/session-auth.js';
import type { AggregateMember } from './aggregate-options.js';
import { CircuitBreaker, type BreakerPolicy } from './circuit-breaker.js';

/** How a member that is down is tried again. */
export interface RetryPolicy {
  readonly initialDelayMs: number;
  readonly factor: number;
  readonly maxDelayMs: number;
  /** How long a `ping` (a probe, or a check of a member that seems stuck) may take. */
  readonly pingTimeoutMs: number;
  /**
   * A member down because a person must log in is tried again this often (not with backoff), so
   * that it is back within about this long of the login (here or by `mcp-chain auth login`).
   */
  readonly loginDelayMs: number;
  /** For how long after it went down for a login it is tried that often; then with backoff. */
  readonly loginWindowMs: number;
  /** The circuit breaker of calls to a member that is up but keeps failing; undefined: none. */
  readonly breaker?: BreakerPolicy | undefined;
  /** The clock of the breaker (tests); default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** What a link tells the connection it belongs to. */
export interface LinkEvents {
  /** The member went down (`wasUp`: it was serving) or came back up. */
  changed(link: MemberLink, wasUp: boolean): void;
  /** The member initialized late (it was down when the client initialized): bring it to the session's state. */
  lateStart(link: MemberLink): Promise<void>;
}

export type LinkState = 'starting' | 'up' | 'down' | 'closed';

const DEFAULT_STARTUP_MS = 30_000;

/**
 * One member of an aggregate, as one session sees it: its connection, whether it serves now, what
 * it answered to `initialize`, and its way back when it fails. A member that fails to start,
 * crashes or stops answering is *down*: it is left out of lists, calls to it get an error naming
 * it, and it is tried again with backoff (a `ping`, or `initialize` if it never answered one;
 * a stdio server is restarted by that message) until it answers. A member down because a person
 * must log in (its `initialize` was answered with a login error) keeps that error for its calls,
 * and is tried again every `loginDelayMs` (and at once when the login's elicitation completes).
 */
export class MemberLink {
  readonly member: AggregateMember;
  /** The prefix of its tools and prompts; undefined: none. */
  readonly prefix: string | undefined;
  readonly connection: UpstreamConnection;
  readonly log: Logger;
  #state: LinkState = 'starting';
  #reason: string | undefined;
  /** The login error its last start failed with, while it is down for it. */
  #login: McpError | undefined;
  /** When it went down for a login (for `loginWindowMs`). */
  #loginSince: number | undefined;
  /** The elicitation ids of the logins its start failed with, and those of them the client was given. */
  readonly #startLogins = new Set<string>();
  readonly #toldLogins = new Set<string>();
  /** What it answered to `initialize`, once it did. */
  #initialized: JsonObject | undefined;
  /** The client's `initialize` params, to start it again with; undefined until the client initialized. */
  #initializeParams: JsonObject | undefined;
  readonly #events: LinkEvents;
  readonly #retry: RetryPolicy;
  #failures = 0;
  #timer: NodeJS.Timeout | undefined;
  /** A liveness `ping` is out (see `suspect`). */
  #suspected = false;
  /** A probe is out: no other is scheduled until it ends. */
  #probing = false;
  /** A login completed while a probe was out: another goes at once after it. */
  #probeAgain = false;
  readonly #unsubscribe: () => void;
  /** Fails calls fast while the member, up, keeps failing them (see `RetryPolicy.breaker`). */
  readonly #breaker: CircuitBreaker | undefined;

  constructor(
    member: AggregateMember,
    prefix: string | undefined,
    downstream: Downstream,
    session: SessionInfo,
    events: LinkEvents,
    retry: RetryPolicy,
  ) {
    this.member = member;
    this.prefix = prefix;
    this.#events = events;
    this.#retry = retry;
    this.#breaker = retry.breaker ? new CircuitBreaker(retry.breaker, retry.now) : undefined;
    this.log = session.log.child({ server: member.name });
    const info: SessionInfo = Object.create(session, {
      log: { value: this.log, enumerable: true },
      // The session records them once the members answered `initialize`; a member (a remote one
      // choosing how to ask for a login) may need them while it starts.
      clientCapabilities: {
        get: (): SessionInfo['clientCapabilities'] => session.clientCapabilities ?? capabilitiesOf(this.#initializeParams),
        enumerable: true,
      },
    }) as SessionInfo;
    this.connection = member.upstream.connect(downstream, info);
    this.#unsubscribe =
      this.connection.onStatus?.((status) => {
        if (status.state === 'down') this.markDown(status.reason);
        else if (this.#initialized) this.#markUp();
      }) ?? noop;
  }

  get name(): string {
    return this.member.name;
  }

  get state(): LinkState {
    return this.#state;
  }

  get isUp(): boolean {
    return this.#state === 'up';
  }

  /** Why it is down, in a few words. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** Its `initialize` result's `capabilities`, once it answered. */
  get capabilities(): JsonObject {
    const capabilities = this.#initialized?.capabilities;
    return isJsonObject(capabilities) ? capabilities : {};
  }

  get initializeResult(): JsonObject | undefined {
    return this.#initialized;
  }

  /** Whether it says it has `capability` (`tools`, `prompts`, `resources`, `logging`, `completions`, `tasks`). */
  has(capability: string): boolean {
    return this.capabilities[capability] !== undefined;
  }

  /**
   * Sends the client's `initialize` to it, bounded by its start-up deadline. Resolves either way:
   * a member that fails is marked down (and tried again later).
   */
  async initialize(params: JsonObject, scope: RequestScope | undefined): Promise<void> {
    this.#initializeParams = params;
    try {
      this.#initialized = await this.#initializeOnce(params, scope);
      if (this.#state === 'starting') this.#state = 'up';
      else this.#markUp();
    } catch (error) {
      if (this.#state === 'closed') return;
      this.markDown(reasonOf(error), loginErrorOf(error));
    }
  }

  /**
   * A request to this member, under its own deadline (`timeoutMs`) when it has one. While it is
   * down, fails at once with an error naming it.
   */
  request(message: McpMessage, scope: RequestScope): Promise<Result> {
    if (this.#state === 'down' || this.#state === 'closed') return Promise.reject(this.unavailable());
    const breaker = this.#breaker;
    if (breaker === undefined) return this.#send(message, scope);
    const admission = breaker.admit();
    if (!admission.admitted) {
      const reason = `circuit open after ${admission.failures} failures (last: ${admission.lastFailure})`;
      return Promise.reject(new McpError(ErrorCode.ConnectionClosed, `Server "${this.name}" is unavailable: ${reason}`, {
        server: this.name,
        reason,
        retryInMs: admission.retryInMs,
      }));
    }
    const { probe } = admission;
    if (probe) this.log.info(`server "${this.name}": circuit half-open, one call probes it`);
    return this.#send(message, scope).then(
      (result) => {
        if (probe || breaker.failures > 0) this.#closeCircuit(breaker, probe);
        return result;
      },
      (error: unknown) => {
        if ((scope.cancel ?? scope.signal).aborted) breaker.released(probe);
        else if (isMemberFailure(error)) {
          const was = breaker.state;
          breaker.failed(reasonOf(error), probe);
          if (was !== 'open' && breaker.state === 'open') this.log.warn(`server "${this.name}": circuit open after ${breaker.failures} failures (last: ${reasonOf(error)})`);
        } else this.#closeCircuit(breaker, probe);
        throw error;
      },
    );
  }

  /** A call the member answered (a result, or an error of its own): the breaker's count starts again. */
  #closeCircuit(breaker: CircuitBreaker, probe: boolean): void {
    const was = breaker.state;
    breaker.succeeded(probe);
    if (was !== 'closed' && breaker.state === 'closed') this.log.info(`server "${this.name}": circuit closed`);
  }

  #send(message: McpMessage, scope: RequestScope): Promise<Result> {
    const timeout = this.member.timeoutMs;
    if (timeout === undefined) return this.connection.request(message, scope);
    return this.#bounded(message, scope, timeout, message.method);
  }

  notify(message: McpMessage): void {
    if (this.#state !== 'up') return;
    this.connection.notify(message).catch((error: unknown) => {
      this.log.debug('a notification to the server failed', { method: message.method, error: String(error) });
    });
  }

  /** Whether it is down because a person must log in. */
  get needsLogin(): boolean {
    return this.#state === 'down' && this.#login !== undefined;
  }

  /**
   * The error a call to it gets while it cannot serve. Down for a login: the login error as its
   * connection gave it (-32042 with its elicitation), or -32000 whose data also has the error's
   * `login` (the command) and `url`.
   */
  unavailable(): McpError {
    const reason = this.#reason ?? (this.#state === 'closed' ? 'removed' : 'starting');
    const login = this.#state === 'down' ? this.#login : undefined;
    if (login?.code === URL_ELICITATION_REQUIRED) {
      for (const id of elicitationIds(login)) remember(this.#toldLogins, id);
      return new McpError(login.code, login.message, login.data);
    }
    const data: JsonObject = { server: this.name, reason };
    if (login && isJsonObject(login.data)) {
      if (login.data.login !== undefined) data.login = login.data.login;
      if (login.data.url !== undefined) data.url = login.data.url;
    }
    return new McpError(ErrorCode.ConnectionClosed, `Server "${this.name}" is unavailable: ${reason}`, data);
  }

  /**
   * Takes it out of service (told once) and schedules its way back; `login`: the login error it
   * failed with, when a person must log in.
   */
  markDown(reason: string, login?: McpError): void {
    if (this.#state === 'closed') return;
    const wasUp = this.#state === 'up' || this.#state === 'starting';
    const wasLogin = this.#login !== undefined;
    this.#reason = reason;
    this.#login = login;
    if (login?.code === URL_ELICITATION_REQUIRED) for (const id of elicitationIds(login)) remember(this.#startLogins, id);
    if (login === undefined) this.#loginSince = undefined;
    else this.#loginSince ??= Date.now();
    if (this.#state !== 'down') {
      this.#state = 'down';
      this.log.warn(`server "${this.name}" is down: ${reason}`);
      this.#events.changed(this, wasUp);
    } else if (login !== undefined && !wasLogin) {
      this.log.warn(`server "${this.name}" is down: ${reason}`);
    }
    this.#scheduleProbe();
  }

  /**
   * Whether the client is to hear that the elicitation `id` completed: not when it is a login its
   * start failed with that the client never asked for (its calls did not get it).
   */
  tellsCompletion(id: unknown): boolean {
    return typeof id !== 'string' || !this.#startLogins.has(id) || this.#toldLogins.has(id);
  }

  /** Tries it again now, when it is down for a login (the login may have completed). */
  retryLogin(): void {
    if (!this.needsLogin) return;
    if (this.#probing) {
      this.#probeAgain = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    void this.#probe();
  }

  /**
   * It did not answer something in time (a list): asks it for a `ping`, and takes it out of
   * service if that goes unanswered too. A server that is only slow at listing stays in.
   */
  suspect(): void {
    if (this.#state !== 'up' || this.#suspected) return;
    this.#suspected = true;
    this.#bounded({ method: 'ping' }, undefined, this.#retry.pingTimeoutMs, 'ping').then(
      () => {
        this.#suspected = false;
      },
      (error: unknown) => {
        this.#suspected = false;
        if (this.#state === 'up') this.markDown(`stopped answering (${reasonOf(error)})`);
      },
    );
  }

  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    clearTimeout(this.#timer);
    this.#unsubscribe();
    await this.connection.close();
  }

  #markUp(): void {
    if (this.#state === 'up' || this.#state === 'closed') return;
    this.#state = 'up';
    this.#reason = undefined;
    this.#login = undefined;
    this.#loginSince = undefined;
    this.#failures = 0;
    this.#breaker?.reset();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.log.info(`server "${this.name}" is back`);
    this.#events.changed(this, false);
  }

  #scheduleProbe(): void {
    if (this.#timer !== undefined || this.#probing || this.#state !== 'down') return;
    const { initialDelayMs, factor, maxDelayMs, loginDelayMs, loginWindowMs } = this.#retry;
    const since = this.#loginSince;
    let delay: number;
    if (since !== undefined && Date.now() - since < loginWindowMs) {
      delay = loginDelayMs;
    } else {
      delay = Math.min(initialDelayMs * factor ** this.#failures, maxDelayMs);
      this.#failures++;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#probe();
    }, delay);
    // A member being retried never keeps the process alive on its own.
    this.#timer.unref();
  }

  /** Tries it again: `initialize` if it never answered one (then brings it to the session's state), otherwise `ping`. */
  async #probe(): Promise<void> {
    if (this.#state !== 'down' || this.#probing) return;
    this.#probing = true;
    try {
      await this.#probeOnce();
    } finally {
      this.#probing = false;
    }
    if (this.#probeAgain) {
      this.#probeAgain = false;
      this.retryLogin();
    }
    this.#scheduleProbe();
  }

  async #probeOnce(): Promise<void> {
    const params = this.#initializeParams;
    try {
      if (this.#initialized === undefined && params !== undefined) {
        this.#initialized = await this.#initializeOnce(params, undefined);
        await this.#events.lateStart(this);
      } else {
        await this.#bounded({ method: 'ping' }, undefined, this.#retry.pingTimeoutMs, 'ping');
      }
      this.#markUp();
    } catch (error) {
      if (this.#state !== 'down') return;
      this.log.debug(`server "${this.name}" is still down`, { error: reasonOf(error) });
      // Still (or now, or no longer) waiting for a login: its latest error is what calls get.
      const login = loginErrorOf(error);
      if (this.#initialized === undefined || login !== undefined || this.#login !== undefined) this.markDown(reasonOf(error), login);
    }
  }

  /** One `initialize`, within the start-up deadline; an answer in a protocol version mcp-chain does not serve is a failure. */
  async #initializeOnce(params: JsonObject, scope: RequestScope | undefined): Promise<JsonObject> {
    const result = await this.#bounded({ method: 'initialize', params }, scope, this.member.startupTimeoutMs ?? DEFAULT_STARTUP_MS, 'initialize');
    const version = result.protocolVersion;
    if (typeof version !== 'string' || negotiateVersion(version) !== version) {
      throw new McpError(ErrorCode.InternalError, `answered protocol version ${String(version)}, which mcp-chain does not serve`);
    }
    return result;
  }

  /** `message` sent under a deadline of its own (and the caller's cancellation, if any). */
  #bounded(message: McpMessage, outer: RequestScope | undefined, timeoutMs: number, what: string): Promise<Result> {
    const cancel = new CancelScope();
    const unlink = outer ? onAbort(outer.cancel ?? outer.signal, (reason) => cancel.abort(reason)) : noop;
    return new Promise<Result>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new McpError(ErrorCode.RequestTimeout, `Server "${this.name}" did not answer ${what} within ${timeoutMs} ms`, {
          server: this.name,
          timeout: timeoutMs,
        });
        cancel.abort(error);
        reject(error);
      }, timeoutMs);
      this.connection.request(message, requestScope(cancel, outer?.related)).then(
        (result) => {
          clearTimeout(timer);
          unlink();
          resolve(result);
        },
        (error: unknown) => {
          clearTimeout(timer);
          unlink();
          reject(error);
        },
      );
    });
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return error.message.replace(/^Server "[^"]*" /, '');
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether a call's error is the member's failure (for the breaker): its connection closed or broke
 * (-32000, an HTTP 5xx or no answer at all) or the call timed out (-32001). Not: an error the
 * server itself answered (-32602 and the like), an HTTP 4xx, or a login it asks for.
 */
function isMemberFailure(error: unknown): boolean {
  if (!(error instanceof McpError) || loginErrorOf(error) !== undefined) return false;
  if (error.code === ErrorCode.RequestTimeout) return true;
  if (error.code !== ErrorCode.ConnectionClosed) return false;
  const status = isJsonObject(error.data) ? error.data.status : undefined;
  return typeof status !== 'number' || status >= 500;
}

/**
 * The error when it says a person must log in (recognized by its shape, not its text): -32042
 * (URL elicitation required), or one whose data has a `login` (the command that logs in).
 */
function loginErrorOf(error: unknown): McpError | undefined {
  if (!(error instanceof McpError)) return undefined;
  if (error.code === URL_ELICITATION_REQUIRED) return error;
  return isJsonObject(error.data) && typeof error.data.login === 'string' ? error : undefined;
}

/** The ids of the elicitations of a -32042. */
function elicitationIds(error: McpError): string[] {
  const elicitations = isJsonObject(error.data) ? error.data.elicitations : undefined;
  if (!Array.isArray(elicitations)) return [];
  return elicitations.flatMap((e: unknown) => (isJsonObject(e) && typeof e.elicitationId === 'string' ? [e.elicitationId] : []));
}

/** Adds `id` to `ids`, which keeps the latest few. */
function remember(ids: Set<string>, id: string): void {
  ids.delete(id);
  ids.add(id);
  for (const oldest of ids) {
    if (ids.size <= 32) break;
    ids.delete(oldest);
  }
}

/** The `capabilities` of a client's `initialize` params. */
function capabilitiesOf(params: JsonObject | undefined): JsonObject | undefined {
  const capabilities = params?.capabilities;
  return isJsonObject(capabilities) ? capabilities : undefined;
}

function noop(): void {}

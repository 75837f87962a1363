/**
 * The soak's load: `sessions` official SDK clients (Client + StreamableHTTPClientTransport) on one
 * gateway, each keeping `inFlight` tool calls in flight, every answer checked against its request.
 *
 * Each call carries a token unique in the run (`s<session>.c<seq>`); the member puts it in its
 * answer (bench/soak/content.ts). A call ends in exactly one of:
 * - **ok**: answered, and the answer is the one its request asked for (the token and member,
 *   every progress notification with this call's token, the sampling answer of this session, the
 *   large text's sha256); a `cancel` call is ok when it ends with its own cancellation error;
 * - **misrouted**: answered with what belongs to another call or member;
 * - **wrong**: answered for this call, but not as asked (a missing progress step, a bad hash, a
 *   cancelled call that got a result);
 * - **error**: rejected with an error (counted by kind: `rpc <code>: <message>`, `http <status>`,
 *   `transport: <message>`), or answered with the tool's own error result (`tool error: ...`): a
 *   call that fails because the gateway went away is an error;
 * - **lost**: no answer within the call's deadline.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { largeText, progressMessage, samplingAnswer, sha256 } from './content.js';

/** The kinds of call: the member's tools, and `cancel` (a slow call aborted by the client). */
export const CALL_KINDS = ['echo', 'progress', 'sample', 'large', 'slow', 'cancel'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

/** Relative weights of the kinds of call. */
export type CallMix = Record<CallKind, number>;

/** The default mix: mostly small calls, a few large ones, one in five cancelled. */
export const DEFAULT_MIX: CallMix = { echo: 30, progress: 20, sample: 15, large: 4, slow: 11, cancel: 20 };

export interface LoadOptions {
  /** The gateway's MCP endpoint. */
  readonly url: string;
  readonly sessions: number;
  readonly inFlight: number;
  /** The gateway's members (tools are `<member>__<tool>`). */
  readonly members: readonly string[];
  /** The members whose `sample` reaches this session (a shared stdio member's cannot: see docs/architecture.md). */
  readonly samplingMembers: readonly string[];
  readonly mix: CallMix;
  /** Size of `large` answers, bytes: uniform in [min, max]. */
  readonly largeBytes: readonly [number, number];
  /** A call unanswered after this long is lost. */
  readonly deadlineMs: number;
  /** Seed of the choices (kinds, members, sizes, delays). */
  readonly seed: number;
  /** Sessions connecting at once. */
  readonly connectConcurrency: number;
  /** Asked before each call: false once the load should stop starting calls. */
  readonly running: () => boolean;
}

/** Counters of one kind of call; latencies (ms) of the ok ones. */
export interface KindCounters {
  started: number;
  ok: number;
  misrouted: number;
  wrong: number;
  errors: number;
  lost: number;
  readonly latencies: number[];
}

/** Everything counted while the load runs (live: read it at any time). */
export interface LoadCounters {
  started: number;
  ok: number;
  misrouted: number;
  wrong: number;
  errors: number;
  lost: number;
  /** Answers (or errors) that arrived after their call was counted lost. */
  late: number;
  inFlight: number;
  readonly errorsByKind: Record<string, number>;
  /**
   * Set (`Date.now()`) to mark a moment, e.g. a signal sent to the gateway: the calls in flight at
   * that moment are then counted in {@link inFlightAtMark}, and their errors in
   * {@link errorsOfInFlightAtMark}.
   */
  markAt: number | undefined;
  /** How the calls that were in flight at `markAt` ended (ok, error, lost, ...). */
  readonly inFlightAtMark: Record<string, number>;
  readonly errorsOfInFlightAtMark: Record<string, number>;
  readonly wrongByKind: Record<string, number>;
  readonly misroutedByKind: Record<string, number>;
  readonly byKind: Record<CallKind, KindCounters>;
  /** sampling/createMessage requests the sessions got, and those for a call of another session or none in flight. */
  samplingRequests: number;
  samplingMisrouted: number;
  /** Progress notifications, and those carrying another call's token. */
  progressNotifications: number;
  progressMisrouted: number;
  /** What the SDK clients reported on `onerror` (their GET streams, ...), by message; answers to no request in flight are counted apart. */
  readonly clientErrors: Record<string, number>;
  /** Answers to requests the client no longer waits for (it cancelled them, or gave up at the deadline). */
  answersAfterCancel: number;
  /** "Session closed" answers to calls whose cancellation was still on its way when the client ended the session. */
  closedBeforeCancelArrived: number;
  /** The first few of those answers, as the client reported them (to tell where they came from). */
  readonly answersAfterCancelSamples: string[];
  sessionsOpened: number;
  sessionsClosed: number;
  /** When the last session had connected (`Date.now()`), once it has. */
  allConnectedAt: number | undefined;
  readonly sessionFailures: Record<string, number>;
}

export function newCounters(): LoadCounters {
  const byKind = Object.fromEntries(
    CALL_KINDS.map((k): [CallKind, KindCounters] => [k, { started: 0, ok: 0, misrouted: 0, wrong: 0, errors: 0, lost: 0, latencies: [] }]),
  ) as Record<CallKind, KindCounters>;
  return {
    started: 0,
    ok: 0,
    misrouted: 0,
    wrong: 0,
    errors: 0,
    lost: 0,
    late: 0,
    inFlight: 0,
    errorsByKind: {},
    markAt: undefined,
    inFlightAtMark: {},
    errorsOfInFlightAtMark: {},
    wrongByKind: {},
    misroutedByKind: {},
    byKind,
    samplingRequests: 0,
    samplingMisrouted: 0,
    progressNotifications: 0,
    progressMisrouted: 0,
    clientErrors: {},
    answersAfterCancel: 0,
    closedBeforeCancelArrived: 0,
    answersAfterCancelSamples: [],
    sessionsOpened: 0,
    sessionsClosed: 0,
    allConnectedAt: undefined,
    sessionFailures: {},
  };
}

/** A small seeded generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function bump(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}

const TOKEN = /s\d+\.c\d+/g;

/** An error as a short kind, tokens and numbers of the run taken out. */
export function errorKind(error: unknown): string {
  if (error instanceof StreamableHTTPError) return `http ${String(error.code)}`;
  if (error instanceof McpError) return `rpc ${error.code}: ${error.message.replace(TOKEN, '<token>').slice(0, 120)}`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    return `transport: ${`${error.message}${cause}`.replace(TOKEN, '<token>').slice(0, 160)}`;
  }
  return `other: ${String(error).slice(0, 120)}`;
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** One connected session. */
interface LoadSession {
  readonly index: number;
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** Tokens of this session's calls in flight. */
  readonly tokens: Set<string>;
  seq: number;
  /** Set once its calls are over and it is being ended (DELETE). */
  closing: boolean;
}

/** What a finished call is counted as (a tool's error result, e.g. the member's sampling request timing out, is an error). */
type Verdict = { readonly as: 'ok' } | { readonly as: 'misrouted' | 'wrong' | 'error'; readonly why: string };

const OK: Verdict = { as: 'ok' };

function parsePayload(result: CallToolResult, index: number): Record<string, unknown> | undefined {
  const item = result.content[index];
  if (item?.type !== 'text') return undefined;
  try {
    return JSON.parse(item.text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The load: `run()` connects the sessions and keeps their calls going while `running()`; then closes them. */
export class SoakLoad {
  readonly counters: LoadCounters = newCounters();
  readonly #options: LoadOptions;
  readonly #random: () => number;
  readonly #kinds: readonly CallKind[];
  readonly #weights: readonly number[];
  readonly #total: number;

  constructor(options: LoadOptions) {
    this.#options = options;
    this.#random = seededRandom(options.seed);
    this.#kinds = CALL_KINDS.filter((k) => options.mix[k] > 0);
    this.#weights = this.#kinds.map((k) => options.mix[k]);
    this.#total = this.#weights.reduce((a, b) => a + b, 0);
    if (this.#total <= 0) throw new Error('the call mix has no positive weight');
  }

  /** Connects every session, runs its calls until `running()` is false and they settle, closes it. */
  async run(): Promise<void> {
    const { sessions, connectConcurrency } = this.#options;
    const work: Promise<void>[] = [];
    let next = 0;
    const connectors = Array.from({ length: Math.max(1, Math.min(connectConcurrency, sessions)) }, async () => {
      while (next < sessions && this.#options.running()) {
        const index = next++;
        const session = await this.#connect(index);
        if (session !== undefined) work.push(this.#drive(session));
      }
    });
    await Promise.all(connectors);
    this.counters.allConnectedAt = Date.now();
    await Promise.all(work);
  }

  async #connect(index: number): Promise<LoadSession | undefined> {
    const client = new Client({ name: `soak-${index}`, version: '1.0.0' }, { capabilities: { sampling: {} } });
    const transport = new StreamableHTTPClientTransport(new URL(this.#options.url));
    const session: LoadSession = { index, client, transport, tokens: new Set(), seq: 0, closing: false };
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      this.counters.samplingRequests++;
      const content = request.params.messages[0]?.content;
      const text = content !== undefined && !Array.isArray(content) && content.type === 'text' ? content.text : '';
      if (!session.tokens.has(text)) this.counters.samplingMisrouted++;
      return { role: 'assistant', content: { type: 'text', text: samplingAnswer(text, index) }, model: 'soak' };
    });
    client.onerror = (error) => {
      if (error.message.startsWith('Received a response for an unknown message ID')) {
        // The client ends a session right after its last call settles; a call it cancelled just
        // before may have its cancellation still on the way (another POST) when the DELETE ends the
        // session: the gateway, which never got the cancellation, answers "Session closed". That
        // is the client's race, counted apart.
        if (session.closing && error.message.includes('"Session closed"')) {
          this.counters.closedBeforeCancelArrived++;
          return;
        }
        this.counters.answersAfterCancel++;
        if (this.counters.answersAfterCancelSamples.length < 5) this.counters.answersAfterCancelSamples.push(`session ${index}: ${error.message.slice(0, 300)}`);
      }
      else bump(this.counters.clientErrors, errorKind(error));
    };
    try {
      await withDeadline(client.connect(transport), this.#options.deadlineMs, `session ${index} initialize`);
      await withDeadline(client.listTools(), this.#options.deadlineMs, `session ${index} tools/list`);
      this.counters.sessionsOpened++;
      return session;
    } catch (error) {
      bump(this.counters.sessionFailures, errorKind(error));
      await client.close().catch(() => undefined);
      return undefined;
    }
  }

  async #drive(session: LoadSession): Promise<void> {
    const workers = Array.from({ length: this.#options.inFlight }, async () => {
      while (this.#options.running()) await this.#call(session);
    });
    await Promise.all(workers);
    session.closing = true;
    try {
      await withDeadline(session.transport.terminateSession(), 10_000, `session ${session.index} DELETE`);
    } catch (error) {
      bump(this.counters.sessionFailures, `close: ${errorKind(error)}`);
    }
    await session.client.close().catch(() => undefined);
    this.counters.sessionsClosed++;
  }

  #pick(): CallKind {
    let r = this.#random() * this.#total;
    for (let i = 0; i < this.#kinds.length; i++) {
      r -= this.#weights[i] as number;
      if (r < 0) return this.#kinds[i] as CallKind;
    }
    return this.#kinds[this.#kinds.length - 1] as CallKind;
  }

  #between(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  async #call(session: LoadSession): Promise<void> {
    const c = this.counters;
    const kind = this.#pick();
    const members = kind === 'sample' ? this.#options.samplingMembers : this.#options.members;
    const member = members[Math.floor(this.#random() * members.length)] as string;
    const token = `s${session.index}.c${session.seq++}`;
    const tool = kind === 'cancel' ? 'slow' : kind;
    const args: Record<string, unknown> = { token };
    let steps = 0;
    let bytes = 0;
    let abortAfter = 0;
    if (kind === 'progress') {
      steps = this.#between(2, 8);
      args['steps'] = steps;
      args['gapMs'] = this.#between(0, 5);
    } else if (kind === 'large') {
      bytes = this.#between(this.#options.largeBytes[0], this.#options.largeBytes[1]);
      args['bytes'] = bytes;
    } else if (kind === 'slow') {
      args['ms'] = this.#between(10, 200);
    } else if (kind === 'cancel') {
      args['ms'] = 3_600_000;
      abortAfter = this.#between(5, 200);
    }

    const k = c.byKind[kind];
    c.started++;
    k.started++;
    c.inFlight++;
    session.tokens.add(token);
    const progress: string[] = [];
    let foreignProgress = 0;
    const controller = new AbortController();
    const cancelReason = new McpError(-32800, `soak: cancelled by the client (${token})`);
    const cancelTimer = kind === 'cancel' ? setTimeout(() => controller.abort(cancelReason), abortAfter) : undefined;
    const begin = performance.now();
    const startedAt = Date.now();
    const answer = session.client
      .callTool({ name: `${member}__${tool}`, arguments: args }, undefined, {
        signal: controller.signal,
        timeout: this.#options.deadlineMs + 60_000,
        ...(kind === 'progress'
          ? {
              onprogress: (p: { message?: string | undefined }) => {
                c.progressNotifications++;
                const message = p.message ?? '';
                if (message.startsWith(`${token}/`)) progress.push(message);
                else {
                  foreignProgress++;
                  c.progressMisrouted++;
                }
              },
            }
          : {}),
      })
      .then(
        (result) => ({ settled: 'result' as const, result: result as CallToolResult }),
        (error: unknown) => ({ settled: 'error' as const, error }),
      );
    let deadlineTimer: NodeJS.Timeout | undefined;
    const deadline = new Promise<{ settled: 'deadline' }>((resolve) => {
      deadlineTimer = setTimeout(() => resolve({ settled: 'deadline' }), this.#options.deadlineMs);
    });
    const outcome = await Promise.race([answer, deadline]);
    clearTimeout(deadlineTimer);
    clearTimeout(cancelTimer);
    const elapsed = performance.now() - begin;
    c.inFlight--;
    session.tokens.delete(token);
    // Whether this call was in flight at the marked moment (started before it, settled after it).
    if (c.markAt !== undefined && startedAt < c.markAt && Date.now() >= c.markAt) {
      const ended = outcome.settled === 'error' ? (kind === 'cancel' && outcome.error === cancelReason ? 'cancelled (ok)' : 'error') : outcome.settled === 'deadline' ? 'lost' : 'answered';
      bump(c.inFlightAtMark, ended);
      if (outcome.settled === 'error' && ended === 'error') bump(c.errorsOfInFlightAtMark, `${kind}: ${errorKind(outcome.error)}`);
    }

    if (outcome.settled === 'deadline') {
      c.lost++;
      k.lost++;
      void answer.then(() => c.late++);
      controller.abort(new McpError(-32800, 'soak: deadline'));
      return;
    }
    if (outcome.settled === 'error') {
      if (kind === 'cancel' && outcome.error === cancelReason) {
        c.ok++;
        k.ok++;
        k.latencies.push(elapsed);
        return;
      }
      c.errors++;
      k.errors++;
      bump(c.errorsByKind, `${kind}: ${errorKind(outcome.error)}`);
      return;
    }
    const verdict = foreignProgress > 0 ? { as: 'misrouted' as const, why: 'progress of another call' } : this.#check(kind, outcome.result, { token, member, session, steps, bytes, progress });
    if (verdict.as === 'ok') {
      c.ok++;
      k.ok++;
      k.latencies.push(elapsed);
    } else if (verdict.as === 'error') {
      c.errors++;
      k.errors++;
      bump(c.errorsByKind, `${kind}: ${verdict.why}`);
    } else if (verdict.as === 'misrouted') {
      c.misrouted++;
      k.misrouted++;
      bump(c.misroutedByKind, `${kind}: ${verdict.why}`);
    } else {
      c.wrong++;
      k.wrong++;
      bump(c.wrongByKind, `${kind}: ${verdict.why}`);
    }
  }

  #check(
    kind: CallKind,
    result: CallToolResult,
    call: { token: string; member: string; session: LoadSession; steps: number; bytes: number; progress: readonly string[] },
  ): Verdict {
    if (kind === 'cancel') return { as: 'wrong', why: 'a cancelled call got a result' };
    if (result.isError === true) {
      const first = result.content[0];
      const text = first?.type === 'text' ? first.text : '';
      if (text.match(TOKEN)?.some((t) => t !== call.token) === true) return { as: 'misrouted', why: 'a tool error of another call' };
      return { as: 'error', why: `tool error: ${text.replace(TOKEN, '<token>').slice(0, 100)}` };
    }
    const payload = parsePayload(result, kind === 'large' ? 1 : 0);
    if (payload === undefined) return { as: 'wrong', why: 'no JSON payload' };
    if (payload['token'] !== call.token) return { as: 'misrouted', why: 'the token of another call' };
    if (payload['member'] !== call.member) return { as: 'misrouted', why: 'the answer of another member' };
    switch (kind) {
      case 'progress': {
        if (call.progress.length !== call.steps) return { as: 'wrong', why: `${call.progress.length} of ${call.steps} progress notifications` };
        for (let i = 0; i < call.steps; i++) if (call.progress[i] !== progressMessage(call.token, i + 1)) return { as: 'wrong', why: 'progress out of order' };
        return OK;
      }
      case 'sample': {
        const answer = payload['answer'];
        if (answer === samplingAnswer(call.token, call.session.index)) return OK;
        return typeof answer === 'string' && answer.startsWith(`sampled:${call.token}:`) ? { as: 'misrouted', why: 'sampled by another session' } : { as: 'misrouted', why: 'the sampling answer of another call' };
      }
      case 'large': {
        const item = result.content[0];
        const text = item?.type === 'text' ? item.text : '';
        if (text.length !== call.bytes) return { as: 'wrong', why: `${text.length} of ${call.bytes} bytes` };
        return sha256(text) === sha256(largeText(call.token, call.bytes)) ? OK : { as: 'wrong', why: 'sha256 differs' };
      }
      case 'slow':
        return payload['cancelled'] === false ? OK : { as: 'wrong', why: 'cancelled upstream though the client did not cancel' };
      default:
        return OK;
    }
  }
}

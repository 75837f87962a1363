/**
 * @module
 * `approve`: a human in the loop. Before chosen tools run, the user is asked through the client's
 * elicitation (`elicitation/create`, form mode) whether the call may go on, and may allow a tool
 * for the rest of the session. Without a client that can be asked, a fallback decides. Every
 * decision, and who made it, goes to `audit` (`ctx.state.auditExtra.approval`).
 */
import type { Context } from '../../chain/context.js';
import { matchAny } from '../../chain/glob.js';
import type { Middleware, Next } from '../../chain/middleware.js';
import type { SessionInfo } from '../../core/session-info.js';
import { ChainError } from '../../errors/chain-error.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { deniedError, deniedResult, denialText, type DenyReason } from './approval-denied.js';
import { ALWAYS, approvalQuestion, DEFAULT_MESSAGE } from './approval-question.js';
import { askUser, type Asked } from './ask-user.js';
import { hintsMatcher, SessionHints } from './tool-hints.js';
import { ToolTurns } from './tool-turns.js';
import type { ApproveOptions } from './options.js';

export type { ApprovalHints, ApproveOptions } from './options.js';

export { APPROVAL_DENIED, type ApprovalDeniedData, type DenyReason } from './approval-denied.js';

/** What `approve` adds to the call's audit record (`ctx.state.auditExtra.approval`). */
export interface ApprovalRecord {
  decision: 'approved' | 'denied';
  /**
   * `user`: approved now; `session`: approved earlier with "always" (perhaps by the answer this
   * call waited for); `declined`, `cancelled`:
   * the user's answer; `timeout`: no answer in time; `fallback`: the client cannot be asked;
   * `error`: asking failed (then `fallback` decided); `invalid`: an answer that made no sense.
   */
  reason: 'user' | 'session' | DenyReason;
  /** The session's identity id (or `'user'`) when a person decided; `'policy'` when the configuration did. */
  by: string;
  /** Set when the user chose "always allow" for the session. */
  remembered?: true;
}

/** Per session: tools allowed for the rest of it, the annotations its lists showed, and whose turn it is to ask. */
interface SessionApprovals {
  readonly always: Set<string>;
  readonly hints: SessionHints;
  readonly turns: ToolTurns;
}

/**
 * Asks the user before chosen tools run. A `tools/call` matching `tools` OR `annotations` waits
 * for the user's answer through the client's elicitation (form mode, on the call's own stream
 * over HTTP): accept runs it (ticking "always" allows the tool for the rest of the session),
 * decline or cancel denies it, and so does no answer within `timeoutMs` (the question is then
 * cancelled). If the call is cancelled while waiting, so is the question, and nothing is
 * forwarded. A client without form elicitation, or one that answers the question with an error,
 * gets the `fallback`. Server→client traffic and other methods pass untouched.
 *
 * The user is asked about one call of a tool at a time in a session: a call that arrives while a
 * question about the same tool is open waits for its answer. If that was accept with "always",
 * the waiting calls run without being asked; otherwise each is asked in turn, with its own
 * arguments. The wait counts towards the call's `timeoutMs`, and ends, with nothing forwarded,
 * if the call is cancelled. Calls of other tools are asked at once.
 *
 * Put `audit` in front of it to record each decision. Mind the session's own deadline for
 * requests (`--timeout`, default 60 s): it bounds the wait for the user too.
 *
 * Throws a `ChainError` ('CONFIG') when neither `tools` nor `annotations` is given, or
 * `timeoutMs` is not a positive number.
 *
 * @example
 * chain()
 *   .use(audit({ file: 'audit.jsonl' }))
 *   .use(approve({ tools: ['github__delete_*', 'shell__*'], annotations: { destructiveHint: true } }))
 *   .to(aggregate({ github: stdio({ command: 'github-mcp' }), shell: stdio({ command: 'shell-mcp' }) }));
 */
export function approve(options: ApproveOptions): Middleware {
  const patterns = options.tools ?? [];
  const wanted = options.annotations;
  const byAnnotations = wanted !== undefined && Object.values(wanted).some((value) => typeof value === 'boolean');
  if (patterns.length === 0 && !byAnnotations) {
    throw new ChainError('CONFIG', 'approve: nothing to approve: set tools (names or globs) and/or annotations (e.g. { destructiveHint: true })');
  }
  const timeoutMs = options.timeoutMs ?? 50_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new ChainError('CONFIG', `approve.timeoutMs: expected a positive number, found ${timeoutMs}`);
  const { fallback = 'deny', onDeny = 'result', message = DEFAULT_MESSAGE, rememberForSession = true } = options;
  const named = matchAny(patterns);
  const hinted = byAnnotations ? hintsMatcher(wanted) : undefined;
  const sessions = new WeakMap<SessionInfo, SessionApprovals>();

  const stateOf = (session: SessionInfo): SessionApprovals => {
    let state = sessions.get(session);
    if (state === undefined) sessions.set(session, (state = { always: new Set(), hints: new SessionHints(), turns: new ToolTurns() }));
    return state;
  };
  const needsApproval = (tool: string, session: SessionInfo): boolean =>
    named(tool) || (hinted !== undefined && hinted((sessions.get(session)?.hints ?? EMPTY_HINTS).of(tool)));

  async function learn(ctx: Context, next: Next): Promise<Reply> {
    const reply = await next();
    stateOf(ctx.session).hints.learn(reply, typeof ctx.message.params?.cursor !== 'string');
    return reply;
  }

  async function decide(ctx: Context, next: Next, tool: string): Promise<Reply> {
    const state = stateOf(ctx.session);
    const person = ctx.session.identity?.id ?? 'user';
    if (state.always.has(tool)) {
      record(ctx, { decision: 'approved', reason: 'session', by: person });
      return next();
    }
    if (!canAskForm(ctx.session.clientCapabilities)) return fallBack(ctx, next, tool, 'fallback');
    // One question at a time per tool: a call that arrives while the user is being asked about
    // the same tool waits for that answer, which may allow the tool for the session. Its time
    // (timeoutMs) runs from its arrival, the wait included.
    const deadline = performance.now() + timeoutMs;
    const endTurn = await state.turns.take(tool, ctx, timeoutMs);
    if (endTurn === undefined) return deny(ctx, tool, 'timeout', 'policy');
    let asked: Asked;
    let remember = false;
    try {
      if (state.always.has(tool)) {
        record(ctx, { decision: 'approved', reason: 'session', by: person });
        return next();
      }
      const left = deadline - performance.now();
      if (left <= 0) return deny(ctx, tool, 'timeout', 'policy');
      asked = await askUser(ctx, approvalQuestion(message, tool, ctx.message.params?.arguments, rememberForSession), left);
      // Remembered before the turn ends, so the calls that waited for this answer see it.
      remember = rememberForSession && asked.kind === 'answer' && asked.result.action === 'accept' && isJsonObject(asked.result.content) && asked.result.content[ALWAYS] === true;
      if (remember) state.always.add(tool);
    } finally {
      endTurn();
    }
    if (asked.kind === 'timeout') return deny(ctx, tool, 'timeout', 'policy');
    if (asked.kind === 'error') {
      ctx.log.warn('approve: asking the user failed', { tool, error: describeError(asked.error) });
      return fallBack(ctx, next, tool, 'error');
    }
    const { action } = asked.result;
    if (action === 'accept') {
      record(ctx, remember ? { decision: 'approved', reason: 'user', by: person, remembered: true } : { decision: 'approved', reason: 'user', by: person });
      return next();
    }
    if (action === 'decline') return deny(ctx, tool, 'declined', person);
    if (action === 'cancel') return deny(ctx, tool, 'cancelled', person);
    return deny(ctx, tool, 'invalid', 'policy');
  }

  async function fallBack(ctx: Context, next: Next, tool: string, reason: 'fallback' | 'error'): Promise<Reply> {
    if (fallback === 'deny') return deny(ctx, tool, reason, 'policy');
    ctx.log.warn(
      reason === 'fallback'
        ? `approve: "${tool}" runs without approval: the client cannot be asked (no elicitation), and fallback is allow`
        : `approve: "${tool}" runs without approval: asking the user failed, and fallback is allow`,
      { tool },
    );
    record(ctx, { decision: 'approved', reason, by: 'policy' });
    return next();
  }

  function deny(ctx: Context, tool: string, reason: DenyReason, by: string): Reply {
    record(ctx, { decision: 'denied', reason, by });
    const text = denialText(tool, reason, timeoutMs);
    if (onDeny === 'error') throw deniedError(text, { tool, reason });
    return deniedResult(text);
  }

  return function approve(ctx, next) {
    if (ctx.direction !== 'toUpstream' || ctx.kind !== 'request') {
      if (hinted !== undefined && ctx.method === 'notifications/tools/list_changed') sessions.get(ctx.session)?.hints.forget();
      return next();
    }
    if (ctx.method === 'tools/call') {
      const tool = ctx.message.params?.name;
      return typeof tool === 'string' && needsApproval(tool, ctx.session) ? decide(ctx, next, tool) : next();
    }
    if (ctx.method === 'tools/list' && hinted !== undefined) return learn(ctx, next);
    return next();
  };
}

const EMPTY_HINTS = new SessionHints();

/**
 * Whether the client can be asked a form: it declared `elicitation`, as `{}` (form mode, and the
 * only mode before 2025-11-25) or with `form`. `{ url: {} }` alone is URL mode only.
 */
function canAskForm(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (!isJsonObject(elicitation)) return false;
  return 'form' in elicitation || !('url' in elicitation);
}

/** Adds the decision to the call's audit record, keeping what other middleware put there. */
function record(ctx: Context, approval: ApprovalRecord): void {
  ctx.state.auditExtra = { ...ctx.state.auditExtra, approval };
}

function describeError(error: unknown): string {
  if (error instanceof McpError) return `${error.code} ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

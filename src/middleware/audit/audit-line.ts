/**
 * @module
 * `auditLine`: one call as the line `audit` writes. The common case (no `auditExtra`) is built as
 * text from parts kept per session, which costs a fraction of making the record object and
 * serializing it; with `auditExtra`, the record object is made and serialized. Both give the same
 * line for the same call (a test holds them to it).
 */
import type { Context } from '../../chain/context.js';
import type { SessionInfo } from '../../core/session-info.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { Redactor } from '../redact/redactor.js';

/** One record of the audit file. */
export interface AuditRecord {
  /** When the request arrived here (ISO 8601). */
  time: string;
  /** The downstream session's id. */
  session: string;
  /** Who the client authenticated as (HTTP fronts with authentication). */
  identity?: { id: string; method: string };
  method: string;
  /** The gateway member: the tool name's part before the separator. */
  server?: string;
  /** The tool, as the client named it. */
  tool?: string;
  /** The tool's arguments, redacted as configured. */
  arguments?: unknown;
  durationMs: number;
  /** `isError`: a tool that ran and failed. `cancelled`: cancelled by the client. */
  outcome: 'ok' | 'isError' | 'error' | 'cancelled';
  error?: { code: number; message: string };
  /** And whatever later middleware put in `ctx.state.auditExtra`. */
  [extra: string]: unknown;
}

/** A call's end, as `audit` saw it. */
export interface AuditedCall {
  /** When the request arrived, ms since the epoch. */
  readonly time: number;
  readonly durationMs: number;
  readonly outcome: AuditRecord['outcome'];
  readonly error: unknown;
}

/** Fields a record's own names keep: `auditExtra` cannot replace them. */
const RESERVED = new Set(['time', 'session', 'identity', 'method', 'server', 'tool', 'arguments', 'durationMs', 'outcome', 'error', 'dropped']);

/** What stands for arguments that cannot be serialized (nested too deeply, a cycle). */
const UNRECORDABLE = { unrecordable: 'could not be serialized' } as const;

/** The line (without its newline) for `call` of `ctx`. */
export function auditLine(ctx: Context, call: AuditedCall, separator: string, redactor: Redactor | undefined): string {
  const extra = ctx.state.auditExtra;
  if (extra !== undefined && typeof extra === 'object') return serialize(record(ctx, call, separator, redactor, extra));
  const params = ctx.message.params;
  const name = params?.name;
  let line = `{"time":"${isoTime(call.time)}"${sessionPart(ctx.session)},"method":${ctx.method === 'tools/call' ? '"tools/call"' : JSON.stringify(ctx.method)}`;
  if (ctx.method === 'tools/call' && typeof name === 'string') {
    const cut = name.indexOf(separator);
    if (cut > 0) line += `,"server":${JSON.stringify(name.slice(0, cut))}`;
    line += `,"tool":${JSON.stringify(name)}`;
    const args = params?.arguments;
    if (args !== undefined) line += `,"arguments":${argumentsJson(redactor ? redactor.value(args) : args)}`;
  }
  line += `,"durationMs":${rounded(call.durationMs)},"outcome":"${call.outcome}"`;
  if (call.error !== undefined) line += `,"error":${JSON.stringify(toError(call.error, redactor))}`;
  return `${line}}`;
}

/** The record of `call` with `extra` added, as an object (the path for calls with `auditExtra`). */
function record(ctx: Context, call: AuditedCall, separator: string, redactor: Redactor | undefined, extra: object): AuditRecord {
  const params = ctx.message.params;
  const name = params?.name;
  const tool = ctx.method === 'tools/call' && typeof name === 'string' ? name : undefined;
  const identity = ctx.session.identity;
  const core = { time: isoTime(call.time), session: ctx.session.id } as AuditRecord;
  if (identity !== undefined) core.identity = { id: identity.id, method: identity.method };
  core.method = ctx.method;
  if (tool !== undefined) {
    const cut = tool.indexOf(separator);
    if (cut > 0) core.server = tool.slice(0, cut);
    core.tool = tool;
    const args = params?.arguments;
    if (args !== undefined) core.arguments = redactor ? redactor.value(args) : args;
  }
  core.durationMs = rounded(call.durationMs);
  core.outcome = call.outcome;
  if (call.error !== undefined) core.error = toError(call.error, redactor);
  const added = Object.fromEntries(Object.entries(extra).filter(([key]) => !Object.hasOwn(core, key) && !RESERVED.has(key)));
  return { ...core, ...(redactor ? redactor.value(added) : added) };
}

function serialize(entry: AuditRecord): string {
  try {
    return JSON.stringify(entry);
  } catch {
    // Arguments nested too deeply (or a cycle in auditExtra): the record is still written, without them.
    const safe = Object.fromEntries(Object.entries(entry).filter(([key]) => RESERVED.has(key)));
    if (Object.hasOwn(safe, 'arguments')) safe.arguments = UNRECORDABLE;
    try {
      return JSON.stringify(safe);
    } catch {
      return JSON.stringify({ ...safe, arguments: UNRECORDABLE });
    }
  }
}

function argumentsJson(args: unknown): string {
  try {
    return JSON.stringify(args) ?? 'null';
  } catch {
    return JSON.stringify(UNRECORDABLE);
  }
}

/** `,"session":…` and the identity, made once per session. */
const sessionParts = new WeakMap<SessionInfo, string>();

function sessionPart(session: SessionInfo): string {
  let part = sessionParts.get(session);
  if (part === undefined) {
    const { identity } = session;
    part = `,"session":${JSON.stringify(session.id)}${identity === undefined ? '' : `,"identity":${JSON.stringify({ id: identity.id, method: identity.method })}`}`;
    // Only once the session's identity is settled (it is from the start on every front).
    sessionParts.set(session, part);
  }
  return part;
}

function rounded(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

let lastTime = Number.NaN;
let lastIso = '';

/** `new Date(time).toISOString()`, made once per millisecond: it costs more than the rest of a line, and calls come many to a millisecond. */
function isoTime(time: number): string {
  if (time !== lastTime) {
    lastTime = time;
    lastIso = new Date(time).toISOString();
  }
  return lastIso;
}

function toError(error: unknown, redactor: Redactor | undefined): { code: number; message: string } {
  const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
  const message = error instanceof Error ? error.message : String(error);
  return { code, message: redactor ? redactor.text(message) : message };
}

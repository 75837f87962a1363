import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createContext, type Context } from '../../chain/context.js';
import type { Downstream } from '../../core/downstream.js';
import type { Identity, SessionInfo } from '../../core/session-info.js';
import { McpError } from '../../errors/mcp-error.js';
import { silentLogger } from '../../log/stderr-logger.js';
import type { McpMessage } from '../../message/jsonrpc.js';
import { createRedactor } from '../redact/redactor.js';
import { auditLine, type AuditedCall } from './audit-line.js';

const downstream: Downstream = { request: () => Promise.resolve({}), notify: () => Promise.resolve() };

function session(identity?: Identity): SessionInfo {
  return { id: 'a1b2c3d4-0000-4000-8000-000000000001', protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: undefined, log: silentLogger, ...(identity ? { identity } : {}) };
}

function context(message: McpMessage, info: SessionInfo): Context {
  return createContext({ message, kind: 'request', direction: 'toUpstream', session: info, downstream });
}

const redactor = createRedactor();
const at = Date.parse('2026-01-01T00:00:00.000Z');

/** The line built as text, and the line of the record object (the path taken with an empty auditExtra). */
function bothWays(message: McpMessage, call: AuditedCall, info = session(), redacting = true): { fast: string; object: string } {
  const masker = redacting ? redactor : undefined;
  const fast = auditLine(context(message, info), call, '__', masker);
  const ctx = context(message, info);
  ctx.state.auditExtra = {};
  return { fast, object: auditLine(ctx, call, '__', masker) };
}

describe('auditLine', () => {
  const cases: Array<[string, McpMessage, AuditedCall, SessionInfo?]> = [
    ['a plain call', { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } }, { time: at, durationMs: 1.23456, outcome: 'ok', error: undefined }],
    ['a gateway name, an identity', { method: 'tools/call', params: { name: 'github__search', arguments: { q: 'x' } } }, { time: at + 1, durationMs: 0.5, outcome: 'isError', error: undefined }, session({ id: 'alice "the admin"', method: 'bearer' })],
    ['no arguments', { method: 'tools/call', params: { name: 'ping_it' } }, { time: at, durationMs: 10, outcome: 'ok', error: undefined }],
    ['arguments to redact and escape', { method: 'tools/call', params: { name: 'mail', arguments: { to: 'bob@example.com', body: 'line\n"quoted"\u2028', n: [1, null, true] } } }, { time: at, durationMs: 2, outcome: 'ok', error: undefined }],
    ['an McpError', { method: 'tools/call', params: { name: 'x', arguments: {} } }, { time: at, durationMs: 3, outcome: 'error', error: new McpError(-32602, 'Invalid params: secret sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD') }],
    ['another error', { method: 'tools/call', params: { name: 'x' } }, { time: at, durationMs: 3, outcome: 'error', error: 'went away' }],
    ['a cancelled call', { method: 'tools/call', params: { name: '__odd' } }, { time: at, durationMs: 4, outcome: 'cancelled', error: undefined }],
    ['another request (scope: requests)', { method: 'resources/read', params: { uri: 'file:///a' } }, { time: at, durationMs: 5, outcome: 'ok', error: undefined }],
  ];
  for (const [name, message, call, info] of cases) {
    test(`${name}: the line built as text is the record serialized`, () => {
      const { fast, object } = bothWays(message, call, info);
      assert.equal(fast, object);
      assert.equal(typeof JSON.parse(fast), 'object');
    });
  }

  test('fields in the documented order; arguments redacted; server split from the tool at the separator', () => {
    const line = auditLine(context({ method: 'tools/call', params: { name: 'mail__send', arguments: { to: 'bob@example.com' } } }, session()), { time: at, durationMs: 1.00049, outcome: 'ok', error: undefined }, '__', redactor);
    assert.equal(
      line,
      '{"time":"2026-01-01T00:00:00.000Z","session":"a1b2c3d4-0000-4000-8000-000000000001","method":"tools/call","server":"mail","tool":"mail__send","arguments":{"to":"[REDACTED:email]"},"durationMs":1,"outcome":"ok"}',
    );
  });

  test('arguments that cannot be serialized (a cycle a middleware made): unredacted, recorded as unrecordable; redacted, cut at the redactor\'s depth; on both paths', () => {
    const cyclic: Record<string, unknown> = { text: 'hi' };
    cyclic.self = cyclic;
    const message = { method: 'tools/call', params: { name: 'loop', arguments: cyclic } } as McpMessage;
    const raw = bothWays(message, { time: at, durationMs: 1, outcome: 'ok', error: undefined }, session(), false);
    for (const line of [raw.fast, raw.object]) assert.deepEqual(JSON.parse(line).arguments, { unrecordable: 'could not be serialized' });
    const masked = bothWays(message, { time: at, durationMs: 1, outcome: 'ok', error: undefined });
    assert.equal(masked.fast, masked.object);
    assert.match(masked.fast, /"self":\{"text":"hi","self":/);
    assert.match(masked.fast, /\[REDACTED:depth\]/);
  });

  test('auditExtra is added after the record\'s own fields, which it cannot replace; a cycle in it leaves the record without it', () => {
    const ctx = context({ method: 'tools/call', params: { name: 't' } }, session());
    ctx.state.auditExtra = { approval: { decision: 'approved', by: 'bob@example.com' }, tool: 'forged' };
    assert.deepEqual(JSON.parse(auditLine(ctx, { time: at, durationMs: 1, outcome: 'ok', error: undefined }, '__', redactor)), {
      time: '2026-01-01T00:00:00.000Z',
      session: 'a1b2c3d4-0000-4000-8000-000000000001',
      method: 'tools/call',
      tool: 't',
      durationMs: 1,
      outcome: 'ok',
      approval: { decision: 'approved', by: '[REDACTED:email]' },
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const looped = context({ method: 'tools/call', params: { name: 't' } }, session());
    looped.state.auditExtra = { cyclic };
    assert.equal(JSON.parse(auditLine(looped, { time: at, durationMs: 1, outcome: 'ok', error: undefined }, '__', undefined)).tool, 't');
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/stderr-logger.js';
import type { McpMessage, Result } from '../message/jsonrpc.js';
import { withDeadline } from '../testing/with-deadline.js';
import { MemoryTransport } from '../transport/memory-transport.js';
import { Peer, type IncomingScope } from './peer.js';

interface Side {
  peer: Peer;
  transport: MemoryTransport;
  notifications: McpMessage[];
  wire: unknown[];
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A logger that keeps its debug lines; `logged(text)` resolves once one containing `text` is logged. */
function debugLog(): { log: Logger; lines: string[]; logged: (text: string) => Promise<void> } {
  const lines: string[] = [];
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const log: Logger = {
    ...silentLogger,
    debug: (message, fields) => {
      const line = `${message} ${JSON.stringify(fields ?? {})}`;
      lines.push(line);
      for (const waiter of waiters) if (line.includes(waiter.text)) waiter.resolve();
    },
    child: () => log,
  };
  const logged = (text: string): Promise<void> => withDeadline(
    new Promise<void>((resolve) => (lines.some((line) => line.includes(text)) ? resolve() : waiters.push({ text, resolve }))),
    { what: () => `a debug line with "${text}" (logged: ${JSON.stringify(lines)})` },
  );
  return { log, lines, logged };
}

/** Resolves when `signal` aborts (at once if it has). */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return Promise.reject(new Error('no signal'));
  if (signal.aborted) return Promise.resolve();
  return withDeadline(new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })), { what: 'the remote signal to abort' });
}

/** Two peers on an in-memory wire; `handler` answers requests that reach side B; `logA`: side A's logger. */
function pair(handler: (message: McpMessage, scope: IncomingScope) => Promise<Result>, logA: Logger = silentLogger): { a: Side; b: Side } {
  const [ta, tb] = MemoryTransport.pair();
  const make = (transport: MemoryTransport, request: (m: McpMessage, s: IncomingScope) => Promise<Result>, log: Logger): Side => {
    const side: Side = { transport, notifications: [], wire: [], peer: undefined as unknown as Peer };
    side.peer = new Peer(
      transport,
      { request, notification: (m) => side.notifications.push(m), closed: () => void side.peer.close() },
      { log, answerInvalid: true },
    );
    const onmessage = transport.onmessage;
    transport.onmessage = (value) => {
      side.wire.push(value);
      onmessage?.(value);
    };
    return side;
  };
  const a = make(ta, () => Promise.reject(new McpError(-32601, 'Method not found')), logA);
  const b = make(tb, handler, silentLogger);
  return { a, b };
}

describe('Peer', () => {
  test('matches responses to requests by its own ids, however many are in flight and in whatever order they finish', async () => {
    // Each request is held until the test releases it; they are released in the order 1, 3, 2, 0.
    const release = [deferred(), deferred(), deferred(), deferred()];
    const arrived = [deferred(), deferred(), deferred(), deferred()];
    const { a, b } = pair(async (message) => {
      const n = Number(message.params?.n);
      arrived[n]?.resolve();
      await release[n]?.promise;
      return { echoed: n };
    });
    const answered: number[] = [];
    const requests = [0, 1, 2, 3].map((n) => a.peer.request({ method: 'x', params: { n } }).then((answer) => {
      answered.push(n);
      return answer;
    }));
    await Promise.all(arrived.map((d) => d.promise));
    assert.equal(a.peer.pendingCount, 4);
    for (const n of [1, 3, 2, 0]) {
      release[n]?.resolve();
      await requests[n];
    }
    assert.deepEqual(answered, [1, 3, 2, 0]);
    assert.deepEqual(await Promise.all(requests), [{ echoed: 0 }, { echoed: 1 }, { echoed: 2 }, { echoed: 3 }]);
    assert.equal(a.peer.pendingCount, 0);
    const ids = b.wire.map((m) => (m as { id: unknown }).id);
    assert.deepEqual(ids, [1, 2, 3, 4]);
    // The answers went out in the order they finished, not the order asked.
    assert.deepEqual(a.wire.map((m) => (m as { id: unknown }).id), [2, 4, 3, 1]);
  });

  test('an error response rejects with an McpError carrying code, message and data unchanged', async () => {
    const { a } = pair(async () => {
      throw new McpError(ErrorCode.ResourceNotFound, 'Resource not found', { uri: 'x://y' });
    });
    await assert.rejects(a.peer.request({ method: 'resources/read' }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.deepEqual(error.toJSON(), { code: ErrorCode.ResourceNotFound, message: 'Resource not found', data: { uri: 'x://y' } });
      return true;
    });
  });

  test('aborting a request sends notifications/cancelled with the id the other side knows, and drops the late answer', async () => {
    const started = deferred();
    let remoteSignal: AbortSignal | undefined;
    const { log, logged } = debugLog();
    const { a, b } = pair((_m, scope) => {
      remoteSignal = scope.cancel.signal;
      started.resolve();
      return new Promise(() => undefined);
    }, log);
    const controller = new AbortController();
    const outcomes: string[] = [];
    const pending = a.peer.request({ method: 'slow' }, { signal: controller.signal });
    pending.then((result) => outcomes.push(`resolved ${JSON.stringify(result)}`), (error: Error) => outcomes.push(`rejected ${error.message}`));
    await started.promise;
    controller.abort(new McpError(-32001, 'Request timed out'));
    await assert.rejects(pending, /Request timed out/);
    await aborted(remoteSignal);
    assert.deepEqual(b.wire.at(-1), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'Request timed out' } });
    assert.equal(a.peer.pendingCount, 0);
    // The other side's Peer never answers a cancelled request, but a server may (its answer crossed
    // the cancellation on the wire): here it does, with the id it was given.
    b.transport.send({ jsonrpc: '2.0', id: 1, result: { late: true } });
    await logged('dropped a response to no request in flight');
    assert.deepEqual(a.wire.at(-1), { jsonrpc: '2.0', id: 1, result: { late: true } }, 'the late answer did arrive');
    assert.deepEqual(outcomes, ['rejected Request timed out'], 'and was not delivered: the request settled once');
    assert.deepEqual(a.notifications, []);
    assert.equal(a.peer.pendingCount, 0);
  });

  test('progress tokens are replaced on the way out and restored on the way back', async () => {
    const { a, b } = pair(async (message) => {
      const token = (message.params?._meta as { progressToken: number }).progressToken;
      b.peer.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
      return {};
    });
    const related: McpMessage[] = [];
    await a.peer.request(
      { method: 'tools/call', params: { name: 't', _meta: { progressToken: 'caller-token', other: 'kept' } } },
      { related: { request: () => Promise.resolve({}), notify: async (m) => void related.push(m) } },
    );
    const sent = b.wire[0] as { params: { _meta: { progressToken: unknown; other: unknown } } };
    assert.equal(sent.params._meta.progressToken, 1);
    assert.equal(sent.params._meta.other, 'kept');
    assert.deepEqual(related, [{ method: 'notifications/progress', params: { progressToken: 'caller-token', progress: 1, total: 2 } }]);
  });

  test('ping is answered by the peer itself', async () => {
    let reached = false;
    const { a } = pair(async () => ((reached = true), {}));
    assert.deepEqual(await a.peer.request({ method: 'ping' }), {});
    assert.equal(reached, false);
  });

  test('closing fails every pending request with the given error, and later requests at once', async () => {
    const { a } = pair(() => new Promise(() => undefined));
    const pending = a.peer.request({ method: 'never' });
    await a.peer.close(new McpError(-32000, 'Upstream x exited (code 3) before answering'));
    await assert.rejects(pending, /exited \(code 3\)/);
    await assert.rejects(a.peer.request({ method: 'after' }), /exited \(code 3\)/);
  });

  test('notifications other than cancel and progress go to the owner', async () => {
    const { a, b } = pair(async () => ({}));
    b.peer.notify({ method: 'notifications/message', params: { level: 'info', data: 'hi' } });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(a.notifications, [{ method: 'notifications/message', params: { level: 'info', data: 'hi' } }]);
  });
});

describe('Peer: initialize', () => {
  test('an aborted initialize is never cancelled on the wire (the spec forbids it), and its late answer is dropped', async () => {
    const started = deferred();
    const { log, logged } = debugLog();
    const { a, b } = pair(() => {
      started.resolve();
      return new Promise(() => undefined);
    }, log);
    const controller = new AbortController();
    const outcomes: string[] = [];
    const pending = a.peer.request({ method: 'initialize', params: { protocolVersion: '2025-11-25' } }, { signal: controller.signal });
    pending.then(() => outcomes.push('resolved'), () => outcomes.push('rejected'));
    await started.promise;
    controller.abort(new McpError(-32001, 'Request timed out'));
    await assert.rejects(pending, /Request timed out/);
    // The server answers in the end; by then the answer is late, and dropped.
    b.transport.send({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
    await logged('dropped a response to no request in flight');
    assert.deepEqual(outcomes, ['rejected']);
    assert.equal(a.peer.pendingCount, 0);
    // Nothing but the initialize itself ever crossed: no notifications/cancelled.
    assert.deepEqual(b.wire.map((m) => (m as { method?: string }).method), ['initialize']);
  });
});

describe('Peer: stray traffic from the other side (single faults)', () => {
  test('responses for ids it never sent and cancellations of unknown or answered ids are dropped with a debug line, never answered, and the next message is served', async () => {
    const [ta, tb] = MemoryTransport.pair();
    const { log, lines, logged } = debugLog();
    const a = new Peer(ta, { request: () => Promise.resolve({ ok: true }), notification: () => undefined, closed: () => undefined }, { log, answerInvalid: false });
    const wire: unknown[] = [];
    tb.onmessage = (value) => wire.push(value);
    await Promise.all([a.start(), tb.start()]);
    const first = a.request({ method: 'tools/list' });
    tb.send({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    assert.deepEqual(await first, { tools: [] });
    wire.length = 0;
    tb.send({ jsonrpc: '2.0', id: 1, result: { again: true } });
    tb.send({ jsonrpc: '2.0', id: 'nobody-asked', error: { code: -32603, message: 'stray' } });
    tb.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 424242 } });
    tb.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } });
    await logged('ignored a cancellation');
    tb.send({ jsonrpc: '2.0', id: 'next', method: 'tools/call' });
    await withDeadline(new Promise<void>((resolve) => (wire.length > 0 ? resolve() : (tb.onmessage = (value) => { wire.push(value); resolve(); }))), { what: 'the answer to the next request' });
    assert.deepEqual(wire, [{ jsonrpc: '2.0', id: 'next', result: { ok: true } }]);
    assert.equal(lines.filter((line) => line.startsWith('dropped a response to no request in flight')).length, 2);
    assert.equal(a.pendingCount, 0);
    await a.close();
  });
});

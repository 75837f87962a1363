import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { silentLogger } from '../log/stderr-logger.js';
import type { McpMessage, Result } from '../message/jsonrpc.js';
import { MemoryTransport } from '../transport/memory-transport.js';
import { Peer, type IncomingScope } from './peer.js';

interface Side {
  peer: Peer;
  transport: MemoryTransport;
  notifications: McpMessage[];
  wire: unknown[];
}

/** Two peers on an in-memory wire; `handler` answers requests that reach side B. */
function pair(handler: (message: McpMessage, scope: IncomingScope) => Promise<Result>): { a: Side; b: Side } {
  const [ta, tb] = MemoryTransport.pair();
  const make = (transport: MemoryTransport, request: (m: McpMessage, s: IncomingScope) => Promise<Result>): Side => {
    const side: Side = { transport, notifications: [], wire: [], peer: undefined as unknown as Peer };
    side.peer = new Peer(
      transport,
      { request, notification: (m) => side.notifications.push(m), closed: () => void side.peer.close() },
      { log: silentLogger, answerInvalid: true },
    );
    const onmessage = transport.onmessage;
    transport.onmessage = (value) => {
      side.wire.push(value);
      onmessage?.(value);
    };
    return side;
  };
  const a = make(ta, () => Promise.reject(new McpError(-32601, 'Method not found')));
  const b = make(tb, handler);
  return { a, b };
}

describe('Peer', () => {
  test('matches responses to requests by its own ids, however many are in flight and in whatever order they finish', async () => {
    const { a, b } = pair(async (message) => {
      const delay = Number(message.params?.delay);
      await new Promise((resolve) => setTimeout(resolve, delay));
      return { echoed: message.params?.n };
    });
    const answers = await Promise.all([30, 0, 10, 20].map((delay, n) => a.peer.request({ method: 'x', params: { delay, n } })));
    assert.deepEqual(answers, [{ echoed: 0 }, { echoed: 1 }, { echoed: 2 }, { echoed: 3 }]);
    assert.equal(a.peer.pendingCount, 0);
    const ids = b.wire.map((m) => (m as { id: unknown }).id);
    assert.deepEqual(ids, [1, 2, 3, 4]);
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
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let remoteSignal: AbortSignal | undefined;
    const { a, b } = pair(async (_m, scope) => {
      remoteSignal = scope.cancel.signal;
      await released;
      return { late: true };
    });
    const controller = new AbortController();
    const pending = a.peer.request({ method: 'slow' }, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new McpError(-32001, 'Request timed out'));
    await assert.rejects(pending, /Request timed out/);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(b.wire.at(-1), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'Request timed out' } });
    assert.equal(remoteSignal?.aborted, true);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    // The cancelled side never answers, and nothing is left pending.
    assert.equal(a.wire.length, 0);
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
    const { a, b } = pair(() => new Promise(() => undefined));
    const controller = new AbortController();
    const pending = a.peer.request({ method: 'initialize', params: { protocolVersion: '2025-11-25' } }, { signal: controller.signal });
    controller.abort(new McpError(-32001, 'Request timed out'));
    await assert.rejects(pending, /Request timed out/);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(b.wire.map((m) => (m as { method?: string }).method), ['initialize']);
  });
});

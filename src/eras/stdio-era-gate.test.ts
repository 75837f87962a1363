// The stdio front's era gate as a specification: the client's first request decides the era of the
// connection (2026-07-28 "Backward Compatibility"; the v2 SDK's serveStdio does the same). The gate
// sits on a real StreamTransport over in-memory streams; the test plays the client (lines in,
// lines out) and the Session (what the gate hands up, and what it is given to send).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { afterEach, describe, test } from 'node:test';
import { chain } from '../chain/chain.js';
import { ErrorCode } from '../errors/error-code.js';
import type { McpError } from '../errors/mcp-error.js';
import { silentLogger } from '../log/stderr-logger.js';
import type { JsonObject, JsonRpcId, JsonRpcMessage } from '../message/jsonrpc.js';
import { LineReader } from '../message/line-reader.js';
import { ENVELOPE_META } from './stateless-envelope.js';
import { RequestStateCodec } from './request-state.js';
import { ERA_BRIDGE_DEFAULTS, EraBridge } from './era-bridge.js';
import { Session } from '../session/session.js';
import { LATEST_SESSION_ERA_VERSION, SERVED_VERSIONS } from './versions.js';
import { withDeadline } from '../testing/with-deadline.js';
import { StreamTransport } from '../transport/stream-transport.js';
import type { Transport } from '../transport/transport.js';
import { local, type LocalTool } from '../upstream/local.js';
import { serveStdio } from '../front/serve-stdio.js';
import { StdioEraGate } from './stdio-era-gate.js';

const WAIT_MS = 5_000;

/** The tool of the in-process upstreams here. */
const echoTool: LocalTool = { name: 'echo', description: 'Echoes', handler: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }) };

const ENVELOPE: JsonObject = {
  [ENVELOPE_META.protocolVersion]: '2026-07-28',
  [ENVELOPE_META.clientCapabilities]: { elicitation: {} },
  [ENVELOPE_META.clientInfo]: { name: 'modern-client', version: '2.4.0' },
};

const INITIALIZE_RESULT: JsonObject = {
  protocolVersion: LATEST_SESSION_ERA_VERSION,
  capabilities: { tools: {} },
  serverInfo: { name: 'legacy-upstream', version: '1.0.0' },
};

const SESSION_ERA_INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'legacy-client', version: '1.0.0' } },
} as const;

/** A request of the stateless era. */
function stateless(id: JsonRpcId, method: string, params: JsonObject = {}, envelope: JsonObject = ENVELOPE): JsonObject {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } };
}

/** Waits, with a deadline, until `ready` gives something; `poke` is how the source says it has news. */
class Inbox<T> {
  readonly items: T[] = [];
  readonly #wakes = new Set<() => void>();

  add(item: T): void {
    this.items.push(item);
    for (const wake of [...this.#wakes]) wake();
  }

  /** The first item (from `from` on) for which `predicate` holds. */
  find(predicate: (item: T) => boolean, what: string, from = 0): Promise<T> {
    const look = (): T | undefined => this.items.slice(from).find(predicate);
    const now = look();
    if (now !== undefined) return Promise.resolve(now);
    let wake: (() => void) | undefined;
    return withDeadline(
      new Promise<T>((resolve) => {
        wake = () => {
          const found = look();
          if (found === undefined || wake === undefined) return;
          this.#wakes.delete(wake);
          resolve(found);
        };
        this.#wakes.add(wake);
      }),
      { timeoutMs: WAIT_MS, what },
      { onTimeout: () => wake !== undefined && this.#wakes.delete(wake) },
    );
  }
}

/** Turns of the event loop for the transport to flush (it writes on setImmediate). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface Wire {
  readonly gate: StdioEraGate;
  /** Lines the client writes (a value is written as JSON; a string as it is). */
  write(...lines: (string | JsonObject | unknown[])[]): void;
  /** What the client read, parsed. */
  readonly out: Inbox<JsonObject>;
  /** The raw text the client read. */
  text(): string;
  /** What the gate handed up to the session. */
  readonly up: Inbox<JsonObject>;
  /** Malformed lines the gate handed up to the session. */
  readonly malformed: { error: McpError; line: string | undefined }[];
  /** The client's answer (or error) of id `id`. */
  answer(id: JsonRpcId | null): Promise<JsonObject>;
  /** The session's next message of a method, from what was handed up. */
  upRequest(method: string): Promise<JsonObject>;
  /** The session sends a message to the client. */
  down(message: JsonRpcMessage): void;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function bridgeFactory(): () => EraBridge {
  const codec = new RequestStateCodec({ ttlMs: 60_000 });
  return () => new EraBridge({ ...ERA_BRIDGE_DEFAULTS, codec, principal: '', supportedVersions: SERVED_VERSIONS, log: silentLogger });
}

/** A gate on a StreamTransport over in-memory streams, with the test as its session. */
async function wire(): Promise<Wire> {
  const input = new PassThrough();
  const output = new PassThrough();
  const gate = new StdioEraGate(new StreamTransport(input, output), bridgeFactory(), silentLogger);
  const out = new Inbox<JsonObject>();
  const up = new Inbox<JsonObject>();
  const malformed: { error: McpError; line: string | undefined }[] = [];
  let text = '';
  const reader = new LineReader(
    {
      onValue: (value) => out.add(value as JsonObject),
      onMalformed: (error) => {
        throw error;
      },
    },
    1 << 20,
  );
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    reader.push(chunk);
  });
  gate.onmessage = (value) => up.add(structuredClone(value) as JsonObject);
  gate.onmalformed = (error, line) => void malformed.push({ error, line });
  await gate.start();
  closers.push(() => gate.close());
  return {
    gate,
    write: (...lines) => {
      for (const line of lines) input.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    },
    out,
    text: () => text,
    up,
    malformed,
    answer: (id) => out.find((m) => m.id === id && !('method' in m), `the client to be answered (id ${String(id)})`),
    upRequest: (method) => up.find((m) => m.method === method, `the session to be handed ${method}`),
    down: (message) => gate.send(message),
  };
}

/** The session's part of the bridge's handshake: answers its initialize. */
async function answerHandshake(w: Wire, result: JsonObject = INITIALIZE_RESULT): Promise<void> {
  const initialize = await w.upRequest('initialize');
  w.down({ jsonrpc: '2.0', id: initialize.id as number, result });
  await w.upRequest('notifications/initialized');
}

describe('StdioEraGate: a client of the session era', () => {
  test('a claim-less initialize first pins the session era: it and what follows reach the session untouched, both ways', async () => {
    const w = await wire();
    w.write(SESSION_ERA_INITIALIZE);
    assert.deepEqual(await w.upRequest('initialize'), SESSION_ERA_INITIALIZE);
    assert.equal(w.gate.era, 'session');
    w.down({ jsonrpc: '2.0', id: 0, result: INITIALIZE_RESULT });
    assert.deepEqual(await w.answer(0), { jsonrpc: '2.0', id: 0, result: INITIALIZE_RESULT });
    // A later message claiming the stateless era is just a message of this session.
    const late = stateless(1, 'tools/list');
    w.write(late);
    assert.deepEqual(await w.upRequest('tools/list'), late);
    // Server→client requests and notifications go out as they are.
    w.down({ jsonrpc: '2.0', id: 's1', method: 'roots/list' });
    assert.deepEqual(await w.out.find((m) => m.id === 's1', 'the server request'), { jsonrpc: '2.0', id: 's1', method: 'roots/list' });
  });

  test('any other first message without a claim pins the session era too (a request, a notification, a batch)', async () => {
    for (const first of [
      { jsonrpc: '2.0', id: 5, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [{ jsonrpc: '2.0', id: 6, method: 'ping' }],
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { progressToken: 1 } } },
    ]) {
      const w = await wire();
      w.write(first);
      await w.up.find(() => true, `the first message ${JSON.stringify(first)}`);
      assert.deepEqual(w.up.items, [first]);
      assert.equal(w.gate.era, 'session', JSON.stringify(first));
    }
  });

  test('malformed lines are the session\'s to answer, as without the gate (the same error and line), before and after the era is chosen', async () => {
    const w = await wire();
    const bare = await bareTransport();
    for (const target of [w, bare]) target.write('{not json', SESSION_ERA_INITIALIZE, '{"jsonrpc":"2.0",', '\u00ff\u00fe');
    await w.upRequest('initialize');
    await bare.up.find((m) => m.method === 'initialize', 'the bare initialize');
    await settle();
    assert.equal(w.malformed.length, 3);
    assert.deepEqual(
      w.malformed.map(({ error, line }) => ({ error: error.toJSON(), line })),
      bare.malformed.map(({ error, line }) => ({ error: error.toJSON(), line })),
    );
    assert.equal(w.text(), '', 'the gate writes nothing itself');
    assert.equal(w.gate.era, 'session');
  });

  test('a whole session-era conversation through serveStdio is byte for byte what a Session without the gate writes', async () => {
    const script = [
      JSON.stringify(SESSION_ERA_INITIALIZE),
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{not json',
      '[]',
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}',
      '{"jsonrpc":"2.0","id":4,"method":"nope/nope"}',
      '{"jsonrpc":"2.0","id":"last","method":"ping"}',
    ];
    const withGate = await converse(script, true);
    const without = await converse(script, false);
    assert.ok(withGate.includes('"id":"last"'));
    assert.equal(withGate, without);
  });
});

describe('StdioEraGate: a client of the stateless era', () => {
  test('a first request that claims 2026-07-28 pins the stateless era: the session sees the bridge\'s handshake and the request without its envelope', async () => {
    const w = await wire();
    w.write(stateless(1, 'tools/list', { cursor: 'c' }));
    const initialize = await w.upRequest('initialize');
    assert.deepEqual((initialize.params as JsonObject).capabilities, { elicitation: {} });
    assert.equal(w.gate.era, 'stateless');
    w.down({ jsonrpc: '2.0', id: initialize.id as number, result: INITIALIZE_RESULT });
    const list = await w.upRequest('tools/list');
    assert.deepEqual(list.params, { cursor: 'c' });
    assert.notEqual(list.id, 1, 'the session sees the bridge\'s id');
    w.down({ jsonrpc: '2.0', id: list.id as number, result: { tools: [] } });
    assert.deepEqual(await w.answer(1), { jsonrpc: '2.0', id: 1, result: { tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private' } });
  });

  test('an unsupported version is -32022 with the supported list and the requested one, and decides nothing', async () => {
    const w = await wire();
    w.write(stateless('v', 'tools/list', {}, { ...ENVELOPE, [ENVELOPE_META.protocolVersion]: '2099-01-01' }));
    const refused = await w.answer('v');
    assert.equal((refused.error as JsonObject).code, ErrorCode.UnsupportedProtocolVersion);
    const data = (refused.error as JsonObject).data as JsonObject;
    assert.equal(data.requested, '2099-01-01');
    assert.ok(Array.isArray(data.supported) && data.supported.includes('2026-07-28'));
    assert.equal(w.gate.era, undefined);
    assert.deepEqual(w.up.items, []);
    // The client may still choose the session era.
    w.write(SESSION_ERA_INITIALIZE);
    assert.deepEqual(await w.upRequest('initialize'), SESSION_ERA_INITIALIZE);
    assert.equal(w.gate.era, 'session');
  });

  test('an invalid envelope on the first request is -32602 and decides nothing', async () => {
    const w = await wire();
    w.write({ jsonrpc: '2.0', id: 'e', method: 'tools/list', params: { _meta: { [ENVELOPE_META.protocolVersion]: '2026-07-28' } } });
    const refused = await w.answer('e');
    assert.equal((refused.error as JsonObject).code, ErrorCode.InvalidParams);
    assert.equal(w.gate.era, undefined);
  });

  test('a batch is -32600 (the stateless era has none)', async () => {
    const w = await wire();
    w.write(stateless(1, 'tools/list'));
    await answerHandshake(w);
    w.write([stateless(2, 'tools/list'), stateless(3, 'tools/list')]);
    const refused = await w.answer(null);
    assert.equal((refused.error as JsonObject).code, ErrorCode.InvalidRequest);
    await settle();
    assert.equal(w.up.items.filter((m) => m.method === 'tools/list').length, 1, 'no member of the batch is served');
  });

  test('a request without the envelope is -32602 naming what is missing; a claim-less initialize too', async () => {
    const w = await wire();
    w.write(stateless(1, 'tools/list'));
    await answerHandshake(w);
    w.write({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...SESSION_ERA_INITIALIZE, id: 3 });
    for (const id of [2, 3]) {
      const error = (await w.answer(id)).error as JsonObject;
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.deepEqual((error.data as JsonObject).envelope, { missing: ['_meta'] });
    }
    assert.equal(w.gate.era, 'stateless');
  });

  test('notifications/cancelled cancels the request upstream (under the id the session knows)', async () => {
    const w = await wire();
    w.write(stateless(7, 'tools/call', { name: 'slow', arguments: {} }));
    await answerHandshake(w);
    const call = await w.upRequest('tools/call');
    w.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'enough' } });
    const cancelled = await w.upRequest('notifications/cancelled');
    assert.deepEqual(cancelled.params, { requestId: call.id, reason: 'enough' });
    w.down({ jsonrpc: '2.0', id: call.id as number, result: { content: [] } });
    await settle();
    assert.equal(w.out.items.filter((m) => m.id === 7).length, 0, 'a cancelled request is not answered');
  });

  test('a malformed line is answered -32700 with id null by the gate, not handed to the session', async () => {
    const w = await wire();
    w.write(stateless(1, 'tools/list'));
    await answerHandshake(w);
    w.write('{oops');
    const refused = await w.answer(null);
    assert.equal((refused.error as JsonObject).code, ErrorCode.ParseError);
    assert.deepEqual(w.malformed, []);
  });

  test('an invalid message is answered with its id; a stray response is dropped', async () => {
    const w = await wire();
    w.write(stateless(1, 'tools/list'));
    await answerHandshake(w);
    w.write({ jsonrpc: '1.0', id: 'bad', method: 'tools/list' }, { jsonrpc: '2.0', id: 99, result: {} });
    assert.equal(((await w.answer('bad')).error as JsonObject).code, ErrorCode.InvalidRequest);
    await settle();
    assert.deepEqual(w.up.items.filter((m) => !('method' in m)), []);
  });
});

describe('StdioEraGate: a server/discover probe does not decide', () => {
  test('the probe is answered from a handshake; a claim-less initialize after it is answered from that handshake, and the session era goes on', async () => {
    const w = await wire();
    w.write(stateless('server-discover-probe-1', 'server/discover'));
    await answerHandshake(w);
    const discovered = await w.answer('server-discover-probe-1');
    assert.deepEqual((discovered.result as JsonObject).supportedVersions, [...SERVED_VERSIONS]);
    assert.equal(w.gate.era, undefined, 'a probe does not pin');
    w.write(SESSION_ERA_INITIALIZE);
    // At the version the client asked for (the chain serves it).
    assert.deepEqual(await w.answer(0), { jsonrpc: '2.0', id: 0, result: { ...INITIALIZE_RESULT, protocolVersion: SESSION_ERA_INITIALIZE.params.protocolVersion } });
    assert.equal(w.gate.era, 'session');
    assert.equal(w.up.items.filter((m) => m.method === 'initialize').length, 1, 'the session is not initialized twice');
    w.write({ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const list = await w.upRequest('tools/list');
    assert.deepEqual(list, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    w.down({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    assert.deepEqual(await w.answer(1), { jsonrpc: '2.0', id: 1, result: { tools: [] } }, 'session-era results are not decorated');
  });

  test('the initialize after a probe is answered at the protocol version the client asked for (the chain serves it)', async () => {
    const w = await wire();
    w.write(stateless('probe', 'server/discover'));
    await answerHandshake(w);
    await w.answer('probe');
    w.write(SESSION_ERA_INITIALIZE);
    const result = (await w.answer(0)).result as JsonObject;
    // 2025-11-25 basic/lifecycle: "If the server supports the requested protocol version, it MUST respond with the same version."
    assert.equal(result.protocolVersion, SESSION_ERA_INITIALIZE.params.protocolVersion);
  });

  test('through serveStdio: probe, initialize, initialized, then the session era works as usual', async () => {
    const upstream = chain().to(local({ name: 'gate-test', version: '1.0.0', tools: [echoTool] }));
    const input = new PassThrough();
    const output = new PassThrough();
    const out = new Inbox<JsonObject>();
    const reader = new LineReader({ onValue: (value) => out.add(value as JsonObject), onMalformed: (error) => { throw error; } }, 1 << 20);
    output.on('data', (chunk: Buffer) => reader.push(chunk));
    const front = await serveStdio(upstream, { input, output, log: silentLogger });
    closers.push(() => front.close());
    const write = (message: JsonObject): void => void input.write(`${JSON.stringify(message)}\n`);
    const answer = (id: JsonRpcId): Promise<JsonObject> => out.find((m) => m.id === id, `the answer to ${String(id)}`);
    write(stateless('probe', 'server/discover'));
    assert.equal(((await answer('probe')).result as JsonObject).resultType, 'complete');
    write(SESSION_ERA_INITIALIZE);
    const initialized = (await answer(0)).result as JsonObject;
    assert.deepEqual(initialized.serverInfo, { name: 'gate-test', version: '1.0.0' });
    write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    write({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after the probe' } } });
    assert.deepEqual(await answer(1), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'after the probe' }] } });
  });

  test('an initialize that comes while the probe is still being answered is refused, to be tried again', async () => {
    const w = await wire();
    w.write(stateless('probe', 'server/discover'));
    await w.upRequest('initialize');
    w.write(SESSION_ERA_INITIALIZE);
    const refused = await w.answer(0);
    assert.equal((refused.error as JsonObject).code, ErrorCode.InvalidRequest);
    assert.equal(w.gate.era, undefined);
  });

  test('a stateless request after the probe pins the stateless era, on the probe\'s handshake', async () => {
    const w = await wire();
    w.write(stateless('probe', 'server/discover'));
    await answerHandshake(w);
    await w.answer('probe');
    w.write(stateless(1, 'tools/list'));
    const list = await w.upRequest('tools/list');
    assert.equal(w.gate.era, 'stateless');
    w.down({ jsonrpc: '2.0', id: list.id as number, result: { tools: [] } });
    assert.equal(((await w.answer(1)).result as JsonObject).resultType, 'complete');
    assert.equal(w.up.items.filter((m) => m.method === 'initialize').length, 1);
  });
});

/** A bare StreamTransport with the test as its session: what a connection without the gate hands up. */
async function bareTransport(): Promise<{ write: (...lines: (string | JsonObject)[]) => void; up: Inbox<JsonObject>; malformed: { error: McpError; line: string | undefined }[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport: Transport = new StreamTransport(input, output);
  const up = new Inbox<JsonObject>();
  const malformed: { error: McpError; line: string | undefined }[] = [];
  transport.onmessage = (value) => up.add(value as JsonObject);
  transport.onmalformed = (error, line) => void malformed.push({ error, line });
  await transport.start();
  closers.push(() => transport.close());
  return {
    write: (...lines) => {
      for (const line of lines) input.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    },
    up,
    malformed,
  };
}

/** The bytes a stdio front writes for `script`, through serveStdio (with the gate) or a bare Session. */
async function converse(script: readonly string[], gate: boolean): Promise<string> {
  const upstream = chain().to(local({
    name: 'gate-test',
    version: '1.0.0',
    tools: [echoTool],
  }));
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  const done = new Inbox<string>();
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    if (text.includes('"id":"last"')) done.add(text);
  });
  let close: () => Promise<void>;
  if (gate) {
    const front = await serveStdio(upstream, { input, output, log: silentLogger });
    close = () => front.close();
  } else {
    const session = new Session(new StreamTransport(input, output), upstream, { log: silentLogger });
    await session.start();
    close = () => session.close();
  }
  try {
    for (const line of script) input.write(`${line}\n`);
    await done.find(() => true, `the answer to the last line (${gate ? 'with' : 'without'} the gate)`);
    await settle();
    return text;
  } finally {
    await close();
  }
}

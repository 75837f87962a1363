// The era bridge as a specification: a client of protocol revision 2026-07-28 (stateless, every
// request carrying its envelope) served by a session of the session era. The test plays both
// sides: the client's requests go in through `bridge.request(...)`; the Session's part is played by
// reading what the bridge sends it (`bridge.onmessage`) and answering through `bridge.send(...)`.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import { silentLogger } from '../log/stderr-logger.js';
import type { JsonObject, JsonRpcId, JsonRpcNotification, JsonRpcResponse } from '../message/jsonrpc.js';
import { CLIENT_ERA_META, ENVELOPE_META, readStatelessEnvelope } from './stateless-envelope.js';
import { SERVER_INFO_META } from './stateless-results.js';
import { RequestStateCodec } from './request-state.js';
import { LATEST_SESSION_ERA_VERSION, SERVED_VERSIONS, STATELESS_ERA_VERSIONS } from './versions.js';
import { withDeadline } from '../testing/with-deadline.js';
import { ERA_BRIDGE_DEFAULTS, EraBridge, type EraBridgeOptions } from './era-bridge.js';

/** Every wait of this file: a safety net, never a timing. */
const WAIT_MS = 5_000;
const KEY = new Uint8Array(32).fill(3);
const T0 = 1_760_000_000_000;
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

const CLIENT_INFO = { name: 'modern-client', version: '2.4.0' };
/** What the test client declares unless a test says otherwise. */
const ALL_CAPABILITIES: JsonObject = { sampling: {}, elicitation: { form: {} }, roots: {} };

/** The upstream's answer to the bridge's `initialize`. */
const INITIALIZE_RESULT: JsonObject = {
  protocolVersion: LATEST_SESSION_ERA_VERSION,
  capabilities: {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    logging: {},
  },
  serverInfo: { name: 'legacy-upstream', version: '1.0.0' },
  instructions: 'Be kind.',
};

/** A request's `_meta`: the 2026-07-28 envelope, and whatever else the test adds. */
function meta(capabilities: JsonObject = ALL_CAPABILITIES, extra: JsonObject = {}): JsonObject {
  return {
    [ENVELOPE_META.protocolVersion]: '2026-07-28',
    [ENVELOPE_META.clientCapabilities]: capabilities,
    [ENVELOPE_META.clientInfo]: CLIENT_INFO,
    ...extra,
  };
}

/** Turns of the event loop for the bridge to act on what it was given (it flushes asks on setImmediate). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** What the bridge sends the session: read in order, waited for with a deadline. */
class SessionSide {
  /** Messages not read yet. */
  readonly unread: JsonObject[] = [];
  /** Every message, in the order it came. */
  readonly all: JsonObject[] = [];
  readonly #waiters = new Set<() => void>();

  constructor(bridge: EraBridge) {
    bridge.onmessage = (value) => {
      const message = structuredClone(value) as JsonObject;
      this.unread.push(message);
      this.all.push(message);
      for (const wake of [...this.#waiters]) wake();
    };
  }

  /** The first unread message for which `predicate` holds (taken out of `unread`), waiting for it. */
  next(predicate: (message: JsonObject) => boolean, what: string): Promise<JsonObject> {
    const take = (): JsonObject | undefined => {
      const index = this.unread.findIndex(predicate);
      return index === -1 ? undefined : this.unread.splice(index, 1)[0];
    };
    const now = take();
    if (now !== undefined) return Promise.resolve(now);
    let wake: (() => void) | undefined;
    return withDeadline(
      new Promise<JsonObject>((resolve) => {
        wake = () => {
          const found = take();
          if (found === undefined || wake === undefined) return;
          this.#waiters.delete(wake);
          resolve(found);
        };
        this.#waiters.add(wake);
      }),
      { timeoutMs: WAIT_MS, what: `the bridge to send the session ${what}` },
      { onTimeout: () => wake !== undefined && this.#waiters.delete(wake) },
    );
  }

  /** The next request of a method (the bridge's own, or a client's forwarded). */
  request(method: string): Promise<JsonObject> {
    return this.next((m) => m.method === method && 'id' in m, `a ${method} request`);
  }

  notification(method: string): Promise<JsonObject> {
    return this.next((m) => m.method === method && !('id' in m), `a ${method} notification`);
  }

  /** The response the bridge gives a server→client request of id `id`. */
  response(id: JsonRpcId): Promise<JsonObject> {
    return this.next((m) => !('method' in m) && m.id === id, `the answer to the server's request ${String(id)}`);
  }

  /** Unread messages of a method (or responses, for `undefined`). */
  pending(method?: string): JsonObject[] {
    return this.unread.filter((m) => m.method === method);
  }
}

/** One request of the client, and what the bridge gave it. */
interface Sent {
  readonly id: JsonRpcId;
  readonly pushes: JsonRpcNotification[];
  readonly answers: JsonRpcResponse[];
  /** The answer, with a deadline. */
  answered(): Promise<JsonRpcResponse>;
  /** The next push, with a deadline. */
  pushed(count: number): Promise<JsonRpcNotification[]>;
  cancel(reason?: string): void;
}

interface Rig {
  readonly bridge: EraBridge;
  readonly session: SessionSide;
  readonly clock: { now: number };
  readonly codec: RequestStateCodec;
  /** The client sends a request; `params._meta` is the envelope unless `params` has its own `_meta`. */
  send(id: JsonRpcId, method: string, params?: JsonObject): Sent;
  /** Answers the bridge's `initialize` (and waits for `notifications/initialized`). */
  handshake(result?: JsonObject): Promise<JsonObject>;
  /** Answers a request the bridge sent the session. */
  answer(request: JsonObject, result: JsonObject): void;
  /** The session sends a server→client request, related to the client request forwarded as `relatedTo`. */
  ask(id: JsonRpcId, method: string, params: JsonObject | undefined, relatedTo?: JsonRpcId): void;
}

const rigs: EraBridge[] = [];
afterEach(async () => {
  for (const bridge of rigs.splice(0)) await bridge.close();
});

/** One codec (and its clock) for several bridges, as a front shares one. */
function sharedCodec(): { codec: RequestStateCodec; clock: { now: number } } {
  const clock = { now: T0 };
  return { clock, codec: new RequestStateCodec({ key: KEY, ttlMs: 60_000, now: () => clock.now }) };
}

function rig(options: Partial<EraBridgeOptions> = {}, shared?: { codec: RequestStateCodec; clock: { now: number } }): Rig {
  const { clock, codec } = shared ?? sharedCodec();
  const bridge = new EraBridge({
    ...ERA_BRIDGE_DEFAULTS,
    codec,
    principal: '',
    supportedVersions: SERVED_VERSIONS,
    log: silentLogger,
    ...options,
  });
  rigs.push(bridge);
  const session = new SessionSide(bridge);
  const send = (id: JsonRpcId, method: string, params: JsonObject = {}): Sent => {
    const full: JsonObject = '_meta' in params ? params : { ...params, _meta: meta() };
    const envelope = readStatelessEnvelope(full, STATELESS_ERA_VERSIONS);
    const pushes: JsonRpcNotification[] = [];
    const answers: JsonRpcResponse[] = [];
    const wakes = new Set<() => void>();
    const wait = <T>(ready: () => T | undefined, what: string): Promise<T> => {
      const now = ready();
      if (now !== undefined) return Promise.resolve(now);
      let wake: (() => void) | undefined;
      return withDeadline(
        new Promise<T>((resolve) => {
          wake = () => {
            const value = ready();
            if (value === undefined || wake === undefined) return;
            wakes.delete(wake);
            resolve(value);
          };
          wakes.add(wake);
        }),
        { timeoutMs: WAIT_MS, what: `${what} of the client's request ${String(id)}` },
        { onTimeout: () => wake !== undefined && wakes.delete(wake) },
      );
    };
    const cancel = bridge.request({ jsonrpc: '2.0', id, method, params: full }, envelope, {
      push: (message) => {
        pushes.push(structuredClone(message));
        for (const wake of [...wakes]) wake();
      },
      answer: (response) => {
        answers.push(structuredClone(response));
        for (const wake of [...wakes]) wake();
      },
    });
    return {
      id,
      pushes,
      answers,
      answered: () => wait(() => answers[0], 'the answer'),
      pushed: (count) => wait(() => (pushes.length >= count ? pushes.slice(0, count) : undefined), `${count} notifications`),
      cancel,
    };
  };
  const answer = (request: JsonObject, result: JsonObject): void => {
    bridge.send({ jsonrpc: '2.0', id: request.id as JsonRpcId, result });
  };
  return {
    bridge,
    session,
    clock,
    codec,
    send,
    answer,
    handshake: async (result = INITIALIZE_RESULT) => {
      const initialize = await session.request('initialize');
      answer(initialize, result);
      await session.notification('notifications/initialized');
      return initialize;
    },
    ask: (id, method, params, relatedTo) => {
      bridge.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }, relatedTo);
    },
  };
}

/** A result response's result (fails on an error). */
function resultOf(response: JsonRpcResponse): JsonObject {
  assert.ok('result' in response, `expected a result, got ${JSON.stringify(response)}`);
  return response.result;
}

/** An error response's error (fails on a result). */
function errorOf(response: JsonRpcResponse): { code: number; message: string; data?: unknown } {
  assert.ok('error' in response, `expected an error, got ${JSON.stringify(response)}`);
  return response.error;
}

/** A tools/call of the client, forwarded to the session once ready: the forwarded request. */
async function startCall(
  r: Rig,
  id: JsonRpcId,
  args: JsonObject = { q: 'hi' },
  capabilities: JsonObject = ALL_CAPABILITIES,
): Promise<{ sent: Sent; forwarded: JsonObject }> {
  const sent = r.send(id, 'tools/call', { name: 'ask', arguments: args, _meta: meta(capabilities) });
  const forwarded = await r.session.request('tools/call');
  return { sent, forwarded };
}

/** A call that asked the client once (an elicitation) and was answered `input_required`: its state. */
async function parkedCall(
  r: Rig,
  id: JsonRpcId,
  serverId: JsonRpcId,
  args: JsonObject = { q: 'hi' },
): Promise<{ sent: Sent; forwarded: JsonObject; result: JsonObject; key: string; state: string }> {
  const { sent, forwarded } = await startCall(r, id, args);
  r.ask(serverId, 'elicitation/create', { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } }, forwarded.id as number);
  const result = resultOf(await sent.answered());
  const keys = Object.keys(result.inputRequests as JsonObject);
  assert.equal(keys.length, 1);
  return { sent, forwarded, result, key: keys[0] as string, state: result.requestState as string };
}

/** The retry of a parked tools/call: same name and arguments, a new id, the answers and the state. */
function retry(r: Rig, id: JsonRpcId, state: unknown, inputResponses: JsonObject, args: JsonObject = { q: 'hi' }, extra: JsonObject = {}): Sent {
  return r.send(id, 'tools/call', { name: 'ask', arguments: args, inputResponses, requestState: state, _meta: meta(), ...extra });
}

const ACCEPT = { action: 'accept', content: { name: 'Ada' } };

describe('EraBridge: the handshake it makes for the client', () => {
  test('the first request makes the session handshake with its capabilities and client info, then goes on', async () => {
    const r = rig();
    const capabilities = { sampling: {}, roots: { listChanged: true } };
    const sent = r.send(1, 'tools/list', { _meta: meta(capabilities) });
    const initialize = await r.handshake();
    // The note of the client's era is for the upstream connection (which removes it), not for the server.
    assert.deepEqual(initialize.params, { protocolVersion: LATEST_SESSION_ERA_VERSION, capabilities, clientInfo: CLIENT_INFO, _meta: { [CLIENT_ERA_META]: '2026-07-28' } });
    const list = await r.session.request('tools/list');
    r.answer(list, { tools: [] });
    assert.equal(resultOf(await sent.answered()).resultType, 'complete');
    assert.deepEqual(r.bridge.initializeResult, INITIALIZE_RESULT);
  });

  test('the handshake happens once: requests that come before it is done wait for it, later ones do not make another', async () => {
    const r = rig();
    const first = r.send(1, 'tools/list');
    const second = r.send(2, 'prompts/list', { _meta: meta({}) });
    await r.handshake();
    const forwarded = [await r.session.request('tools/list'), await r.session.request('prompts/list')];
    const third = r.send(3, 'resources/list');
    forwarded.push(await r.session.request('resources/list'));
    for (const request of forwarded) r.answer(request, {});
    await Promise.all([first.answered(), second.answered(), third.answered()]);
    await settle();
    assert.deepEqual(r.session.pending('initialize'), []);
    assert.deepEqual(r.session.unread, []);
  });

  test('a request without clientInfo still handshakes, under a name of the chain', async () => {
    const r = rig();
    r.send(1, 'tools/list', { _meta: { [ENVELOPE_META.protocolVersion]: '2026-07-28', [ENVELOPE_META.clientCapabilities]: {} } });
    const initialize = await r.session.request('initialize');
    const params = initialize.params as JsonObject;
    assert.deepEqual(params.capabilities, {});
    assert.equal(typeof (params.clientInfo as JsonObject).name, 'string');
  });

  test('a handshake the upstream refuses fails the requests waiting for it; the next request tries again', async () => {
    const r = rig();
    const first = r.send(1, 'tools/list');
    const initialize = await r.session.request('initialize');
    r.bridge.send({ jsonrpc: '2.0', id: initialize.id as number, error: { code: -32603, message: 'not today' } });
    const error = errorOf(await first.answered());
    assert.equal(first.answers[0]?.id, 1);
    assert.equal(error.code, -32603);
    const second = r.send(2, 'tools/list');
    await r.handshake();
    r.answer(await r.session.request('tools/list'), { tools: [] });
    assert.equal(resultOf(await second.answered()).resultType, 'complete');
  });
});

describe('EraBridge: server/discover', () => {
  test('is answered from the handshake: versions of both eras, capabilities, serverInfo in _meta, instructions, cache hints', async () => {
    const r = rig({ cacheHints: { ttlMs: 1_000, cacheScope: 'public' } });
    const sent = r.send('probe', 'server/discover');
    await r.handshake();
    const response = await sent.answered();
    assert.equal(response.id, 'probe');
    assert.deepEqual(resultOf(response), {
      resultType: 'complete',
      supportedVersions: [...SERVED_VERSIONS],
      capabilities: INITIALIZE_RESULT.capabilities,
      instructions: 'Be kind.',
      _meta: { [SERVER_INFO_META]: INITIALIZE_RESULT.serverInfo },
      ttlMs: 1_000,
      cacheScope: 'public',
    });
    assert.ok(SERVED_VERSIONS.includes('2026-07-28') && SERVED_VERSIONS.includes('2025-11-25'));
    await settle();
    assert.deepEqual(r.session.unread, [], 'discover is not forwarded');
  });
});

describe('EraBridge: requests forwarded to the session', () => {
  test('lose the envelope; other _meta keys (progressToken, the client\'s own) are kept', async () => {
    const r = rig();
    r.send(1, 'tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: meta(ALL_CAPABILITIES, { progressToken: 7, 'example.com/trace': 'abc' }) });
    await r.handshake();
    const forwarded = await r.session.request('tools/call');
    assert.deepEqual(forwarded.params, { name: 'echo', arguments: { text: 'x' }, _meta: { progressToken: 7, 'example.com/trace': 'abc' } });
    assert.equal(typeof forwarded.id, 'number');
  });

  test('a request whose _meta is only the envelope is forwarded without _meta', async () => {
    const r = rig();
    r.send(1, 'tools/list', { cursor: 'c2' });
    await r.handshake();
    assert.deepEqual((await r.session.request('tools/list')).params, { cursor: 'c2' });
  });

  test('inputResponses and requestState are never forwarded (a session-era server knows neither)', async () => {
    const r = rig();
    r.send(1, 'tools/call', { name: 'echo', arguments: {}, inputResponses: { x: { action: 'decline' } } });
    r.send(2, 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'b' }, requestState: 'whatever' });
    await r.handshake();
    assert.deepEqual((await r.session.request('tools/call')).params, { name: 'echo', arguments: {} });
    assert.deepEqual((await r.session.request('completion/complete')).params, { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'b' } });
  });

  test('results get resultType "complete"; lists and resources/read also get the cache hints, other results none', async () => {
    const r = rig({ cacheHints: { ttlMs: 0, cacheScope: 'private' } });
    const list = r.send(1, 'tools/list');
    const read = r.send(2, 'resources/read', { uri: 'a://1' });
    const call = r.send(3, 'tools/call', { name: 'echo', arguments: {} });
    await r.handshake();
    r.answer(await r.session.request('tools/list'), { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
    r.answer(await r.session.request('resources/read'), { contents: [{ uri: 'a://1', text: 'one' }] });
    r.answer(await r.session.request('tools/call'), { content: [{ type: 'text', text: 'hi' }] });
    assert.deepEqual(resultOf(await list.answered()), {
      tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
    });
    assert.deepEqual(resultOf(await read.answered()), { contents: [{ uri: 'a://1', text: 'one' }], resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    assert.deepEqual(resultOf(await call.answered()), { content: [{ type: 'text', text: 'hi' }], resultType: 'complete' });
    assert.deepEqual([list.answers[0]?.id, read.answers[0]?.id, call.answers[0]?.id], [1, 2, 3]);
  });

  test('a list that already has valid hints keeps them', async () => {
    const r = rig();
    const list = r.send(1, 'prompts/list');
    await r.handshake();
    r.answer(await r.session.request('prompts/list'), { prompts: [], ttlMs: 30_000, cacheScope: 'public' });
    assert.deepEqual(resultOf(await list.answered()), { prompts: [], ttlMs: 30_000, cacheScope: 'public', resultType: 'complete' });
  });

  test('a session-era "resource not found" (-32002) becomes -32602 with data.uri, under the client\'s id', async () => {
    const r = rig();
    const read = r.send('r1', 'resources/read', { uri: 'a://missing' });
    await r.handshake();
    const forwarded = await r.session.request('resources/read');
    r.bridge.send({ jsonrpc: '2.0', id: forwarded.id as number, error: { code: -32002, message: 'Resource not found' } });
    const response = await read.answered();
    assert.equal(response.id, 'r1');
    assert.deepEqual(errorOf(response), { code: ErrorCode.InvalidParams, message: 'Resource not found', data: { uri: 'a://missing' } });
  });

  test('other errors pass unchanged, under the client\'s id', async () => {
    const r = rig();
    const call = r.send(9, 'tools/call', { name: 'nope', arguments: {} });
    await r.handshake();
    const forwarded = await r.session.request('tools/call');
    r.bridge.send({ jsonrpc: '2.0', id: forwarded.id as number, error: { code: -32602, message: 'Unknown tool: nope' } });
    const response = await call.answered();
    assert.deepEqual(response, { jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Unknown tool: nope' } });
  });

  test('methods the stateless era removed are -32601 at once, with nothing sent to the session', async () => {
    const r = rig();
    const removed = ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'];
    const sent = removed.map((method, i) => r.send(`m${i}`, method, method === 'logging/setLevel' ? { level: 'debug' } : {}));
    for (const [i, request] of sent.entries()) {
      assert.equal(request.answers.length, 1, `${removed[i]} is answered at once`);
      assert.equal(request.answers[0]?.id, `m${i}`);
      assert.equal(errorOf(request.answers[0] as JsonRpcResponse).code, ErrorCode.MethodNotFound, removed[i]);
    }
    await settle();
    assert.deepEqual(r.session.unread, []);
  });

  test('an unknown log level is -32602, and the request goes nowhere', async () => {
    const r = rig();
    const sent = r.send(4, 'tools/list', { _meta: meta(ALL_CAPABILITIES, { [ENVELOPE_META.logLevel]: 'verbose' }) });
    const response = await sent.answered();
    assert.equal(response.id, 4);
    assert.equal(errorOf(response).code, ErrorCode.InvalidParams);
    await settle();
    assert.deepEqual(r.session.unread, []);
  });
});

describe('EraBridge: a server→client request during a call becomes input_required', () => {
  test('the call is answered input_required: inputRequests by key ({method, params}, no jsonrpc or id) and a sealed requestState', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { sent, result, key, state } = await promise;
    assert.equal(sent.answers[0]?.id, 'c1');
    assert.deepEqual(Object.keys(result).sort(), ['inputRequests', 'requestState', 'resultType']);
    assert.equal(result.resultType, 'input_required');
    assert.deepEqual((result.inputRequests as JsonObject)[key], {
      method: 'elicitation/create',
      params: { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } },
    });
    assert.match(state, /^mc1\./);
    assert.equal(r.bridge.inFlight, 1, 'the call stays open upstream');
    assert.deepEqual(r.session.pending(), [], 'the server\'s request waits for the client');
    assert.deepEqual(r.session.pending('notifications/cancelled'), []);
  });

  test('sampling and roots become input requests as well; roots/list without params has none', async () => {
    const r = rig();
    const sampling = startCall(r, 'c1');
    await r.handshake();
    const first = await sampling;
    const samplingParams = { messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 100 };
    r.ask('s1', 'sampling/createMessage', samplingParams, first.forwarded.id as number);
    const asked = resultOf(await first.sent.answered()).inputRequests as JsonObject;
    assert.deepEqual(Object.values(asked), [{ method: 'sampling/createMessage', params: samplingParams }]);

    const second = await startCall(r, 'c2', { q: 'roots' });
    r.ask('s2', 'roots/list', undefined, second.forwarded.id as number);
    const roots = resultOf(await second.sent.answered()).inputRequests as JsonObject;
    assert.deepEqual(Object.values(roots), [{ method: 'roots/list' }]);
  });

  test('keys are unique within the request: two asks in the same turn go out together, in one input_required', async () => {
    const r = rig();
    const call = startCall(r, 'c1');
    await r.handshake();
    const { sent, forwarded } = await call;
    r.ask('s1', 'elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: {} } }, forwarded.id as number);
    r.ask('s2', 'roots/list', undefined, forwarded.id as number);
    const result = resultOf(await sent.answered());
    const requests = result.inputRequests as JsonObject;
    assert.equal(Object.keys(requests).length, 2);
    assert.deepEqual(Object.values(requests).map((request) => (request as JsonObject).method).sort(), ['elicitation/create', 'roots/list']);
    assert.equal(sent.answers.length, 1);
  });

  test('the retry answers the server\'s request under its id and resumes the call, answered under the retry\'s id', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded, key, state } = await promise;
    const again = retry(r, 'c2', state, { [key]: ACCEPT });
    assert.deepEqual(await r.session.response('s1'), { jsonrpc: '2.0', id: 's1', result: ACCEPT });
    await settle();
    assert.deepEqual(r.session.pending('tools/call'), [], 'the retry is not a new call upstream');
    r.answer(forwarded, { content: [{ type: 'text', text: 'Hello, Ada!' }] });
    const response = await again.answered();
    assert.deepEqual(response, { jsonrpc: '2.0', id: 'c2', result: { content: [{ type: 'text', text: 'Hello, Ada!' }], resultType: 'complete' } });
    assert.equal(r.bridge.inFlight, 0);
  });

  test('extra keys in inputResponses are ignored', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded, key, state } = await promise;
    const again = retry(r, 'c2', state, { [key]: ACCEPT, unasked: { action: 'decline' } });
    await r.session.response('s1');
    r.answer(forwarded, { content: [] });
    assert.equal(resultOf(await again.answered()).resultType, 'complete');
  });

  test('a retry that leaves out an answer is asked again (a new input_required), not refused', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { key, state, result } = await promise;
    const again = retry(r, 'c2', state, {});
    const response = await again.answered();
    assert.equal(response.id, 'c2');
    const second = resultOf(response);
    assert.equal(second.resultType, 'input_required');
    assert.deepEqual(second.inputRequests, result.inputRequests);
    assert.notEqual(second.requestState, state, 'a new state for the new round');
    assert.deepEqual(Object.keys(second.inputRequests as JsonObject), [key]);
    await settle();
    assert.deepEqual(r.session.pending(), [], 'the server\'s request is still waiting');
    // The new state works.
    const third = retry(r, 'c3', second.requestState, { [key]: ACCEPT });
    assert.deepEqual((await r.session.response('s1')).result, ACCEPT);
    assert.equal(third.answers.length, 0);
  });

  test('a malformed answer (not an object) is asked again too', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { key, state } = await promise;
    const again = retry(r, 'c2', state, { [key]: 'yes' });
    assert.equal(resultOf(await again.answered()).resultType, 'input_required');
  });

  test('several rounds: the server asks again after the first answer, and the call ends on the last retry', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded, key, state } = await promise;
    const second = retry(r, 'c2', state, { [key]: ACCEPT });
    await r.session.response('s1');
    r.ask('s2', 'elicitation/create', { message: 'Colour?', requestedSchema: { type: 'object', properties: {} } }, forwarded.id as number);
    const round2 = resultOf(await second.answered());
    assert.equal(round2.resultType, 'input_required');
    const [key2] = Object.keys(round2.inputRequests as JsonObject);
    assert.ok(key2 !== undefined && key2 !== key);
    assert.notEqual(round2.requestState, state);
    const third = retry(r, 'c3', round2.requestState, { [key2]: { action: 'accept', content: { colour: 'teal' } } });
    assert.deepEqual((await r.session.response('s2')).result, { action: 'accept', content: { colour: 'teal' } });
    r.answer(forwarded, { content: [{ type: 'text', text: 'Ada likes teal' }] });
    assert.deepEqual(await third.answered(), { jsonrpc: '2.0', id: 'c3', result: { content: [{ type: 'text', text: 'Ada likes teal' }], resultType: 'complete' } });
  });

  test('the answer the server gives while the call waits for the retry is given on the retry', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { sent, forwarded, key, state } = await promise;
    r.answer(forwarded, { content: [{ type: 'text', text: 'gave up asking' }] });
    await settle();
    assert.equal(sent.answers.length, 1, 'the first request was answered already (input_required)');
    const again = retry(r, 'c2', state, { [key]: ACCEPT });
    assert.deepEqual(await again.answered(), { jsonrpc: '2.0', id: 'c2', result: { content: [{ type: 'text', text: 'gave up asking' }], resultType: 'complete' } });
  });

  test('the server withdrawing its request (notifications/cancelled) takes it out of the next round', async () => {
    const r = rig();
    const call = startCall(r, 'c1');
    await r.handshake();
    const { sent, forwarded } = await call;
    r.ask('s1', 'elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: {} } }, forwarded.id as number);
    r.ask('s2', 'roots/list', undefined, forwarded.id as number);
    const first = resultOf(await sent.answered());
    const keys = Object.keys(first.inputRequests as JsonObject);
    const rootsKey = keys.find((key) => (first.inputRequests as JsonObject)[key] !== undefined && ((first.inputRequests as JsonObject)[key] as JsonObject).method === 'roots/list');
    assert.ok(rootsKey !== undefined);
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's2' } });
    const again = retry(r, 'c2', first.requestState, {});
    const second = resultOf(await again.answered());
    assert.deepEqual(Object.values(second.inputRequests as JsonObject).map((request) => (request as JsonObject).method), ['elicitation/create']);
  });

  test('a server request with no related call goes to the oldest call that may be asked it', async () => {
    const r = rig();
    const list = r.send('l1', 'tools/list');
    await r.handshake();
    await r.session.request('tools/list');
    const call = r.send('c1', 'tools/call', { name: 'ask', arguments: {}, _meta: meta() });
    await r.session.request('tools/call');
    r.ask('s1', 'elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: {} } });
    assert.equal(resultOf(await call.answered()).resultType, 'input_required');
    assert.equal(list.answers.length, 0);
  });
});

describe('EraBridge: the client\'s capabilities gate what it is asked', () => {
  test('a request the call did not declare the capability for is refused to the server, and the call goes on', async () => {
    const r = rig();
    const call = startCall(r, 'c1', { q: 'hi' }, { elicitation: {} });
    await r.handshake();
    const { sent, forwarded } = await call;
    r.ask('s1', 'sampling/createMessage', { messages: [], maxTokens: 10 }, forwarded.id as number);
    const refusal = await r.session.response('s1');
    assert.ok('error' in refusal, 'the server\'s request is answered with an error');
    await settle();
    assert.equal(sent.answers.length, 0, 'the client is not asked, and its call is still open');
    r.answer(forwarded, { content: [{ type: 'text', text: 'did without' }], isError: false });
    assert.equal(resultOf(await sent.answered()).resultType, 'complete');
  });

  test('an empty elicitation capability means form mode only: a URL-mode elicitation is refused', async () => {
    const r = rig();
    const call = startCall(r, 'c1', { q: 'hi' }, { elicitation: {} });
    await r.handshake();
    const { sent, forwarded } = await call;
    r.ask('s1', 'elicitation/create', { mode: 'url', message: 'Sign in', url: 'https://example.com/x', elicitationId: 'e1' }, forwarded.id as number);
    assert.ok('error' in (await r.session.response('s1')));
    r.ask('s2', 'elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: {} } }, forwarded.id as number);
    assert.equal(resultOf(await sent.answered()).resultType, 'input_required');
  });

  test('the retry\'s own capabilities count: a retry that no longer declares sampling is not asked for it', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded, key, state } = await promise;
    const again = r.send('c2', 'tools/call', { name: 'ask', arguments: { q: 'hi' }, inputResponses: { [key]: ACCEPT }, requestState: state, _meta: meta({ elicitation: {} }) });
    await r.session.response('s1');
    r.ask('s2', 'sampling/createMessage', { messages: [], maxTokens: 10 }, forwarded.id as number);
    assert.ok('error' in (await r.session.response('s2')));
    r.answer(forwarded, { content: [] });
    assert.equal(resultOf(await again.answered()).resultType, 'complete');
  });

  test('a server request during a method that cannot answer input_required (tools/list) is refused', async () => {
    const r = rig();
    const list = r.send('l1', 'tools/list');
    await r.handshake();
    const forwarded = await r.session.request('tools/list');
    r.ask('s1', 'roots/list', undefined, forwarded.id as number);
    assert.ok('error' in (await r.session.response('s1')));
    r.answer(forwarded, { tools: [] });
    assert.equal(resultOf(await list.answered()).resultType, 'complete');
  });

  test('a server request the stateless era has no input request for (e.g. a custom one) is refused -32601', async () => {
    const r = rig();
    const call = startCall(r, 'c1');
    await r.handshake();
    const { forwarded } = await call;
    r.ask('s1', 'example/custom', {}, forwarded.id as number);
    const refusal = await r.session.response('s1');
    assert.equal((refusal.error as JsonObject).code, ErrorCode.MethodNotFound);
  });
});

describe('EraBridge: a requestState that cannot resume a call is -32602, under the retry\'s id', () => {
  /** The error the retry got, checked to be -32602 under its id. */
  async function refusedRetry(sent: Sent): Promise<{ code: number; message: string; data?: unknown }> {
    const response = await sent.answered();
    assert.equal(response.id, sent.id);
    const error = errorOf(response);
    assert.equal(error.code, ErrorCode.InvalidParams);
    return error;
  }

  test('replayed: a state already used (the call still going on) is refused, and the call is not disturbed', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded, key, state } = await promise;
    const good = retry(r, 'c2', state, { [key]: ACCEPT });
    await r.session.response('s1');
    const replay = retry(r, 'c3', state, { [key]: ACCEPT });
    const error = await refusedRetry(replay);
    assert.deepEqual(error.data, { requestState: 'used' });
    await settle();
    assert.deepEqual(r.session.unread, [], 'nothing reaches the session');
    r.answer(forwarded, { content: [] });
    assert.equal((await good.answered()).id, 'c2');
  });

  test('replayed after the call finished: refused', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded, key, state } = await promise;
    const good = retry(r, 'c2', state, { [key]: ACCEPT });
    r.answer(forwarded, { content: [] });
    await good.answered();
    await refusedRetry(retry(r, 'c3', state, { [key]: ACCEPT }));
  });

  test('tampered: one character of the state changed', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { key, state } = await promise;
    const payloadAt = 'mc1.'.length + 2;
    const tampered = state.slice(0, payloadAt) + (state[payloadAt] === 'A' ? 'B' : 'A') + state.slice(payloadAt + 1);
    const error = await refusedRetry(retry(r, 'c2', tampered, { [key]: ACCEPT }));
    assert.ok(['invalid', 'malformed'].includes((error.data as JsonObject).requestState as string));
    await settle();
    assert.deepEqual(r.session.unread, [], 'the server\'s request is not answered');
    // The genuine state still works.
    retry(r, 'c3', state, { [key]: ACCEPT });
    await r.session.response('s1');
  });

  test('not a state at all (a number, garbage) is refused as malformed', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { key } = await promise;
    for (const [i, state] of [42, 'garbage', ''].entries()) {
      const error = await refusedRetry(retry(r, `x${i}`, state, { [key]: ACCEPT }));
      assert.deepEqual(error.data, { requestState: 'malformed' });
    }
  });

  test('foreign: a state issued to another principal (same key) is refused', async () => {
    const shared = sharedCodec();
    const alice = rig({ principal: 'alice' }, shared);
    const promise = parkedCall(alice, 'c1', 's1');
    await alice.handshake();
    const { key, state } = await promise;
    const bob = rig({ principal: 'bob' }, shared);
    const error = await refusedRetry(retry(bob, 'c2', state, { [key]: ACCEPT }));
    assert.deepEqual(error.data, { requestState: 'foreign' });
    await settle();
    assert.deepEqual(bob.session.unread, [], 'bob\'s bridge does not even handshake for it');
  });

  test('other params: the state of one call presented with other arguments is refused', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1', { q: 'hi' });
    await r.handshake();
    const { key, state } = await promise;
    const error = await refusedRetry(retry(r, 'c2', state, { [key]: ACCEPT }, { q: 'something else' }));
    assert.deepEqual(error.data, { requestState: 'mismatch' });
  });

  test('other method: a tools/call state presented on prompts/get is refused', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { key, state } = await promise;
    const sent = r.send('c2', 'prompts/get', { name: 'ask', arguments: { q: 'hi' }, inputResponses: { [key]: ACCEPT }, requestState: state });
    await refusedRetry(sent);
  });

  test('expired: a state presented after its TTL is refused as expired', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { key, state } = await promise;
    r.clock.now += 60_000;
    const error = await refusedRetry(retry(r, 'c2', state, { [key]: ACCEPT }));
    assert.deepEqual(error.data, { requestState: 'expired' });
  });

  test('unknown: a genuine state of another bridge (same key and principal) names no call here', async () => {
    const shared = sharedCodec();
    const one = rig({}, shared);
    const promise = parkedCall(one, 'c1', 's1');
    await one.handshake();
    const { key, state } = await promise;
    const other = rig({}, shared);
    const error = await refusedRetry(retry(other, 'c2', state, { [key]: ACCEPT }));
    assert.deepEqual(error.data, { requestState: 'unknown' });
  });
});

describe('EraBridge: a URL elicitation required error (-32042) of the session era', () => {
  const LOGIN = { mode: 'url', elicitationId: 'login-1', url: 'https://as.example/authorize?state=x', message: 'Log in to remote' };
  const URL_CAPABLE: JsonObject = { elicitation: { url: {} } };

  test('for a client that declared URL elicitation: an input_required with the elicitation (no id), and the retry sends the request again', async () => {
    const r = rig();
    const sent = r.send(1, 'tools/call', { name: 'remote_search', arguments: { q: 'x' }, _meta: meta(URL_CAPABLE) });
    await r.handshake();
    const first = await r.session.request('tools/call');
    r.bridge.send({ jsonrpc: '2.0', id: first.id as JsonRpcId, error: { code: -32042, message: 'Login required', data: { elicitations: [LOGIN] } } });
    const result = resultOf(await sent.answered());
    assert.equal(result.resultType, 'input_required');
    const { elicitationId: _id, ...params } = LOGIN;
    assert.deepEqual(result.inputRequests, { 'url-login-1': { method: 'elicitation/create', params } });

    const again = r.send(2, 'tools/call', {
      name: 'remote_search',
      arguments: { q: 'x' },
      inputResponses: { 'url-login-1': { action: 'accept' } },
      requestState: result.requestState,
      _meta: meta(URL_CAPABLE),
    });
    const second = await r.session.request('tools/call');
    assert.notEqual(second.id, first.id, 'a new call upstream');
    assert.deepEqual((second.params as JsonObject).arguments, { q: 'x' });
    assert.ok(!('inputResponses' in (second.params as JsonObject)) && !('requestState' in (second.params as JsonObject)));
    r.answer(second, { content: [{ type: 'text', text: 'found' }] });
    assert.deepEqual(resultOf(await again.answered()).content, [{ type: 'text', text: 'found' }]);
  });

  test('for a client without URL elicitation it stays an error, -32603 (2026-07-28 retired -32042)', async () => {
    const r = rig();
    const sent = r.send(1, 'tools/call', { name: 'remote_search', arguments: {}, _meta: meta({ elicitation: {} }) });
    await r.handshake();
    const call = await r.session.request('tools/call');
    r.bridge.send({ jsonrpc: '2.0', id: call.id as JsonRpcId, error: { code: -32042, message: 'Login required', data: { elicitations: [LOGIN] } } });
    assert.equal(errorOf(await sent.answered()).code, -32603);
  });
});

describe('EraBridge: a call the client never comes back for', () => {
  test('after inputTimeoutMs it is cancelled upstream (its internal id) and the server\'s request is answered with an error', async () => {
    const r = rig({ inputTimeoutMs: 30 });
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded, key, state } = await promise;
    const refusal = await r.session.response('s1');
    assert.ok('error' in refusal);
    const cancelled = await r.session.notification('notifications/cancelled');
    assert.equal((cancelled.params as JsonObject).requestId, forwarded.id);
    assert.equal(r.bridge.inFlight, 0);
    // A retry that comes too late names no call.
    const late = retry(r, 'c2', state, { [key]: ACCEPT });
    const error = errorOf(await late.answered());
    assert.equal(error.code, ErrorCode.InvalidParams);
  });

  test('a call whose answer came while it waited is not cancelled when it is abandoned (there is nothing to cancel)', async () => {
    const r = rig({ inputTimeoutMs: 30 });
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded } = await promise;
    r.answer(forwarded, { content: [] });
    await r.session.response('s1');
    await settle();
    assert.deepEqual(r.session.pending('notifications/cancelled'), []);
    assert.equal(r.bridge.inFlight, 0);
  });

  test('with maxParked calls waiting, one more abandons the oldest', async () => {
    const r = rig({ maxParked: 1 });
    const first = parkedCall(r, 'c1', 's1', { q: 'one' });
    await r.handshake();
    const one = await first;
    await settle();
    assert.deepEqual(r.session.pending('notifications/cancelled'), []);
    const two = await parkedCall(r, 'c2', 's2', { q: 'two' });
    assert.ok('error' in (await r.session.response('s1')));
    const cancelled = await r.session.notification('notifications/cancelled');
    assert.equal((cancelled.params as JsonObject).requestId, one.forwarded.id);
    // The newer one still resumes.
    retry(r, 'c3', two.state, { [two.key]: ACCEPT }, { q: 'two' });
    assert.deepEqual((await r.session.response('s2')).result, ACCEPT);
  });
});

describe('EraBridge: cancellation', () => {
  test('cancelling a call sends notifications/cancelled upstream with its internal id, and it gets no answer', async () => {
    const r = rig();
    const call = startCall(r, 'c1');
    await r.handshake();
    const { sent, forwarded } = await call;
    sent.cancel('changed my mind');
    const cancelled = await r.session.notification('notifications/cancelled');
    assert.deepEqual(cancelled.params, { requestId: forwarded.id, reason: 'changed my mind' });
    r.answer(forwarded, { content: [] });
    await settle();
    assert.deepEqual(sent.answers, []);
  });

  test('cancelling a retry cancels the resumed call', async () => {
    const r = rig();
    const promise = parkedCall(r, 'c1', 's1');
    await r.handshake();
    const { forwarded, key, state } = await promise;
    const again = retry(r, 'c2', state, { [key]: ACCEPT });
    await r.session.response('s1');
    again.cancel();
    const cancelled = await r.session.notification('notifications/cancelled');
    assert.equal((cancelled.params as JsonObject).requestId, forwarded.id);
  });

  test('a request cancelled before the handshake is done is never forwarded', async () => {
    const r = rig();
    const sent = r.send('c1', 'tools/call', { name: 'ask', arguments: {} });
    sent.cancel();
    await r.handshake();
    await settle();
    assert.deepEqual(r.session.pending('tools/call'), []);
    assert.deepEqual(sent.answers, []);
  });
});

describe('EraBridge: subscriptions/listen', () => {
  /** A listen of the client, once the handshake is done. */
  async function listening(r: Rig, id: JsonRpcId, notifications: JsonObject): Promise<Sent> {
    const sent = r.send(id, 'subscriptions/listen', { notifications });
    if (r.bridge.initializeResult === undefined) await r.handshake();
    await sent.pushed(1);
    return sent;
  }

  test('the first message is the acknowledgement, tagged, with the subset the upstream can honour', async () => {
    const r = rig();
    const sent = await listening(r, 'L1', { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['a://1'] });
    assert.deepEqual(sent.pushes[0], {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { [SUBSCRIPTION_ID]: 'L1' },
        // The upstream has no prompts capability.
        notifications: { toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['a://1'] },
      },
    });
    assert.deepEqual(sent.answers, [], 'a listen stays open');
    assert.deepEqual((await r.session.request('resources/subscribe')).params, { uri: 'a://1' });
  });

  test('nothing is honoured that the upstream does not offer: no listChanged, no subscribe', async () => {
    const r = rig();
    const sent = r.send('L1', 'subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['a://1'] } });
    await r.handshake({ ...INITIALIZE_RESULT, capabilities: { tools: {}, resources: {} } });
    const [ack] = await sent.pushed(1);
    assert.deepEqual(ack?.params?.notifications, {});
    await settle();
    assert.deepEqual(r.session.pending('resources/subscribe'), []);
  });

  test('a listen without a notifications object is -32602', async () => {
    const r = rig();
    const sent = r.send('L1', 'subscriptions/listen', {});
    await r.handshake();
    const response = await sent.answered();
    assert.equal(response.id, 'L1');
    assert.equal(errorOf(response).code, ErrorCode.InvalidParams);
  });

  test('notifications go to the listens that asked for them, tagged with the listen\'s id; other types are not sent', async () => {
    const r = rig();
    const tools = await listening(r, 'L1', { toolsListChanged: true });
    const resources = await listening(r, 'L2', { resourcesListChanged: true, resourceSubscriptions: ['a://1'] });
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'a://1' } });
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'a://2' } });
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'unrelated' } });
    await settle();
    assert.deepEqual(tools.pushes.slice(1), [{ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: 'L1' } } }]);
    assert.deepEqual(resources.pushes.slice(1), [
      { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: 'L2' } } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'a://1', _meta: { [SUBSCRIPTION_ID]: 'L2' } } },
    ]);
  });

  test('a notification\'s own _meta is kept next to the tag', async () => {
    const r = rig();
    const sent = await listening(r, 'L1', { toolsListChanged: true });
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'example.com/why': 'new tool' } } });
    await sent.pushed(2);
    assert.deepEqual(sent.pushes[1]?.params, { _meta: { 'example.com/why': 'new tool', [SUBSCRIPTION_ID]: 'L1' } });
  });

  test('resources/subscribe is counted: one upstream subscription per URI, unsubscribed when the last listen on it ends', async () => {
    const r = rig();
    const first = await listening(r, 'L1', { resourceSubscriptions: ['a://1'] });
    await r.session.request('resources/subscribe');
    const second = await listening(r, 'L2', { resourceSubscriptions: ['a://1', 'a://2'] });
    const subscribe = await r.session.request('resources/subscribe');
    assert.deepEqual(subscribe.params, { uri: 'a://2' });
    await settle();
    assert.deepEqual(r.session.pending('resources/subscribe'), [], 'a://1 is not subscribed twice');
    first.cancel();
    await settle();
    assert.deepEqual(r.session.pending('resources/unsubscribe'), [], 'L2 still listens to a://1');
    second.cancel();
    const unsubscribed = [await r.session.request('resources/unsubscribe'), await r.session.request('resources/unsubscribe')];
    assert.deepEqual(unsubscribed.map((request) => (request.params as JsonObject).uri).sort(), ['a://1', 'a://2']);
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'a://1' } });
    await settle();
    assert.equal(first.pushes.length, 1);
    assert.equal(second.pushes.length, 1, 'an ended listen gets nothing more');
    assert.equal(r.bridge.inFlight, 0);
  });
});

describe('EraBridge: close()', () => {
  test('answers the calls in flight (-32000, under their client ids) and ends the listens with their result', async () => {
    const r = rig();
    const parked = parkedCall(r, 'c1', 's1');
    await r.handshake();
    await parked;
    const open = await startCall(r, 'c2', { q: 'two' });
    const listen = r.send('L1', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    await listen.pushed(1);
    let closed = 0;
    r.bridge.onclose = () => void closed++;
    await r.bridge.close();
    const answer = errorOf(await open.sent.answered());
    assert.equal(open.sent.answers[0]?.id, 'c2');
    assert.equal(answer.code, ErrorCode.ConnectionClosed);
    assert.deepEqual(await listen.answered(), { jsonrpc: '2.0', id: 'L1', result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'L1' } } });
    assert.equal(closed, 1);
    assert.equal(r.bridge.inFlight, 0);
    // And a request after close is answered at once.
    const late = r.send('c3', 'tools/list');
    assert.equal(errorOf(await late.answered()).code, ErrorCode.ConnectionClosed);
    await r.bridge.close();
    assert.equal(closed, 1, 'onclose is called once');
  });
});

describe('EraBridge: log messages and progress belong to their request', () => {
  test('a request naming a log level sets the session\'s level before it is forwarded', async () => {
    const r = rig();
    r.send('c1', 'tools/call', { name: 'echo', arguments: {}, _meta: meta(ALL_CAPABILITIES, { [ENVELOPE_META.logLevel]: 'warning' }) });
    await r.handshake();
    const setLevel = await r.session.request('logging/setLevel');
    assert.deepEqual(setLevel.params, { level: 'warning' });
    await r.session.request('tools/call');
    assert.deepEqual(r.session.all.map((m) => m.method), ['initialize', 'notifications/initialized', 'logging/setLevel', 'tools/call']);
  });

  test('log messages go only to a request that named a level, at or above it', async () => {
    const r = rig();
    const loud = r.send('c1', 'tools/call', { name: 'echo', arguments: {}, _meta: meta(ALL_CAPABILITIES, { [ENVELOPE_META.logLevel]: 'warning' }) });
    const quiet = r.send('c2', 'tools/call', { name: 'echo', arguments: {} });
    await r.handshake();
    r.answer(await r.session.request('logging/setLevel'), {});
    const first = await r.session.request('tools/call');
    const second = await r.session.request('tools/call');
    // Requests waiting for the handshake are forwarded in the order they came.
    const [loudId, quietId] = [first.id as number, second.id as number];
    const log = (level: string, relatedTo: number): void => {
      r.bridge.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level, data: level } }, relatedTo);
    };
    for (const level of ['debug', 'info', 'warning', 'error', 'emergency']) {
      log(level, loudId);
      log(level, quietId);
    }
    await settle();
    assert.deepEqual(loud.pushes.map((m) => m.params?.level), ['warning', 'error', 'emergency']);
    assert.deepEqual(quiet.pushes, []);
  });

  test('the session level is set only when it changes, and never when the upstream does not log', async () => {
    const r = rig();
    const level = { _meta: meta(ALL_CAPABILITIES, { [ENVELOPE_META.logLevel]: 'info' }) };
    r.send('c1', 'tools/list', level);
    await r.handshake();
    r.answer(await r.session.request('logging/setLevel'), {});
    r.send('c2', 'tools/list', level);
    await r.session.request('tools/list');
    await r.session.request('tools/list');
    assert.deepEqual(r.session.pending('logging/setLevel'), []);

    const silent = rig();
    silent.send('c1', 'tools/list', level);
    await silent.handshake({ ...INITIALIZE_RESULT, capabilities: { tools: {} } });
    await silent.session.request('tools/list');
    assert.deepEqual(silent.session.pending('logging/setLevel'), []);
  });

  test('progress of a call resumed by a retry carries the retry\'s progress token (the first request was answered)', async () => {
    const r = rig();
    const sent = r.send('c1', 'tools/call', { name: 'ask', arguments: { q: 'hi' }, _meta: meta(ALL_CAPABILITIES, { progressToken: 'first' }) });
    await r.handshake();
    const forwarded = await r.session.request('tools/call');
    assert.deepEqual(((forwarded.params as JsonObject)._meta as JsonObject).progressToken, 'first');
    r.ask('s1', 'elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: {} } }, forwarded.id as number);
    const parked = resultOf(await sent.answered());
    const [key] = Object.keys(parked.inputRequests as JsonObject);
    const again = r.send('c2', 'tools/call', {
      name: 'ask',
      arguments: { q: 'hi' },
      inputResponses: { [key as string]: ACCEPT },
      requestState: parked.requestState,
      _meta: meta(ALL_CAPABILITIES, { progressToken: 'second' }),
    });
    await r.session.response('s1');
    // The upstream knows only the token of the request it was sent.
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'first', progress: 1, total: 2 } }, forwarded.id as number);
    const [progress] = await again.pushed(1);
    // 2025-11-25 progress: tokens MUST be "provided in an active request"; 'first' was answered (input_required).
    assert.deepEqual(progress, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'second', progress: 1, total: 2 } });
    assert.deepEqual(sent.pushes, []);
  });

  test('progress of a call resumed by a retry that asked for none is not sent', async () => {
    const r = rig();
    const sent = r.send('c1', 'tools/call', { name: 'ask', arguments: { q: 'hi' }, _meta: meta(ALL_CAPABILITIES, { progressToken: 'first' }) });
    await r.handshake();
    const forwarded = await r.session.request('tools/call');
    r.ask('s1', 'elicitation/create', { message: 'Name?', requestedSchema: { type: 'object', properties: {} } }, forwarded.id as number);
    const parked = resultOf(await sent.answered());
    const [key] = Object.keys(parked.inputRequests as JsonObject);
    const again = retry(r, 'c2', parked.requestState, { [key as string]: ACCEPT });
    await r.session.response('s1');
    r.bridge.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'first', progress: 1 } }, forwarded.id as number);
    r.answer(forwarded, { content: [] });
    await again.answered();
    assert.deepEqual(again.pushes, []);
  });

  test('progress goes to the request it belongs to, and to no other', async () => {
    const r = rig();
    const one = r.send('c1', 'tools/call', { name: 'slow', arguments: {}, _meta: meta(ALL_CAPABILITIES, { progressToken: 'p1' }) });
    const two = r.send('c2', 'tools/call', { name: 'slow', arguments: {}, _meta: meta(ALL_CAPABILITIES, { progressToken: 'p2' }) });
    await r.handshake();
    const forwarded = [await r.session.request('tools/call'), await r.session.request('tools/call')];
    const byToken = new Map(forwarded.map((request) => [((request.params as JsonObject)._meta as JsonObject).progressToken, request.id as number]));
    const progress = { jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: 'p2', progress: 1, total: 2 } };
    r.bridge.send(progress, byToken.get('p2'));
    await two.pushed(1);
    assert.deepEqual(two.pushes, [progress]);
    assert.deepEqual(one.pushes, []);
  });
});

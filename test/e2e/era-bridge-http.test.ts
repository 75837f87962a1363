// A client of protocol revision 2026-07-28 (the v2 SDK, pinned to it) on Streamable HTTP through
// `mcp-chain --http`, in front of servers of the session era only (server-everything, and the v1
// fixture modern-bridge-upstream): the chain bridges the eras (issue 15). Every sampling,
// elicitation and roots round trip goes through `input_required` and the client's retry, each
// on its own POST. Then raw HTTP: what the spec says a 2026-07-28 server answers to bad input
// (the JSON-RPC error, the HTTP status, the request's id), and that the front serves on after
// each; a requestState tampered with, replayed, presented by another principal or expired; and
// the bridge's sessions, pooled by what the clients declared.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { stdio } from '../../src/index.js';
import { serveHttp, silentLogger, type HttpFront } from '../../src/kernel.js';
import { withDeadline } from '../../src/testing/with-deadline.js';
import { send, type HttpReply } from '../helpers/http.js';
import { startHttpProxy, type HttpProxy } from '../helpers/http-proxy.js';
import { everythingEntry, fixtureCommand } from '../helpers/targets.js';

const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };
const PINNED: ClientOptions = { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } };
const MODERN = '2026-07-28';

/** The text of a tool result's content, joined. */
function textOf(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** An `onprogress` that keeps the server's progress (which has a total), not the client's own rounds. */
function serverProgress(into: number[]): (progress: { progress: number; total?: number | undefined }) => void {
  return (progress) => {
    if (progress.total !== undefined) into.push(progress.progress);
  };
}

/** Elicitation answers, by a word of the message asked. */
const ANSWERS: Record<string, Record<string, string>> = {
  name: { name: 'Ada' },
  colour: { colour: 'teal' },
};

/** A v2 client with handlers for what a server may ask, connected to the chain's HTTP front at `url`. */
async function connect(url: string, options: ClientOptions = PINNED): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client({ name: 'mcp-chain-e2e-modern-http', version: '1.0.0' }, options);
  const declared = options.capabilities ?? {};
  if (declared.elicitation !== undefined) client.setRequestHandler('elicitation/create', (request) => {
    const message = request.params.message;
    asked.push(`elicitation: ${message}`);
    const key = Object.keys(ANSWERS).find((word) => message.toLowerCase().includes(word));
    return { action: 'accept', content: key === undefined ? { name: 'Ada' } : (ANSWERS[key] as Record<string, string>) };
  });
  if (declared.sampling !== undefined) client.setRequestHandler('sampling/createMessage', (request) => {
    asked.push(`sampling: ${request.params.messages.length} message(s)`);
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  });
  if (declared.roots !== undefined) client.setRequestHandler('roots/list', () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///work/one', name: 'one' }, { uri: 'file:///work/two', name: 'two' }] };
  });
  await withDeadline(client.connect(new StreamableHTTPClientTransport(new URL(url))), { what: `the v2 client to connect to ${url}`, timeoutMs: 20_000 });
  return { client, asked };
}

/** Resolves once `check` (called now and on every `wake()`) says yes; bounded. */
function until(check: () => boolean, what: string): { wake: () => void; done: Promise<void> } {
  let wake: () => void = () => undefined;
  const done = withDeadline(
    new Promise<void>((resolve) => {
      wake = () => {
        if (check()) resolve();
      };
      wake();
    }),
    { what },
  );
  return { wake: () => wake(), done };
}

/** Asks `ask` again until it gives `wanted` (a poll bounded by a deadline: the effect travels on another connection). */
async function eventually(ask: () => Promise<string>, wanted: string, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = '';
  while (Date.now() < deadline) {
    last = await ask();
    if (last === wanted) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`waited 10000 ms for ${what}: still ${JSON.stringify(last)}`);
}

const upstreamOfEverything = (): string[] => ['--', process.execPath, everythingEntry(), 'stdio'];
const upstreamOfFixture = (): string[] => {
  const { command, args } = fixtureCommand('modern-bridge-upstream');
  return ['--', command, ...args];
};

describe('a 2026-07-28 client (v2 SDK, pinned) on Streamable HTTP through mcp-chain --http, in front of server-everything (session era only)', () => {
  let proxy: HttpProxy;
  let client: Client;
  let asked: string[];

  before(async () => {
    proxy = await startHttpProxy(['--http', '127.0.0.1:0', ...upstreamOfEverything()]);
    ({ client, asked } = await connect(proxy.url));
  });

  after(async () => {
    try {
      await client?.close();
    } finally {
      await proxy?.stop();
    }
  });

  test('connects in the stateless era, and sees the server behind the chain in server/discover', () => {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    const discovered = client.getDiscoverResult();
    assert.ok(discovered?.supportedVersions.includes(MODERN));
    assert.ok(discovered?.supportedVersions.includes('2025-11-25'), 'the chain serves both eras');
    assert.ok(discovered?.capabilities.tools);
  });

  test('lists and calls tools', async () => {
    const { tools } = await client.listTools();
    for (const name of ['echo', 'trigger-elicitation-request', 'trigger-sampling-request', 'get-roots-list']) {
      assert.ok(tools.some((tool) => tool.name === name), name);
    }
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'over HTTP' } })), 'Echo: over HTTP');
  });

  test('roots: the server\'s roots/list during a call is answered by the client', async () => {
    const result = await client.callTool({ name: 'get-roots-list', arguments: {} });
    assert.match(textOf(result), /file:\/\/\/work\/one/);
    assert.match(textOf(result), /file:\/\/\/work\/two/);
  });

  test('progress notifications reach the call they belong to, on its POST', async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { onprogress: serverProgress(progress) },
    );
    assert.ok(progress.length >= 2, `got ${progress.length} progress notifications`);
    assert.deepEqual([...progress].sort((a, b) => a - b), progress);
    assert.ok(Array.isArray(result.content));
  });

  test('a sampling round trip', async () => {
    const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Capital of France?' } });
    assert.match(textOf(result), /Paris/);
    assert.ok(asked.some((what) => what.startsWith('sampling')));
  });

  test('an elicitation round trip', async () => {
    const result = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    assert.match(textOf(result), /Name: Ada/);
  });

  test('subscriptions: a listen with a resource subscription gets its resources/updated', async () => {
    const { resources } = await client.listResources();
    const uri = resources[0]?.uri;
    assert.ok(uri !== undefined);
    const updated: string[] = [];
    const arrived = until(() => updated.includes(uri), `notifications/resources/updated for ${uri}`);
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
      arrived.wake();
    });
    const subscription = await client.listen({ resourceSubscriptions: [uri] });
    try {
      assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [uri]);
      // server-everything sends resources/updated for subscribed URIs once its updates are on (at once, then every 5 s).
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      await arrived.done;
    } finally {
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      await subscription.close();
    }
  });

  test('cancellation: aborting a call rejects it, and the client is served on', async () => {
    const controller = new AbortController();
    let progressed: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (progressed = resolve));
    const call = client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
      { signal: controller.signal, onprogress: () => progressed() },
    );
    const settled = call.then(() => 'answered', () => 'rejected');
    await withDeadline(started, { what: 'the first progress of the long call' });
    controller.abort();
    assert.equal(await withDeadline(settled, { what: 'the aborted call to settle' }), 'rejected');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'still here' } })), 'Echo: still here');
  });
});

describe('a 2026-07-28 client (v2 SDK, pinned) on Streamable HTTP through mcp-chain --http, in front of a v1 SDK server of ours', () => {
  let proxy: HttpProxy;
  let client: Client;
  let asked: string[];

  before(async () => {
    proxy = await startHttpProxy(['--http', '127.0.0.1:0', ...upstreamOfFixture()]);
    ({ client, asked } = await connect(proxy.url));
  });

  after(async () => {
    try {
      await client?.close();
    } finally {
      await proxy?.stop();
    }
  });

  test('an elicitation in two rounds, inside one call', async () => {
    asked.length = 0;
    assert.equal(textOf(await client.callTool({ name: 'ask-twice', arguments: {} })), 'Ada likes teal');
    assert.deepEqual(asked, ['elicitation: Your name?', 'elicitation: Your favourite colour?']);
  });

  test('a sampling round trip', async () => {
    assert.equal(textOf(await client.callTool({ name: 'sample', arguments: { question: 'Capital of France?' } })), 'Paris');
  });

  test('roots/list during a call', async () => {
    assert.equal(textOf(await client.callTool({ name: 'roots', arguments: {} })), 'file:///work/one,file:///work/two');
  });

  test('progress, in order, to its call', async () => {
    const progress: number[] = [];
    assert.equal(textOf(await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: serverProgress(progress) })), 'done');
    assert.ok(progress.length >= 1, 'some progress came');
    assert.deepEqual(progress, [1, 2, 3].slice(0, progress.length));
  });

  test('subscriptions: a listen gets tools/list_changed and resources/updated; closing it unsubscribes upstream', async () => {
    const seen: string[] = [];
    const arrived = until(() => seen.includes('tools/list_changed') && seen.includes('resources/updated test://note'), 'tools/list_changed and resources/updated test://note on the listen stream');
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      seen.push('tools/list_changed');
      arrived.wake();
    });
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      seen.push(`resources/updated ${notification.params.uri}`);
      arrived.wake();
    });
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://note'] });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true, resourceSubscriptions: ['test://note'] });
    // The upstream was subscribed to test://note (and only to it) before the ack.
    assert.equal(textOf(await client.callTool({ name: 'notify', arguments: {} })), 'notified test://note');
    await arrived.done;
    await subscription.close();
    assert.equal(await withDeadline(subscription.closed, { what: 'the subscription to close' }), 'local');
    // Closing the listen's stream ends it at the chain, which unsubscribes upstream (on another connection: asked until seen).
    await eventually(async () => textOf(await client.callTool({ name: 'notify', arguments: {} })), 'notified ', 'the upstream to be unsubscribed');
  });

  test('cancellation: aborting a call closes its POST, and the upstream sees the cancel', async () => {
    assert.equal(textOf(await client.callTool({ name: 'aborted', arguments: {} })), '0');
    const controller = new AbortController();
    const call = client.callTool({ name: 'hang', arguments: {} }, { signal: controller.signal });
    const settled = call.then(() => 'answered', () => 'rejected');
    // The hang call is on its way to the server once a later call on the same session was answered (stdio keeps the order).
    await client.callTool({ name: 'aborted', arguments: {} });
    controller.abort();
    assert.equal(await withDeadline(settled, { what: 'the aborted call to settle' }), 'rejected');
    await eventually(async () => textOf(await client.callTool({ name: 'aborted', arguments: {} })), '1', 'the server to count the cancelled call');
  });
});

// --- raw HTTP -----------------------------------------------------------------------------------

const ALICE = 'tok-alice-e2e-eras';
const BOB = 'tok-bob-e2e-eras';

/** The 2026-07-28 envelope of a request's `_meta`. */
function envelope(capabilities: Record<string, unknown> = { elicitation: {} }, version = MODERN): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-http-e2e', version: '1' },
  };
}

/** The headers a 2026-07-28 client sends with `method` (and `name` for tools/call), as `token`. */
function headersFor(method: string, options: { name?: string; token?: string; version?: string } = {}): Record<string, string> {
  return {
    ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    'mcp-protocol-version': options.version ?? MODERN,
    'mcp-method': method,
    ...(options.name === undefined ? {} : { 'mcp-name': options.name }),
  };
}

/** A well-formed `tools/call` of the stateless era, as `token`, with extra params (a retry's). */
function call(url: string, id: number | string, name: string, token: string | undefined, extra: Record<string, unknown> = {}): Promise<HttpReply> {
  return send(url, {
    body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta: envelope() } },
    headers: headersFor('tools/call', { name, ...(token === undefined ? {} : { token }) }),
  });
}

/** The one JSON-RPC message of a reply, as an object. */
function only(reply: HttpReply): { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } } {
  assert.equal(reply.messages.length, 1, reply.text);
  return reply.messages[0] as { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };
}

/** Asserts a refusal: HTTP `status`, JSON-RPC `code`, the request's `id`; returns the error. */
function assertRefused(reply: HttpReply, status: number, code: number, id: unknown): { code: number; message: string; data?: Record<string, unknown> } {
  assert.equal(reply.status, status, reply.text);
  const message = only(reply);
  assert.equal(message.id, id, reply.text);
  assert.equal(message.error?.code, code, reply.text);
  return message.error;
}

/** An `input_required` result of ask-twice: its key and requestState. */
function inputRequired(reply: HttpReply, id: unknown): { key: string; state: string } {
  assert.equal(reply.status, 200, reply.text);
  const message = only(reply);
  assert.equal(message.id, id);
  const result = message.result ?? {};
  assert.equal(result.resultType, 'input_required', reply.text);
  const keys = Object.keys((result.inputRequests as Record<string, unknown> | undefined) ?? {});
  assert.equal(keys.length, 1, reply.text);
  assert.equal(typeof result.requestState, 'string');
  return { key: keys[0] as string, state: result.requestState as string };
}

/** The answer to the first round of ask-twice (the name). */
const NAME_ANSWER = { action: 'accept', content: { name: 'Ada' } };
/** The answer to its second round (the colour). */
const COLOUR_ANSWER = { action: 'accept', content: { colour: 'teal' } };

/** Answers the second round of an ask-twice call (so that no call is left waiting for its client): the call completes. */
async function finishAskTwice(url: string, id: number, round: { key: string; state: string }, token: string | undefined): Promise<void> {
  const done = await call(url, id, 'ask-twice', token, { requestState: round.state, inputResponses: { [round.key]: COLOUR_ANSWER } });
  assert.equal(done.status, 200, done.text);
  assert.equal(textOf(only(done).result ?? {}), 'Ada likes teal', done.text);
}

describe('raw HTTP: what mcp-chain --http answers to bad 2026-07-28 input (two bearer tokens; in front of the v1 fixture)', () => {
  let proxy: HttpProxy;
  let url: string;
  let id = 100;

  before(async () => {
    proxy = await startHttpProxy(['--http', '127.0.0.1:0', '--token-env', 'ALICE_TOKEN', '--token-env', 'BOB_TOKEN', ...upstreamOfFixture()], {
      ALICE_TOKEN: ALICE,
      BOB_TOKEN: BOB,
    });
    url = proxy.url;
  });

  after(async () => {
    await proxy?.stop();
  });

  /** The front still answers a good request (a call, through to the server). */
  async function assertStillServes(): Promise<void> {
    const next = ++id;
    const reply = await call(url, next, 'aborted', ALICE);
    assert.equal(reply.status, 200, reply.text);
    const message = only(reply);
    assert.equal(message.id, next);
    assert.equal(message.result?.resultType, 'complete', reply.text);
  }

  test('a request without clientCapabilities in its envelope: -32602, 400, its id', async () => {
    const error = assertRefused(
      await send(url, {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } },
        headers: headersFor('tools/list', { token: ALICE }),
      }),
      400,
      -32602,
      1,
    );
    assert.match(error.message, /clientCapabilities/);
    await assertStillServes();
  });

  test('a request without _meta under a 2026-07-28 header: -32602, 400, its id', async () => {
    assertRefused(await send(url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, headers: headersFor('tools/list', { token: ALICE }) }), 400, -32602, 2);
    await assertStillServes();
  });

  test('MCP-Protocol-Version header ≠ the body\'s version: -32020, 400, its id', async () => {
    assertRefused(
      await send(url, {
        body: { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: envelope(undefined, '2099-01-01') } },
        headers: headersFor('tools/list', { token: ALICE }),
      }),
      400,
      -32020,
      3,
    );
    await assertStillServes();
  });

  test('an unknown version, header and body agreeing: -32022, 400, its id, with data.supported and data.requested', async () => {
    const error = assertRefused(
      await send(url, {
        body: { jsonrpc: '2.0', id: 'v', method: 'tools/list', params: { _meta: envelope(undefined, '2099-01-01') } },
        headers: headersFor('tools/list', { token: ALICE, version: '2099-01-01' }),
      }),
      400,
      -32022,
      'v',
    );
    assert.equal(error.data?.requested, '2099-01-01');
    assert.ok(Array.isArray(error.data?.supported) && error.data.supported.includes(MODERN), JSON.stringify(error.data));
    await assertStillServes();
  });

  test('Mcp-Method ≠ the body\'s method: -32020, 400, its id', async () => {
    assertRefused(
      await send(url, { body: { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: envelope() } }, headers: headersFor('prompts/list', { token: ALICE }) }),
      400,
      -32020,
      4,
    );
    await assertStillServes();
  });

  test('Mcp-Name ≠ the tool called: -32020, 400, its id; the base64 sentinel is decoded before comparing', async () => {
    const body = (requestId: number): Record<string, unknown> => ({ jsonrpc: '2.0', id: requestId, method: 'tools/call', params: { name: 'aborted', arguments: {}, _meta: envelope() } });
    const b64 = (value: string): string => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
    assertRefused(await send(url, { body: body(5), headers: headersFor('tools/call', { token: ALICE, name: 'hang' }) }), 400, -32020, 5);
    // The name encoded: accepted.
    const encoded = await send(url, { body: body(6), headers: headersFor('tools/call', { token: ALICE, name: b64('aborted') }) });
    assert.equal(encoded.status, 200, encoded.text);
    assert.equal(only(encoded).result?.resultType, 'complete');
    // Another name encoded: refused.
    assertRefused(await send(url, { body: body(7), headers: headersFor('tools/call', { token: ALICE, name: b64('hang') }) }), 400, -32020, 7);
    // A sentinel with bad padding is not a name at all: refused.
    assertRefused(await send(url, { body: body(8), headers: headersFor('tools/call', { token: ALICE, name: '=?base64?YWJvcnRlZA?=' }) }), 400, -32020, 8);
    await assertStillServes();
  });

  test('initialize, ping, logging/setLevel and resources/subscribe in the 2026-07-28 envelope: -32601, 404, their ids', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe']) {
      const reply = await send(url, {
        body: { jsonrpc: '2.0', id: `removed-${method}`, method, params: { _meta: envelope(), level: 'info', uri: 'test://note' } },
        headers: headersFor(method, { token: ALICE }),
      });
      assertRefused(reply, 404, -32601, `removed-${method}`);
    }
    await assertStillServes();
  });

  test('a batch with a 2026-07-28 element: -32600, 400 (a batch has no one id: null)', async () => {
    const reply = await send(url, {
      body: [{ jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: envelope() } }],
      headers: headersFor('tools/list', { token: ALICE }),
    });
    assertRefused(reply, 400, -32600, null);
    await assertStillServes();
  });

  test('GET and DELETE with MCP-Protocol-Version 2026-07-28: 405', async () => {
    const headers = { authorization: `Bearer ${ALICE}`, 'mcp-protocol-version': MODERN };
    assert.equal((await send(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } })).status, 405);
    assert.equal((await send(url, { method: 'DELETE', headers })).status, 405);
    await assertStillServes();
  });

  test('a requestState tampered with: -32602 (it failed verification), and the call can still be resumed', async () => {
    const { key, state } = inputRequired(await call(url, 10, 'ask-twice', ALICE), 10);
    const payloadAt = 'mc1.'.length + 2;
    const tampered = `${state.slice(0, payloadAt)}${state[payloadAt] === 'A' ? 'B' : 'A'}${state.slice(payloadAt + 1)}`;
    const error = assertRefused(await call(url, 11, 'ask-twice', ALICE, { requestState: tampered, inputResponses: { [key]: NAME_ANSWER } }), 200, -32602, 11);
    assert.equal(error.data?.requestState, 'invalid');
    // The good state still resumes the parked call: the next round asks for the colour.
    const next = inputRequired(await call(url, 12, 'ask-twice', ALICE, { requestState: state, inputResponses: { [key]: NAME_ANSWER } }), 12);
    assert.notEqual(next.state, state);
    await finishAskTwice(url, 13, next, ALICE);
    await assertStillServes();
  });

  test('a requestState replayed (used once already): -32602; after the call finished too', async () => {
    const first = inputRequired(await call(url, 20, 'ask-twice', ALICE), 20);
    const second = inputRequired(await call(url, 21, 'ask-twice', ALICE, { requestState: first.state, inputResponses: { [first.key]: NAME_ANSWER } }), 21);
    // The first round's state again, while the call waits for the second round.
    const used = assertRefused(await call(url, 22, 'ask-twice', ALICE, { requestState: first.state, inputResponses: { [first.key]: NAME_ANSWER } }), 200, -32602, 22);
    assert.equal(used.data?.requestState, 'used');
    // The second round completes the call.
    await finishAskTwice(url, 23, second, ALICE);
    // Its state once more, now that the call is over.
    assertRefused(await call(url, 24, 'ask-twice', ALICE, { requestState: second.state, inputResponses: { [second.key]: { action: 'accept', content: { colour: 'red' } } } }), 200, -32602, 24);
    await assertStillServes();
  });

  test('a requestState presented by another principal (another bearer token): -32602 (issued to another caller)', async () => {
    const { key, state } = inputRequired(await call(url, 30, 'ask-twice', ALICE), 30);
    const error = assertRefused(await call(url, 31, 'ask-twice', BOB, { requestState: state, inputResponses: { [key]: { action: 'accept', content: { name: 'Eve' } } } }), 200, -32602, 31);
    assert.equal(error.data?.requestState, 'foreign');
    // Alice's retry is still good.
    const second = inputRequired(await call(url, 32, 'ask-twice', ALICE, { requestState: state, inputResponses: { [key]: NAME_ANSWER } }), 32);
    await finishAskTwice(url, 33, second, ALICE);
    await assertStillServes();
  });

  test('a retry without inputResponses: a new input_required asking the same again, not an error', async () => {
    const first = inputRequired(await call(url, 40, 'ask-twice', ALICE), 40);
    const again = inputRequired(await call(url, 41, 'ask-twice', ALICE, { requestState: first.state }), 41);
    assert.equal(again.key, first.key, 'the same question');
    assert.notEqual(again.state, first.state, 'a state for the next round');
    // Answered now: the call goes on to its second round.
    const reply = await call(url, 42, 'ask-twice', ALICE, { requestState: again.state, inputResponses: { [again.key]: NAME_ANSWER } });
    assert.match(JSON.stringify(only(reply).result?.inputRequests), /colour/, reply.text);
    await finishAskTwice(url, 43, inputRequired(reply, 42), ALICE);
    await assertStillServes();
  });

  // Last of this block: it leaves a call waiting for its client's retry. The server (stdio, the
  // session era) cannot say which call its elicitation/create belongs to; the chain must not give
  // the next call's question to a call that already answered input_required and waits.
  test('a call left waiting for its retry (its client went away) does not take the next call\'s question', async () => {
    inputRequired(await call(url, 50, 'ask-twice', ALICE), 50);
    // Never retried. The same client calls again: it gets its own input_required.
    const reply = await send(url, {
      body: { jsonrpc: '2.0', id: 51, method: 'tools/call', params: { name: 'ask-twice', arguments: {}, _meta: envelope() } },
      headers: headersFor('tools/call', { name: 'ask-twice', token: ALICE }),
      timeoutMs: 10_000,
    });
    const next = inputRequired(reply, 51);
    assert.match(JSON.stringify(only(reply).result?.inputRequests), /Your name/);
    const second = inputRequired(await call(url, 52, 'ask-twice', ALICE, { requestState: next.state, inputResponses: { [next.key]: NAME_ANSWER } }), 52);
    await finishAskTwice(url, 53, second, ALICE);
  });
});

describe('a requestState that has expired (the HTTP front in this process, its clock moved on: the CLI has no option for the state\'s lifetime)', () => {
  test('-32602 (it has expired), 200, its id; the front serves on', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { command, args } = fixtureCommand('modern-bridge-upstream');
    let front: HttpFront | undefined;
    try {
      front = await serveHttp(stdio({ command, args }), { port: 0, log: silentLogger });
      const { key, state } = inputRequired(await call(front.url, 1, 'ask-twice', undefined), 1);
      // Past the state's lifetime (the input timeout, five minutes), by the front's clock.
      t.mock.timers.tick(301_000);
      const error = assertRefused(await call(front.url, 2, 'ask-twice', undefined, { requestState: state, inputResponses: { [key]: NAME_ANSWER } }), 200, -32602, 2);
      assert.equal(error.data?.requestState, 'expired');
      const after = await call(front.url, 3, 'aborted', undefined);
      assert.equal(only(after).result?.resultType, 'complete', after.text);
    } finally {
      await front?.close();
    }
  });
});

describe('the bridge\'s sessions are pooled by what the clients declare', () => {
  let proxy: HttpProxy;

  before(async () => {
    proxy = await startHttpProxy(['--http', '127.0.0.1:0', ...upstreamOfEverything()]);
  });

  after(async () => {
    await proxy?.stop();
  });

  test('two HTTP clients with different capabilities each get what they declared', async () => {
    const bare = await connect(proxy.url, { capabilities: {}, versionNegotiation: { mode: { pin: MODERN } } });
    const full = await connect(proxy.url);
    try {
      const names = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((tool) => tool.name);
      // server-everything registers the tools that need sampling, elicitation or roots only for a client that declared them.
      const withNothing = await names(bare.client);
      const withAll = await names(full.client);
      for (const name of ['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']) {
        assert.ok(withAll.includes(name), `${name} for the client that declared its capability`);
        assert.ok(!withNothing.includes(name), `no ${name} for the client that declared nothing`);
      }
      // And again, in the other order: each keeps its own session.
      assert.deepEqual(await names(bare.client), withNothing);
      assert.equal(textOf(await full.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Capital of France?' } })).includes('Paris'), true);
    } finally {
      await bare.client.close();
      await full.client.close();
    }
  });
});

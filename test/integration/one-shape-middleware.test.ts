// One shape for middleware (issue 15, item 4): a server's sampling or elicitation request looks the
// same to a middleware whether the server sent it as a session-era request or asked for it inside
// an `input_required` result, and so does the client's answer, whether the client answered a
// session-era request or sent it back in `inputResponses`. So approve, audit, redact and users'
// policies are written once.
//
// The same recording middleware (`on(...)`, the public API) runs in four set-ups, in-process
// (`chain`, `stdio()` upstreams, a session-era client through `harness`, a 2026-07-28 client as raw
// JSON lines on `serveStdio`):
//   1. session-era client → chain → session-era server (the reference: no era is translated);
//   2. 2026-07-28 client  → chain → session-era server (the bridge: the request becomes an input_required);
//   3. session-era client → chain → 2026-07-28-only server (its input_required becomes real requests);
//   4. 2026-07-28 client  → chain → 2026-07-28-only server (input_required to requests, and back).
// The servers are test/fixtures/servers/modern-bridge-upstream.ts (the v1 SDK) and
// modern-only-upstream.ts (the v2 SDK, its session era refused). Their tools `sample` and
// `ask-twice` ask the very same things (the same sampling params; the same two form elicitations,
// messages and schemas, `mode: 'form'` added by both SDKs), so each recording is compared whole,
// with one literal (EXPECTED) and with the reference's, params without `_meta` (where the
// chain keeps an input request's key, `dev.mcp-chain/inputKey`, for a bridge back to a 2026-07-28
// client: bookkeeping of the transport, not part of the request). A policy that rewrites the
// request and the answer, and one that refuses sampling, are run in the four set-ups too.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import type { Direction } from '../../src/chain/context.js';
import type { Middleware } from '../../src/chain/middleware.js';
import { on } from '../../src/chain/on.js';
import type { Upstream } from '../../src/core/upstream.js';
import { ErrorCode } from '../../src/errors/error-code.js';
import { McpError } from '../../src/errors/mcp-error.js';
import { serveStdio } from '../../src/front/serve-stdio.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import type { JsonObject } from '../../src/message/jsonrpc.js';
import { LineReader } from '../../src/message/line-reader.js';
import { isJsonObject } from '../../src/message/parse-message.js';
import { ENVELOPE_META } from '../../src/eras/stateless-envelope.js';
import { harness } from '../../src/testing/harness.js';
import { withDeadline } from '../../src/testing/with-deadline.js';
import { stdio } from '../../src/upstream/stdio.js';
import { fixtureCommand, fixturePath } from '../helpers/targets.js';
import { parentPid, processesMatching } from './_process.js';

type ClientEra = 'session-era' | '2026-07-28';
type ServerEra = 'session-era' | '2026-07-28-only';

/** What the middleware saw of one server→client request. */
interface Seen {
  direction: Direction;
  kind: 'request' | 'notification';
  method: string;
  /** Without `_meta`. */
  params: JsonObject;
  /** The client's answer as the middleware got it back (or the refusal it met). */
  result?: JsonObject;
  error?: { code: number; message: string };
}

/** What the client itself was asked: a session-era request, or an entry of `inputRequests`. */
interface Asked {
  method: string;
  /** Without `_meta`. */
  params: JsonObject;
}

/** How a call ended, as its caller sees it. */
type Outcome = { isError: boolean; text: string } | { error: { code: number; message: string } };

/** A client of either era, connected through the chain. */
interface EraClient {
  readonly asked: Asked[];
  /** Server→client requests a 2026-07-28 client was sent on the wire (it must get none). */
  readonly unexpected: JsonObject[];
  call(tool: string, args: JsonObject): Promise<Outcome>;
  close(): Promise<void>;
}

const CAPABILITIES: JsonObject = { sampling: {}, elicitation: { form: {} } };
const FIXTURES: Record<ServerEra, string> = { 'session-era': 'modern-bridge-upstream', '2026-07-28-only': 'modern-only-upstream' };
const SAMPLED: JsonObject = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
const MAX_ROUNDS = 8;

/** The one client answer, whatever the era: the model says Paris; Ada likes teal. */
function answer(method: string, params: JsonObject): JsonObject {
  if (method === 'sampling/createMessage') return SAMPLED;
  if (method === 'elicitation/create') {
    return String(params.message).includes('colour') ? { action: 'accept', content: { colour: 'teal' } } : { action: 'accept', content: { name: 'Ada' } };
  }
  throw new Error(`the client was asked what it cannot answer: ${method}`);
}

function withoutMeta(params: unknown): JsonObject {
  if (!isJsonObject(params)) return {};
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

/** The recording middleware, the same in every set-up: every sampling and elicitation request it sees. */
function recorder(into: Seen[]): Middleware {
  return on(['sampling/createMessage', 'elicitation/create'], async (ctx, next) => {
    const seen: Seen = { direction: ctx.direction, kind: ctx.kind, method: ctx.method, params: withoutMeta(ctx.message.params) };
    into.push(seen);
    try {
      const result = await next();
      seen.result = { ...result };
      return result;
    } catch (error) {
      if (error instanceof McpError) seen.error = { code: error.code, message: error.message };
      throw error;
    }
  });
}

/** A policy that refuses every sampling request, as a user who declines would. */
const REFUSAL = { code: ErrorCode.InvalidRequest, message: 'Sampling refused by policy' };
const refuseSampling: Middleware = on('sampling/createMessage', () => {
  throw new McpError(REFUSAL.code, REFUSAL.message);
});

function outcomeOf(response: JsonObject): Outcome {
  if (isJsonObject(response.error)) return { error: { code: Number(response.error.code), message: String(response.error.message) } };
  const result = isJsonObject(response.result) ? response.result : {};
  const content = Array.isArray(result.content) ? result.content.filter(isJsonObject) : [];
  return { isError: result.isError === true, text: content.map((block) => (block.type === 'text' ? String(block.text) : '')).join('\n') };
}

/** A session-era client (2025-11-25) that answers sampling and elicitation. */
async function sessionEraClient(upstream: Upstream): Promise<EraClient> {
  const h = await harness(upstream, { capabilities: CAPABILITIES, log: silentLogger });
  const asked: Asked[] = [];
  for (const method of ['sampling/createMessage', 'elicitation/create']) {
    h.handle(method, (params) => {
      asked.push({ method, params: withoutMeta(params) });
      return answer(method, params);
    });
  }
  return {
    asked,
    unexpected: [],
    call: async (name, args) => outcomeOf(await h.call('tools/call', { name, arguments: args })),
    close: () => h.close(),
  };
}

/** A 2026-07-28 client on the stdio front, as raw JSON lines: every request in the envelope, input_required answered by a retry. */
async function modernClient(upstream: Upstream): Promise<EraClient> {
  const input = new PassThrough();
  const output = new PassThrough();
  const front = await serveStdio(upstream, { input, output, log: silentLogger });
  const asked: Asked[] = [];
  const unexpected: JsonObject[] = [];
  const waiting = new Map<number, (response: JsonObject) => void>();
  const reader = new LineReader({
    onValue: (value) => {
      if (!isJsonObject(value)) return;
      if (typeof value.method === 'string') {
        if (value.id !== undefined) unexpected.push(value);
        return;
      }
      if (typeof value.id === 'number') waiting.get(value.id)?.(value);
    },
    onMalformed: (error) => {
      throw error;
    },
  }, 1 << 30);
  output.on('data', (chunk: Buffer) => reader.push(chunk));
  const envelope: JsonObject = {
    [ENVELOPE_META.protocolVersion]: '2026-07-28',
    [ENVELOPE_META.clientCapabilities]: CAPABILITIES,
    [ENVELOPE_META.clientInfo]: { name: 'one-shape-modern-client', version: '1.0.0' },
  };
  let nextId = 1;
  const request = (method: string, params: JsonObject): Promise<JsonObject> => {
    const id = nextId++;
    const response = new Promise<JsonObject>((resolve) => waiting.set(id, resolve));
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } })}\n`);
    return withDeadline(response, { what: `the answer to ${method} (id ${id})` }).finally(() => waiting.delete(id));
  };
  return {
    asked,
    unexpected,
    call: async (name, args) => {
      const params: JsonObject = { name, arguments: args };
      let response = await request('tools/call', params);
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const result = response.result;
        if (!isJsonObject(result) || result.resultType !== 'input_required') return outcomeOf(response);
        const inputResponses: JsonObject = {};
        for (const [key, entry] of Object.entries(isJsonObject(result.inputRequests) ? result.inputRequests : {})) {
          if (!isJsonObject(entry)) continue;
          const method = String(entry.method);
          asked.push({ method, params: withoutMeta(entry.params) });
          inputResponses[key] = answer(method, isJsonObject(entry.params) ? entry.params : {});
        }
        const state = result.requestState;
        response = await request('tools/call', { ...params, inputResponses, ...(state === undefined ? {} : { requestState: state }) });
      }
      throw new Error(`${name}: still input_required after ${MAX_ROUNDS} rounds`);
    },
    close: async () => {
      input.end();
      await front.close();
      await front.closed;
    },
  };
}

/** Fixture processes this test process started and that are still running. */
function ourFixtures(): number[] {
  return Object.values(FIXTURES).flatMap((name) => processesMatching(fixturePath(name)).filter((pid) => parentPid(pid) === process.pid));
}

/** Runs `script` with a client of `clientEra` through a chain of `middleware` in front of a server of `serverEra`; closes everything after. */
async function inSetUp<T>(clientEra: ClientEra, serverEra: ServerEra, middleware: Middleware[], script: (client: EraClient) => Promise<T>): Promise<T> {
  const { command, args } = fixtureCommand(FIXTURES[serverEra]);
  const upstream = chain(...middleware).to(stdio({ command, args, name: FIXTURES[serverEra] }));
  const client = clientEra === 'session-era' ? await sessionEraClient(upstream) : await modernClient(upstream);
  let out: T;
  try {
    out = await script(client);
  } finally {
    await client.close();
  }
  assert.deepEqual(ourFixtures(), [], 'the server process is gone once the client has closed');
  assert.deepEqual(client.unexpected, [], 'a 2026-07-28 client is never sent a server→client request');
  return out;
}

const SET_UPS: { clientEra: ClientEra; serverEra: ServerEra; what: string }[] = [
  { clientEra: 'session-era', serverEra: 'session-era', what: 'the reference: no era translated' },
  { clientEra: '2026-07-28', serverEra: 'session-era', what: 'the bridge: the server\'s requests become input_required' },
  { clientEra: 'session-era', serverEra: '2026-07-28-only', what: 'the server\'s input_required becomes requests' },
  { clientEra: '2026-07-28', serverEra: '2026-07-28-only', what: 'input_required to requests, and back' },
];

/** The sampling request both servers' `sample` tool makes for "Capital of France?". */
const SAMPLING_REQUEST: JsonObject = { messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 50 };

/** A form elicitation of one required string property, as both servers' `ask-twice` asks it. */
function formAsking(message: string, property: string): JsonObject {
  return { mode: 'form', message, requestedSchema: { type: 'object', properties: { [property]: { type: 'string' } }, required: [property] } };
}

/**
 * What the recording middleware sees for `sample` then `ask-twice`, in every set-up: three
 * `toDownstream` requests, in order, each with the client's answer as its result.
 */
const EXPECTED: Seen[] = [
  { direction: 'toDownstream', kind: 'request', method: 'sampling/createMessage', params: SAMPLING_REQUEST, result: SAMPLED },
  { direction: 'toDownstream', kind: 'request', method: 'elicitation/create', params: formAsking('Your name?', 'name'), result: { action: 'accept', content: { name: 'Ada' } } },
  { direction: 'toDownstream', kind: 'request', method: 'elicitation/create', params: formAsking('Your favourite colour?', 'colour'), result: { action: 'accept', content: { colour: 'teal' } } },
];

describe('one shape for middleware: a server\'s sampling and elicitation, whatever the eras of client and server (issue 15)', () => {
  /** Each set-up's recording, by its name, for the comparison at the end. */
  const recordings = new Map<string, Seen[]>();

  for (const { clientEra, serverEra, what } of SET_UPS) {
    const name = `${clientEra} client → chain → ${serverEra} server`;
    test(`${name} (${what}): the middleware sees each request as a toDownstream request, and the client's answer as its result`, async () => {
      const seen: Seen[] = [];
      const { outcomes, asked } = await inSetUp(clientEra, serverEra, [recorder(seen)], async (client) => ({
        outcomes: [await client.call('sample', { question: 'Capital of France?' }), await client.call('ask-twice', {})],
        asked: client.asked,
      }));
      recordings.set(name, seen);
      assert.deepEqual(seen, EXPECTED);
      assert.deepEqual(asked, EXPECTED.map(({ method, params }) => ({ method, params })), 'the client is asked exactly what the middleware passed on');
      assert.deepEqual(outcomes, [{ isError: false, text: 'Paris' }, { isError: false, text: 'Ada likes teal' }]);
    });
  }

  test('the four recordings are deep-equal', () => {
    const [reference, ...others] = SET_UPS.map(({ clientEra, serverEra }) => `${clientEra} client → chain → ${serverEra} server`);
    const expected = recordings.get(reference ?? '');
    assert.ok(expected !== undefined, `no recording of the reference (${reference})`);
    for (const name of others) assert.deepEqual(recordings.get(name), expected, name);
  });
});

describe('one shape for middleware: a policy that rewrites the request and the answer does so in every set-up', () => {
  /** Hides the question from the client, and shouts the model's answer back to the server. */
  const rewrite: Middleware = on('sampling/createMessage', async (ctx, next) => {
    const params = { ...ctx.message.params, messages: [{ role: 'user', content: { type: 'text', text: '[redacted]' } }] };
    const result = await next({ ...ctx.message, params } as typeof ctx.message);
    return { ...result, content: { type: 'text', text: 'PARIS' } };
  });

  for (const { clientEra, serverEra, what } of SET_UPS) {
    test(`${clientEra} client → chain → ${serverEra} server (${what})`, async () => {
      const { outcome, asked } = await inSetUp(clientEra, serverEra, [rewrite], async (client) => ({
        outcome: await client.call('sample', { question: 'Capital of France?' }),
        asked: client.asked,
      }));
      assert.deepEqual(asked, [{ method: 'sampling/createMessage', params: { ...SAMPLING_REQUEST, messages: [{ role: 'user', content: { type: 'text', text: '[redacted]' } }] } }]);
      assert.deepEqual(outcome, { isError: false, text: 'PARIS' });
    });
  }
});

// What the caller gets depends on the server's era only, never on the client's, and both carry
// the refusal's code and message. A session-era server's tool gets the refusal as the error of its
// sampling/createMessage (the v1 SDK then answers the call with an isError result quoting it). A
// 2026-07-28 server cannot be told: the spec has no error in `inputResponses` (a client that
// declines simply does not retry: client/sampling.mdx › Error Handling), so the chain ends the call
// with the refusal as its error, and the server is not asked again.
describe('one shape for middleware: a policy that refuses sampling has the same effect in every set-up', () => {
  for (const { clientEra, serverEra, what } of SET_UPS) {
    test(`${clientEra} client → chain → ${serverEra} server (${what})`, async () => {
      const seen: Seen[] = [];
      // The recorder is nearer the server: it sees the request first, then the refusal.
      const { outcome, asked } = await inSetUp(clientEra, serverEra, [refuseSampling, recorder(seen)], async (client) => ({
        outcome: await client.call('sample', { question: 'Capital of France?' }),
        asked: client.asked,
      }));
      assert.deepEqual(seen, [{ direction: 'toDownstream', kind: 'request', method: 'sampling/createMessage', params: SAMPLING_REQUEST, error: REFUSAL }]);
      assert.deepEqual(asked, [], 'the client is never asked');
      if (serverEra === 'session-era') {
        assert.ok('isError' in outcome && outcome.isError, `the tool answers with an error result: ${JSON.stringify(outcome)}`);
        assert.equal(outcome.text, `MCP error ${REFUSAL.code}: ${REFUSAL.message}`);
      } else {
        assert.deepEqual(outcome, { error: REFUSAL });
      }
    });
  }
});

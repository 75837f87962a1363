import { isUtf8 } from 'node:buffer';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { serveStdio } from '../../src/front/serve-stdio.js';
import { ErrorCode } from '../../src/errors/error-code.js';
import { McpError } from '../../src/errors/mcp-error.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import type { JsonObject } from '../../src/message/jsonrpc.js';
import { classifyMessage, isJsonObject } from '../../src/message/parse-message.js';
import { LineReader } from '../../src/message/line-reader.js';
import type { LocalServer } from '../../src/upstream/local.js';
import { echoServer } from './echo-server.js';
import { defineFuzzTarget } from './fuzz-target.js';

// The stdio front end to end, in process: serveStdio over in-memory streams in front of an echo
// upstream. An input is a sequence of lines (valid requests with unique ids, notifications,
// responses to nothing, batches, mutated JSON, invalid UTF-8, huge numbers, deep nesting,
// duplicate and __proto__ keys, lines at and over the size limit) sent as bytes split into random
// chunks, before or after the initialize handshake. An oracle reads the same bytes the way the
// framing is specified to (split on the newline byte, strict UTF-8, JSON.parse, the size limit)
// and says what each line must get; the check compares that with what came back.

/** Small, so that lines over it are cheap to make. */
const MAX_LINE = 8192;

const echo = echoServer;

type Version = '2025-03-26' | '2025-06-18' | '2025-11-25';

/** One line of an input, as data (so that a failing input prints readably); ids are filled in when rendered. */
type Item =
  | { t: 'request'; method: string; params?: JsonObject | undefined; numericId: boolean }
  | { t: 'notification'; method: string; params?: JsonObject | undefined }
  | { t: 'response'; error: boolean }
  | { t: 'batch'; members: Item[] }
  | { t: 'mutated'; base: Item; edits: Array<[number, 'delete' | 'insert' | 'replace' | 'truncate', string]> }
  | { t: 'utf8'; base: Item; at: number; bytes: readonly number[] }
  | { t: 'hugeId'; method: string; literal: string }
  | { t: 'hugeArg'; literal: string }
  | { t: 'dupKey'; base: Item; key: string; value: string; last: boolean }
  | { t: 'proto'; base: Item; value: string; where: 'top' | 'params' | 'arguments' }
  | { t: 'deep'; depth: number; where: 'arguments' | 'id' | 'params' | 'top' }
  | { t: 'size'; over: number }
  | { t: 'sameId' }
  | { t: 'text'; text: string }
  | { t: 'bytes'; bytes: number[] };

const METHODS = ['ping', 'tools/list', 'tools/call', 'tools/call', 'tools/call', 'resources/read', 'prompts/get', 'no/such-method', 'initialize', 'resources/list'];

const jsonValue = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>;
const params = fc.option(fc.oneof(
  fc.constantFrom<JsonObject>({ name: 'progress', arguments: {}, _meta: { progressToken: 'p' } }, { name: 'progress', _meta: { progressToken: 7 } }, { name: 'progress' }),
  fc.record({ name: fc.constantFrom('echo', 'echo', 'nope'), arguments: fc.option(fc.dictionary(fc.string({ maxLength: 6 }), jsonValue, { maxKeys: 4 }), { nil: undefined }) }, { requiredKeys: ['name'] }),
  fc.dictionary(fc.string({ maxLength: 6 }), jsonValue, { maxKeys: 3 }),
), { nil: undefined }) as fc.Arbitrary<JsonObject | undefined>;

const request: fc.Arbitrary<Item> = fc.record({
  t: fc.constant('request' as const),
  method: fc.constantFrom(...METHODS),
  params,
  numericId: fc.boolean(),
});
const notification: fc.Arbitrary<Item> = fc.record({
  t: fc.constant('notification' as const),
  method: fc.constantFrom('notifications/initialized', 'notifications/progress', 'notifications/cancelled', 'notifications/roots/list_changed', 'x/custom'),
  params: fc.option(fc.record({ requestId: fc.oneof(fc.string({ maxLength: 4 }), fc.nat()), progressToken: fc.nat() }, { requiredKeys: [] }), { nil: undefined }) as fc.Arbitrary<JsonObject | undefined>,
});
const response: fc.Arbitrary<Item> = fc.record({ t: fc.constant('response' as const), error: fc.boolean() });
const simple = fc.oneof({ weight: 4, arbitrary: request }, { weight: 1, arbitrary: notification }, { weight: 1, arbitrary: response });

const item: fc.Arbitrary<Item> = fc.oneof(
  { weight: 6, arbitrary: simple },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('batch' as const), members: fc.array(fc.oneof(simple, fc.constant<Item>({ t: 'text', text: '42' })), { maxLength: 5 }) }) },
  { weight: 3, arbitrary: fc.record({
    t: fc.constant('mutated' as const),
    base: simple,
    edits: fc.array(fc.tuple(fc.nat(), fc.constantFrom('delete' as const, 'insert' as const, 'replace' as const, 'truncate' as const), fc.constantFrom('{', '}', '[', ']', '"', ',', ':', '\\', '0', 'a', ' ', '\n', '\r', '\u00e9', '\u0000')), { minLength: 1, maxLength: 3 }),
  }) },
  { weight: 1, arbitrary: fc.record({
    t: fc.constant('utf8' as const),
    base: simple,
    at: fc.nat(),
    bytes: fc.constantFrom([0xff], [0xc3], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80]),
  }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('hugeId' as const), method: fc.constantFrom('ping', 'tools/list'), literal: fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '-0', '1.5', '1E2', '0.0000000000000000000001', '9007199254740993') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('hugeArg' as const), literal: fc.constantFrom('1e400', '123456789012345678901234567890', '-0', '1e-400', '9007199254740993') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('dupKey' as const), base: request, key: fc.constantFrom('id', 'method', 'jsonrpc', 'params'), value: fc.constantFrom('"dup"', '7', 'null', '{}', '"1.0"', '"ping"'), last: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('proto' as const), base: request, value: fc.constantFrom('{}', '{"name":"echo"}', '{"jsonrpc":"2.0"}', 'null', '[]'), where: fc.constantFrom('top' as const, 'params' as const, 'arguments' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('deep' as const), depth: fc.integer({ min: 1, max: 4000 }), where: fc.constantFrom('arguments' as const, 'id' as const, 'params' as const, 'top' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('size' as const), over: fc.integer({ min: -2, max: 3000 }) }) },
  { weight: 1, arbitrary: fc.constant<Item>({ t: 'sameId' }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('text' as const), text: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '   ', '\ufeff{"jsonrpc":"2.0","method":"x"}', 'null', '[]', '"str"', '{}', '{"jsonrpc":"2.0"}', '\r')) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('bytes' as const), bytes: fc.array(fc.nat({ max: 255 }), { maxLength: 30 }) }) },
);

interface Input {
  /** undefined: no handshake (pre-initialize traffic). */
  version: Version | undefined;
  items: Item[];
  /** Offsets (any size, reduced modulo the length) where the bytes are cut into chunks. */
  cuts: number[];
  /** Whether to let the event loop turn after each chunk. */
  pauses: boolean[];
}

const input: fc.Arbitrary<Input> = fc.record({
  version: fc.constantFrom<Version | undefined>(undefined, '2025-03-26', '2025-06-18', '2025-11-25'),
  items: fc.array(item, { minLength: 1, maxLength: 12 }),
  cuts: fc.array(fc.nat(), { maxLength: 10 }),
  pauses: fc.array(fc.boolean(), { maxLength: 11 }),
});

/** Renders items to line text, handing out unique ids. */
class Renderer {
  #next = 0;
  last: string | number = 'none';

  id(numeric: boolean): string | number {
    this.#next += 1;
    this.last = numeric ? 100_000 + this.#next : `r${this.#next}`;
    return this.last;
  }

  value(item: Item): unknown {
    switch (item.t) {
      case 'request': {
        const id = this.id(item.numericId);
        return item.params === undefined ? { jsonrpc: '2.0', id, method: item.method } : { jsonrpc: '2.0', id, method: item.method, params: item.params };
      }
      case 'notification':
        return item.params === undefined ? { jsonrpc: '2.0', method: item.method } : { jsonrpc: '2.0', method: item.method, params: item.params };
      case 'response':
        return item.error ? { jsonrpc: '2.0', id: `nobody-${this.#next}`, error: { code: -1, message: 'stray' } } : { jsonrpc: '2.0', id: `nobody-${this.#next}`, result: {} };
      default:
        return undefined;
    }
  }

  /** The line, as text or bytes (never containing a newline unless a mutation put one in). */
  line(item: Item): string | Buffer {
    switch (item.t) {
      case 'request':
      case 'notification':
      case 'response':
        return JSON.stringify(this.value(item));
      case 'batch':
        return `[${item.members.map((member) => (member.t === 'text' ? member.text : JSON.stringify(this.value(member)))).join(',')}]`;
      case 'mutated': {
        let text = toText(this.line(item.base));
        for (const [at, edit, char] of item.edits) {
          const i = text.length === 0 ? 0 : at % text.length;
          if (edit === 'delete') text = text.slice(0, i) + text.slice(i + 1);
          else if (edit === 'insert') text = text.slice(0, i) + char + text.slice(i);
          else if (edit === 'replace') text = text.slice(0, i) + char + text.slice(i + 1);
          else text = text.slice(0, i);
        }
        return text;
      }
      case 'utf8': {
        const bytes = Buffer.from(toText(this.line(item.base)));
        const i = item.at % (bytes.length + 1);
        return Buffer.concat([bytes.subarray(0, i), Buffer.from(item.bytes), bytes.subarray(i)]);
      }
      case 'hugeId':
        this.id(false);
        return `{"jsonrpc":"2.0","id":${item.literal},"method":"${item.method}"}`;
      case 'hugeArg':
        return `{"jsonrpc":"2.0","id":"${String(this.id(false))}","method":"tools/call","params":{"name":"echo","arguments":{"n":${item.literal},"list":[${item.literal}]}}}`;
      case 'dupKey': {
        const text = toText(this.line(item.base));
        const member = `"${item.key}":${item.value}`;
        return item.last ? `${text.slice(0, -1)},${member}}` : `{${member},${text.slice(1)}`;
      }
      case 'proto': {
        const text = toText(this.line({ ...item.base, t: 'request', method: 'tools/call', params: { name: 'echo', arguments: { a: 1 } } } as Item));
        if (item.where === 'top') return `{"__proto__":${item.value},${text.slice(1)}`;
        if (item.where === 'params') return text.replace('"params":{', `"params":{"__proto__":${item.value},`);
        return text.replace('"arguments":{', `"arguments":{"__proto__":${item.value},`);
      }
      case 'deep': {
        const nest = '['.repeat(item.depth) + ']'.repeat(item.depth);
        const id = JSON.stringify(this.id(false));
        if (item.where === 'top') return nest;
        if (item.where === 'id') return `{"jsonrpc":"2.0","id":${nest},"method":"ping"}`;
        if (item.where === 'params') return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${nest}}`;
        return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"deep":${nest}}}}`;
      }
      case 'size': {
        // A request padded to exactly MAX_LINE + over bytes (over <= 0: at or under the limit).
        const head = `{"jsonrpc":"2.0","id":"${String(this.id(false))}","method":"tools/call","params":{"name":"echo","arguments":{"pad":"`;
        const tail = '"}}}';
        return head + 'x'.repeat(Math.max(0, MAX_LINE + item.over - head.length - tail.length)) + tail;
      }
      case 'sameId':
        return `{"jsonrpc":"2.0","id":${JSON.stringify(this.last)},"method":"tools/list"}`;
      case 'text':
        return item.text;
      case 'bytes':
        return Buffer.from(item.bytes);
    }
  }
}

function toText(line: string | Buffer): string {
  return typeof line === 'string' ? line : line.toString('latin1');
}

/** What one id must get: the exact answer, or (relaxed) anything of a known set, any number of times up to `max`. */
interface Expected {
  /** The answer's `result`, serialized; or the error code. */
  outcomes: Array<{ result: string } | { code: number }>;
  /** Exact: answered exactly this many times; relaxed: at most this many. */
  count: number;
  relaxed: boolean;
}

interface Expectations {
  byId: Map<string, Expected>;
  /** Codes of the errors with id null, as a sorted multiset. */
  nullCodes: number[];
  /** How many batch answers (arrays) must come. */
  arrays: number;
  /** The state of the session could not be foreseen (a valid initialize in pre-initialize traffic). */
  unknown: boolean;
}

const keyOf = (id: unknown): string => `${typeof id}:${String(id)}`;

/**
 * What the session must answer to `bytes`, read as the line framing is specified: lines end at
 * the newline byte (a CR before it is dropped), a line over MAX_LINE bytes is -32600 id null, one
 * that is not UTF-8 or not JSON -32700 id null, blank lines nothing; each JSON value is answered
 * as JSON-RPC says, a request by what the echo upstream answers.
 */
async function expectations(bytes: Buffer, version: Version | undefined, server: LocalServer): Promise<Expectations> {
  const out: Expectations = { byId: new Map(), nullCodes: [], arrays: 0, unknown: false };
  let ready = version !== undefined;
  const cancelled = new Set<string>();
  const answers: Array<{ id: unknown; outcome: { result: string } | { code: number } }> = [];
  const batchAnswers = async (value: unknown): Promise<void> => {
    if (!Array.isArray(value)) {
      const answer = await answerOf(value);
      if (answer) answers.push(answer);
      return;
    }
    if (value.length === 0 || !ready || version !== '2025-03-26') {
      answers.push({ id: null, outcome: { code: ErrorCode.InvalidRequest } });
      return;
    }
    let any = false;
    for (const member of value) {
      const answer = await answerOf(member);
      if (answer) {
        answers.push(answer);
        any = true;
      }
    }
    if (any) out.arrays += 1;
  };
  const answerOf = async (value: unknown): Promise<{ id: unknown; outcome: { result: string } | { code: number } } | undefined> => {
    const classified = classifyMessage(value);
    if (classified.kind === 'invalid') return { id: classified.id, outcome: { code: classified.error.code } };
    if (classified.kind === 'notification') {
      const requestId = classified.message.params?.requestId;
      if (classified.message.method === 'notifications/cancelled' && (typeof requestId === 'string' || typeof requestId === 'number')) cancelled.add(keyOf(requestId));
      return undefined;
    }
    if (classified.kind === 'response') return undefined;
    const { id, method } = classified.message;
    const message = classified.message.params === undefined ? { method } : { method, params: classified.message.params };
    if (method === 'ping') return { id, outcome: { result: '{}' } };
    if (!ready) {
      if (method === 'initialize') out.unknown = true;
      return { id, outcome: { code: ErrorCode.InvalidRequest } };
    }
    if (method === 'initialize') return { id, outcome: { code: ErrorCode.InvalidRequest } };
    try {
      const result = await server.handle(message, { signal: new AbortController().signal, session: undefined as never, downstream: undefined as never, progress: () => Promise.resolve() });
      try {
        return { id, outcome: { result: JSON.stringify(result) } };
      } catch {
        return { id, outcome: { code: ErrorCode.InternalError } };
      }
    } catch (error) {
      return { id, outcome: { code: error instanceof McpError ? error.code : ErrorCode.InternalError } };
    }
  };

  let start = 0;
  for (;;) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl === -1) break;
    let line = bytes.subarray(start, nl);
    start = nl + 1;
    if (line.length > MAX_LINE) {
      answers.push({ id: null, outcome: { code: ErrorCode.InvalidRequest } });
      continue;
    }
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
    if (!isUtf8(line)) {
      answers.push({ id: null, outcome: { code: ErrorCode.ParseError } });
      continue;
    }
    let text = line.toString('utf8');
    if (text.startsWith('\ufeff')) text = text.slice(1);
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      answers.push({ id: null, outcome: { code: ErrorCode.ParseError } });
      continue;
    }
    await batchAnswers(value);
    if (out.unknown) ready = true;
  }
  for (const answer of answers) {
    if (answer.id === null) {
      if ('code' in answer.outcome) out.nullCodes.push(answer.outcome.code);
      continue;
    }
    const key = keyOf(answer.id);
    const seen = out.byId.get(key);
    if (seen) {
      // The same id twice: each is answered, or refused while the other is in flight.
      seen.count += 1;
      seen.relaxed = true;
      seen.outcomes.push(answer.outcome, { code: ErrorCode.InvalidRequest });
    } else {
      out.byId.set(key, { outcomes: [answer.outcome], count: 1, relaxed: false });
    }
  }
  // A request the input also cancels may or may not be answered.
  for (const key of cancelled) {
    const seen = out.byId.get(key);
    if (seen) seen.relaxed = true;
  }
  out.nullCodes.sort();
  return out;
}

/** The messages the front writes, parsed, with a way to wait for a condition on them. */
class Received {
  readonly messages: unknown[] = [];
  #wake: (() => void) | undefined;

  constructor(output: PassThrough) {
    const reader = new LineReader({
      onValue: (value) => {
        this.messages.push(value);
        this.#wake?.();
      },
      onMalformed: (error, line) => {
        this.messages.push({ unreadable: error.message, line });
        this.#wake?.();
      },
    }, 1 << 30);
    output.on('data', (chunk: Buffer) => reader.push(chunk));
  }

  /** Resolves once `done()` holds; rejects after `ms`, saying `what`. */
  async until(done: () => boolean, ms: number, what: () => string): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what()} within ${ms} ms; received: ${JSON.stringify(this.messages).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /** The answers with this id (flattening batch answers). */
  withId(id: string | number): JsonObject[] {
    return this.flat().filter((m) => m.id === id);
  }

  flat(): JsonObject[] {
    return this.messages.flatMap((m) => (Array.isArray(m) ? m : [m])).filter(isJsonObject);
  }
}

function unhandled(): { errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const onError = (error: unknown): void => void errors.push(error);
  process.on('unhandledRejection', onError);
  process.on('uncaughtException', onError);
  return {
    errors,
    stop: () => {
      process.off('unhandledRejection', onError);
      process.off('uncaughtException', onError);
    },
  };
}

const outcomeOf = (message: JsonObject): { result: string } | { code: number } | undefined => {
  if ('result' in message && !('error' in message)) return { result: JSON.stringify(message.result) };
  if (isJsonObject(message.error) && typeof message.error.code === 'number' && typeof message.error.message === 'string' && !('result' in message)) return { code: message.error.code };
  return undefined;
};

const sameOutcome = (a: { result: string } | { code: number }, b: { result: string } | { code: number }): boolean =>
  'result' in a ? 'result' in b && a.result === b.result : 'code' in b && a.code === b.code;

async function checkInput(given: Input, server: LocalServer, caught: unknown[]): Promise<void> {
  const inputStream = new PassThrough();
  const output = new PassThrough();
  const received = new Received(output);
  const front = await serveStdio(server, { input: inputStream, output, maxMessageBytes: MAX_LINE, log: silentLogger });
  try {
    if (given.version !== undefined) {
      inputStream.write(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: given.version, capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } }) + '\n');
      await received.until(() => received.withId('init').length > 0, 2000, () => 'answer to initialize');
      const [init] = received.withId('init');
      if (!isJsonObject(init?.result) || init.result.protocolVersion !== given.version) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
      inputStream.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      received.messages.length = 0;
    }
    const renderer = new Renderer();
    const lines = given.items.map((entry) => renderer.line(entry));
    const bytes = Buffer.concat(lines.flatMap((line) => [typeof line === 'string' ? Buffer.from(line) : line, Buffer.from('\n')]));
    const expected = await expectations(bytes, given.version, server);

    // The garbage, in chunks cut at random offsets.
    const cuts = [...new Set(given.cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
    let from = 0;
    for (const [i, cut] of [...cuts, bytes.length].entries()) {
      if (cut > from) inputStream.write(bytes.subarray(from, cut));
      from = Math.max(from, cut);
      if (given.pauses[i] === true) await new Promise<void>((resolve) => setImmediate(resolve));
    }

    // The next valid messages are still served.
    inputStream.write('{"jsonrpc":"2.0","id":"final-ping","method":"ping"}\n{"jsonrpc":"2.0","id":"final-call","method":"tools/call","params":{"name":"echo","arguments":{"after":"garbage"}}}\n');
    const exactIds = [...expected.byId.entries()].filter(([, e]) => !e.relaxed);
    const flatIdKey = (m: JsonObject): string => keyOf(m.id);
    await received.until(() => {
      const flat = received.flat();
      const keys = new Set(flat.map(flatIdKey));
      return keys.has(keyOf('final-ping')) && keys.has(keyOf('final-call')) && exactIds.every(([key]) => keys.has(key))
        && flat.filter((m) => m.id === null).length >= expected.nullCodes.length;
    }, 3000, () => `answer to every request (expected ids ${exactIds.map(([key]) => key).join(' ')}, ${expected.nullCodes.length} with id null: ${expected.nullCodes.join(',')})`);

    const [ping] = received.withId('final-ping');
    if (JSON.stringify(ping?.result) !== '{}') throw new Error(`ping after the garbage: ${JSON.stringify(ping)}`);
    const [call] = received.withId('final-call');
    const ready = given.version !== undefined || expected.unknown;
    if (ready && !expected.unknown) {
      if (!isJsonObject(call?.result) || JSON.stringify(call.result.structuredContent) !== '{"after":"garbage"}') throw new Error(`tools/call after the garbage: ${JSON.stringify(call)}`);
    } else if (!expected.unknown && (!isJsonObject(call?.error) || call.error.code !== ErrorCode.InvalidRequest)) {
      throw new Error(`tools/call before initialize must be -32600: ${JSON.stringify(call)}`);
    }
    if (given.version === undefined && !expected.unknown) {
      // Pre-initialize garbage does not keep the session from starting.
      inputStream.write(JSON.stringify({ jsonrpc: '2.0', id: 'late-init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } }) + '\n');
      inputStream.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":"late-call","method":"tools/call","params":{"name":"echo","arguments":{"late":true}}}\n');
      await received.until(() => received.withId('late-call').length > 0, 2000, () => 'answer to tools/call after a late initialize');
      const [late] = received.withId('late-call');
      if (!isJsonObject(late?.result) || JSON.stringify(late.result.structuredContent) !== '{"late":true}') throw new Error(`tools/call after a late initialize: ${JSON.stringify(late)}`);
    }

    // Everything written before the session ends is in: now count.
    await front.close();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (caught.length > 0) throw new Error(`unhandled: ${caught.map(String).join('; ')}`);
    const flat = received.flat();
    const arrays = received.messages.filter(Array.isArray).length;
    for (const message of received.messages) {
      if (!isJsonObject(message) && !Array.isArray(message)) throw new Error(`not a JSON-RPC message: ${JSON.stringify(message)}`);
      if (isJsonObject(message) && 'unreadable' in message) throw new Error(`the front wrote an unreadable line: ${JSON.stringify(message)}`);
    }
    const byKey = new Map<string, JsonObject[]>();
    for (const message of flat) {
      // The progress tool's report, on its way to the client.
      if (message.method === 'notifications/progress' && !('id' in message)) continue;
      if (message.jsonrpc !== '2.0' || 'method' in message) throw new Error(`not a response: ${JSON.stringify(message)}`);
      if (message.id === null) continue;
      const key = keyOf(message.id);
      byKey.set(key, [...(byKey.get(key) ?? []), message]);
    }
    for (const key of ['final-ping', 'final-call', 'late-init', 'late-call', 'init']) byKey.delete(keyOf(key));
    // A valid initialize in pre-initialize traffic: what follows it cannot be foreseen line by line.
    if (expected.unknown) return;
    for (const [key, answers] of byKey) {
      const want = expected.byId.get(key);
      if (!want) throw new Error(`an answer to no request of the input (id ${key}): ${JSON.stringify(answers)}`);
      if (want.relaxed ? answers.length > want.count : answers.length !== want.count) {
        throw new Error(`id ${key} answered ${answers.length} times, expected ${want.relaxed ? 'at most ' : ''}${want.count}: ${JSON.stringify(answers).slice(0, 500)}`);
      }
      for (const answer of answers) {
        const got = outcomeOf(answer);
        if (got === undefined || !want.outcomes.some((outcome) => sameOutcome(outcome, got))) {
          throw new Error(`id ${key}: got ${JSON.stringify(answer).slice(0, 500)}, expected one of ${JSON.stringify(want.outcomes).slice(0, 500)}`);
        }
      }
    }
    for (const [key, want] of expected.byId) {
      if (!want.relaxed && !byKey.has(key)) throw new Error(`id ${key} was never answered`);
    }
    const nullCodes = flat.filter((m) => m.id === null).map((m) => (isJsonObject(m.error) ? Number(m.error.code) : NaN)).sort();
    if (JSON.stringify(nullCodes) !== JSON.stringify(expected.nullCodes)) {
      throw new Error(`errors with id null: got ${JSON.stringify(nullCodes)}, expected ${JSON.stringify(expected.nullCodes)}`);
    }
    if (!expected.unknown && arrays !== expected.arrays) throw new Error(`${arrays} batch answers, expected ${expected.arrays}`);
  } finally {
    await front.close();
    inputStream.destroy();
    output.destroy();
  }
}

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'stdio-front',
    invariant: 'whatever bytes a stdio client sends, every request with a readable id is answered exactly once with the right result or error, unreadable lines get one -32700/-32600 with id null, and the next valid message is served',
    arbitrary: input,
    quickRuns: 700,
    inputTimeoutMs: 8000,
    open: () => {
      const server = echo();
      const trap = unhandled();
      return {
        check: (given: Input) => checkInput(given, server, trap.errors),
        close: () => trap.stop(),
      };
    },
  }),
];

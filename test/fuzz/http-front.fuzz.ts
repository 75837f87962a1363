import { isUtf8 } from 'node:buffer';
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { ErrorCode } from '../../src/errors/error-code.js';
import { McpError } from '../../src/errors/mcp-error.js';
import { serveHttp, type HttpFront } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import type { JsonObject } from '../../src/message/jsonrpc.js';
import { classifyMessage, isJsonObject } from '../../src/message/parse-message.js';
import { isSessionEraVersion, LATEST_SESSION_ERA_VERSION } from '../../src/eras/versions.js';
import type { LocalServer } from '../../src/upstream/local.js';
import { echoServer } from './echo-server.js';
import { defineFuzzTarget } from './fuzz-target.js';

// The Streamable HTTP front end to end, in process: serveHttp on 127.0.0.1 (port 0) before an echo
// upstream, driven with raw bytes over node:net. An input is one HTTP request built from fuzzed
// parts (request line, Host, Origin, Accept, Content-Type, Mcp-Session-Id, MCP-Protocol-Version,
// Last-Event-ID, Content-Length right, wrong or twice, chunked with random sizes or bad syntax,
// garbage header lines, a JSON-RPC body valid, mutated, invalid UTF-8, deep or over the cap) and
// written in pieces cut at random offsets. An oracle that follows the front's documented order of
// checks says what a well-formed request must get (status, JSON-RPC error code and id, or the
// answers); a malformed one may only get a status the spec allows, or none when it never ends.
// After each input, a valid call on a fresh connection must be served, and the sessions the input
// opened are deleted, so the session count stays at the pool's.

const MAX_BODY = 16 * 1024;
const MAX_SESSIONS = 20;
/** Statuses the front may answer anything with. */
const ALLOWED = new Set([200, 202, 204, 400, 403, 404, 405, 406, 413, 415, 429, 503]);

const echo = echoServer;

type Pool = 'A' | 'B';
/** The pool's sessions: A speaks 2025-03-26 (batches), B 2025-11-25. The control session is never named by inputs. */
const POOL_VERSIONS: Record<Pool | 'C', string> = { A: '2025-03-26', B: '2025-11-25', C: '2025-06-18' };

type Body =
  | { t: 'none' }
  | { t: 'initialize'; version: string; broken: boolean }
  | { t: 'request'; method: string; params?: JsonObject | undefined }
  | { t: 'notification'; method: string }
  | { t: 'response' }
  | { t: 'batch'; members: Body[] }
  | { t: 'mutated'; base: Body; edits: Array<[number, 'delete' | 'insert' | 'replace' | 'truncate', string]> }
  | { t: 'utf8'; base: Body; at: number }
  | { t: 'deep'; depth: number }
  | { t: 'proto'; value: string }
  | { t: 'hugeId'; literal: string }
  | { t: 'size'; over: number }
  | { t: 'text'; text: string };

type Framing =
  | { t: 'length' }
  | { t: 'length-wrong'; delta: number }
  | { t: 'length-twice'; same: boolean }
  | { t: 'length-garbage'; value: string }
  | { t: 'chunked'; sizes: number[]; extension: boolean }
  | { t: 'chunked-bad'; how: 'hex' | 'short' | 'unterminated' | 'huge' | 'lf' | 'with-length' }
  | { t: 'omitted' };

interface HttpInput {
  method: string;
  path: string;
  version: string;
  host: 'ok' | 'localhost' | 'evil' | 'none' | 'twice' | 'garbage';
  origin: 'none' | 'loopback' | 'evil' | 'null' | 'garbage' | 'twice';
  accept: string | undefined;
  contentType: string | undefined;
  session: 'none' | Pool | 'unknown' | 'garbage' | 'twice';
  protocolVersion: string | undefined;
  lastEventId: string | undefined;
  framing: Framing;
  body: Body;
  garbageHeader: string | undefined;
  cuts: number[];
  /** The client goes away as soon as it has sent the request, without reading the answer. */
  vanish: boolean;
}

const simpleBody: fc.Arbitrary<Body> = fc.oneof(
  { weight: 4, arbitrary: fc.record({
    t: fc.constant('request' as const),
    method: fc.constantFrom('ping', 'tools/list', 'tools/call', 'tools/call', 'no/such', 'initialize', 'resources/read'),
    params: fc.option(fc.oneof(fc.constantFrom<JsonObject>({ name: 'progress', _meta: { progressToken: 'p' } }, { name: 'progress' }), fc.record({ name: fc.constantFrom('echo', 'nope'), arguments: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown>, { maxKeys: 3 }) })), { nil: undefined }) as fc.Arbitrary<JsonObject | undefined>,
  }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('notification' as const), method: fc.constantFrom('notifications/initialized', 'notifications/cancelled', 'x/custom') }) },
  { weight: 1, arbitrary: fc.constant<Body>({ t: 'response' }) },
);

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 5, arbitrary: simpleBody },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('initialize' as const), version: fc.constantFrom('2025-03-26', '2025-06-18', '2025-11-25', '1999-01-01'), broken: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('batch' as const), members: fc.array(simpleBody, { maxLength: 4 }) }) },
  { weight: 3, arbitrary: fc.record({
    t: fc.constant('mutated' as const),
    base: simpleBody,
    edits: fc.array(fc.tuple(fc.nat(), fc.constantFrom('delete' as const, 'insert' as const, 'replace' as const, 'truncate' as const), fc.constantFrom('{', '}', '[', ']', '"', ',', ':', '\\', '0', ' ', '\n', '\u00e9')), { minLength: 1, maxLength: 3 }),
  }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('utf8' as const), base: simpleBody, at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('deep' as const), depth: fc.integer({ min: 1, max: 6000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('proto' as const), value: fc.constantFrom('{}', '{"name":"echo"}', 'null') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('hugeId' as const), literal: fc.constantFrom('1e400', '123456789012345678901234567890', '-0', '1.5') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('size' as const), over: fc.integer({ min: -2, max: 2000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('text' as const), text: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', '[]', 'null', '{}', '"x"')) }) },
);

const framing: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Framing>({ t: 'length' }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('chunked' as const), sizes: fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 6 }), extension: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('length-wrong' as const), delta: fc.integer({ min: -20, max: 20 }).filter((d) => d !== 0) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('length-twice' as const), same: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('length-garbage' as const), value: fc.constantFrom('abc', '-1', '1e3', ' 5', '0x10', '99999999999999999999') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('chunked-bad' as const), how: fc.constantFrom('hex' as const, 'short' as const, 'unterminated' as const, 'huge' as const, 'lf' as const, 'with-length' as const) }) },
  { weight: 1, arbitrary: fc.constant<Framing>({ t: 'omitted' }) },
);

const input: fc.Arbitrary<HttpInput> = fc.record({
  method: fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 2, arbitrary: fc.constantFrom('GET', 'DELETE') }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'OPTIONS', 'HEAD', 'PATCH', 'G@T', 'post') }),
  path: fc.oneof({ weight: 10, arbitrary: fc.constant('/mcp') }, { weight: 1, arbitrary: fc.constantFrom('/mcp?x=1', '/other', '/mcp/', '//mcp', '*', '/%ff', '/MCP', '/mcp#f') }),
  version: fc.oneof({ weight: 12, arbitrary: fc.constant('HTTP/1.1') }, { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTX/1.1', 'HTTP/1.1 extra') }),
  host: fc.oneof({ weight: 10, arbitrary: fc.constant('ok' as const) }, { weight: 1, arbitrary: fc.constantFrom('localhost' as const, 'evil' as const, 'none' as const, 'twice' as const, 'garbage' as const) }),
  origin: fc.oneof({ weight: 10, arbitrary: fc.constant('none' as const) }, { weight: 1, arbitrary: fc.constantFrom('loopback' as const, 'evil' as const, 'null' as const, 'garbage' as const, 'twice' as const) }),
  accept: fc.oneof({ weight: 10, arbitrary: fc.constant('application/json, text/event-stream') }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'application/json', 'text/event-stream', '*/*', 'application/json;q=0, text/event-stream', 'application/*, text/*', 'APPLICATION/JSON, TEXT/EVENT-STREAM', ',,;', 'text/event-stream;q=0.0, */*;q=0') }),
  contentType: fc.oneof({ weight: 10, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/jsonx', 'application/json ;x', '') }),
  session: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('A' as const, 'B' as const) }, { weight: 3, arbitrary: fc.constant('none' as const) }, { weight: 1, arbitrary: fc.constantFrom('unknown' as const, 'garbage' as const, 'twice' as const) }),
  protocolVersion: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 4, arbitrary: fc.constantFrom('2025-03-26', '2025-11-25') }, { weight: 1, arbitrary: fc.constantFrom('1999-01-01', '', 'latest', '2025-11-25, 2025-03-26', '2024-11-05') }),
  lastEventId: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('0-1', '0-999999999999999999999', '1-1', '-', '0-', 'x', '0-1-1'), fc.string({ maxLength: 12 }).filter((s) => /^[\x21-\x7e]*$/.test(s))) }),
  framing,
  body,
  garbageHeader: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('NoColon', 'Bad Name: x', 'X-Ctl: a\x01b', ': empty', 'X-Fold: a\r\n folded', 'X-Long: ' + 'y'.repeat(2000)) }),
  cuts: fc.array(fc.nat(), { maxLength: 6 }),
  vanish: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

/** Renders a body, handing out ids unique in the run. */
class BodyRenderer {
  static #next = 0;

  id(): string {
    BodyRenderer.#next += 1;
    return `h${BodyRenderer.#next}`;
  }

  value(b: Body): unknown {
    switch (b.t) {
      case 'request':
        return b.params === undefined ? { jsonrpc: '2.0', id: this.id(), method: b.method } : { jsonrpc: '2.0', id: this.id(), method: b.method, params: b.params };
      case 'notification':
        return b.method === 'notifications/cancelled' ? { jsonrpc: '2.0', method: b.method, params: { requestId: 'nobody' } } : { jsonrpc: '2.0', method: b.method };
      case 'response':
        return { jsonrpc: '2.0', id: 'nobody', result: {} };
      case 'initialize':
        return { jsonrpc: '2.0', id: this.id(), method: 'initialize', params: b.broken ? { protocolVersion: 7 } : { protocolVersion: b.version, capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } };
      default:
        return undefined;
    }
  }

  bytes(b: Body): Buffer {
    switch (b.t) {
      case 'none':
        return Buffer.alloc(0);
      case 'batch':
        return Buffer.from(JSON.stringify(b.members.map((member) => this.value(member))));
      case 'mutated': {
        let text = this.bytes(b.base).toString();
        for (const [at, edit, char] of b.edits) {
          const i = text.length === 0 ? 0 : at % text.length;
          if (edit === 'delete') text = text.slice(0, i) + text.slice(i + 1);
          else if (edit === 'insert') text = text.slice(0, i) + char + text.slice(i);
          else if (edit === 'replace') text = text.slice(0, i) + char + text.slice(i + 1);
          else text = text.slice(0, i);
        }
        return Buffer.from(text);
      }
      case 'utf8': {
        const bytes = this.bytes(b.base);
        const i = b.at % (bytes.length + 1);
        return Buffer.concat([bytes.subarray(0, i), Buffer.from([0xc3]), bytes.subarray(i)]);
      }
      case 'deep':
        return Buffer.from(`{"jsonrpc":"2.0","id":"${this.id()}","method":"tools/call","params":{"name":"echo","arguments":{"d":${'['.repeat(b.depth)}${']'.repeat(b.depth)}}}}`);
      case 'proto':
        return Buffer.from(`{"__proto__":${b.value},"jsonrpc":"2.0","id":"${this.id()}","method":"tools/call","params":{"__proto__":${b.value},"name":"echo","arguments":{"__proto__":${b.value},"a":1}}}`);
      case 'hugeId':
        return Buffer.from(`{"jsonrpc":"2.0","id":${b.literal},"method":"ping"}`);
      case 'size': {
        const head = `{"jsonrpc":"2.0","id":"${this.id()}","method":"tools/call","params":{"name":"echo","arguments":{"pad":"`;
        const tail = '"}}}';
        return Buffer.from(head + 'x'.repeat(Math.max(0, MAX_BODY + b.over - head.length - tail.length)) + tail);
      }
      case 'text':
        return Buffer.from(b.text);
      default:
        return Buffer.from(JSON.stringify(this.value(b)));
    }
  }
}

interface Built {
  bytes: Buffer;
  /** Every part well-formed HTTP: the oracle knows the answer. */
  wellFormed: boolean;
  /** The request never ends as sent (the client then closes its side). */
  incomplete: boolean;
  /** The body as the server reads it (when well-formed). */
  body: Buffer;
}

/** The request as bytes, and what kind of request that is. */
function build(given: HttpInput, port: number, sessions: Record<Pool | 'C', string>, rendered: Buffer): Built {
  const lines = [`${given.method} ${given.path} ${given.version}`];
  let wellFormed = /^(GET|POST|DELETE|PUT|OPTIONS|HEAD|PATCH)$/.test(given.method) && /^HTTP\/1\.[01]$/.test(given.version)
    && given.garbageHeader === undefined && given.path !== '/%ff' && given.path !== '*' && given.path !== '/mcp#f';
  if (given.host === 'ok') lines.push(`Host: 127.0.0.1:${port}`);
  else if (given.host === 'localhost') lines.push(`Host: localhost:${port}`);
  else if (given.host === 'evil') lines.push('Host: evil.example');
  else if (given.host === 'twice') lines.push(`Host: 127.0.0.1:${port}`, `Host: 127.0.0.1:${port}`);
  else if (given.host === 'garbage') lines.push('Host: ::::');
  else wellFormed &&= given.version === 'HTTP/1.0';
  if (given.host === 'twice' || given.host === 'garbage') wellFormed = false;
  if (given.origin === 'loopback') lines.push('Origin: http://localhost:1234');
  else if (given.origin === 'evil') lines.push('Origin: https://evil.example');
  else if (given.origin === 'null') lines.push('Origin: null');
  else if (given.origin === 'garbage') lines.push('Origin: http://a b');
  else if (given.origin === 'twice') lines.push('Origin: http://localhost:1', 'Origin: http://localhost:2');
  if (given.accept !== undefined) lines.push(`Accept: ${given.accept}`);
  if (given.contentType !== undefined) lines.push(`Content-Type: ${given.contentType}`);
  if (given.session === 'A' || given.session === 'B') lines.push(`Mcp-Session-Id: ${sessions[given.session]}`);
  else if (given.session === 'unknown') lines.push('Mcp-Session-Id: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  else if (given.session === 'garbage') lines.push('Mcp-Session-Id: \t../%00"');
  else if (given.session === 'twice') lines.push(`Mcp-Session-Id: ${sessions.A}`, `Mcp-Session-Id: ${sessions.A}`);
  if (given.protocolVersion !== undefined) lines.push(`MCP-Protocol-Version: ${given.protocolVersion}`);
  if (given.lastEventId !== undefined) lines.push(`Last-Event-ID: ${given.lastEventId}`);
  if (given.garbageHeader !== undefined) lines.push(given.garbageHeader);
  let payload = rendered;
  let body = rendered;
  let incomplete = false;
  const f = given.framing;
  switch (f.t) {
    case 'length':
      lines.push(`Content-Length: ${rendered.length}`);
      break;
    case 'length-wrong':
      lines.push(`Content-Length: ${Math.max(0, rendered.length + f.delta)}`);
      wellFormed = false;
      incomplete = f.delta > 0;
      break;
    case 'length-twice':
      lines.push(`Content-Length: ${rendered.length}`, `Content-Length: ${f.same ? rendered.length : rendered.length + 1}`);
      wellFormed = false;
      incomplete = true;
      break;
    case 'length-garbage':
      lines.push(`Content-Length: ${f.value}`);
      wellFormed = false;
      incomplete = true;
      break;
    case 'chunked': {
      lines.push('Transfer-Encoding: chunked');
      const pieces: Buffer[] = [];
      let at = 0;
      for (const size of [...f.sizes, Number.MAX_SAFE_INTEGER]) {
        if (at >= rendered.length) break;
        const piece = rendered.subarray(at, at + size);
        at += piece.length;
        pieces.push(Buffer.from(`${piece.length.toString(16)}${f.extension ? ';x=1' : ''}\r\n`), piece, Buffer.from('\r\n'));
      }
      pieces.push(Buffer.from('0\r\n\r\n'));
      payload = Buffer.concat(pieces);
      wellFormed &&= given.version === 'HTTP/1.1';
      break;
    }
    case 'chunked-bad': {
      lines.push('Transfer-Encoding: chunked');
      const n = rendered.length.toString(16);
      if (f.how === 'hex') payload = Buffer.concat([Buffer.from('zz\r\n'), rendered, Buffer.from('\r\n0\r\n\r\n')]);
      else if (f.how === 'short') payload = Buffer.concat([Buffer.from(`${(rendered.length + 5).toString(16)}\r\n`), rendered, Buffer.from('\r\n0\r\n\r\n')]);
      else if (f.how === 'unterminated') payload = Buffer.concat([Buffer.from(`${n}\r\n`), rendered, Buffer.from('\r\n')]);
      else if (f.how === 'huge') payload = Buffer.concat([Buffer.from('ffffffffffffffffff\r\n'), rendered]);
      else if (f.how === 'lf') payload = Buffer.concat([Buffer.from(`${n}\n`), rendered, Buffer.from('\n0\n\n')]);
      else {
        lines.push(`Content-Length: ${rendered.length}`);
        payload = Buffer.concat([Buffer.from(`${n}\r\n`), rendered, Buffer.from('\r\n0\r\n\r\n')]);
      }
      wellFormed = false;
      incomplete = true;
      break;
    }
    case 'omitted':
      body = Buffer.alloc(0);
      // What was meant as a body is the next request (garbage) on the same connection.
      if (rendered.length > 0) wellFormed = false;
      break;
  }
  return { bytes: Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), payload]), wellFormed, incomplete, body };
}

type Outcome = { result: string } | { code: number };

/** What a well-formed request must get. */
interface Expected {
  status: number;
  /** The error of an HTTP refusal (a JSON-RPC error response as the body). */
  refusal?: { code: number; id: string | number | null };
  /** The answers of an exchange, by id; `batch`: the body is an array. */
  answers?: { byId: Map<string, Outcome>; nullCodes: number[]; batch: boolean };
  /** The request opens a session (initialize). */
  opens?: boolean;
  /** The request ends a pool session (DELETE). */
  deletes?: Pool;
  /** A GET that may be a stream or a refusal (Last-Event-ID resolution depends on the store). */
  anyOf?: number[];
}

const keyOf = (id: unknown): string => `${typeof id}:${String(id)}`;

const refuse = (status: number, code: number = ErrorCode.ConnectionClosed, id: string | number | null = null): Expected => ({ status, refusal: { code, id } });

const acceptsType = (header: string | undefined, type: string): boolean => {
  if (header === undefined) return false;
  const [major] = type.split('/');
  return header.split(',').some((range) => {
    const [media = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    return !params.some((param) => /^q=0(\.0*)?$/.test(param)) && (media === type || media === '*/*' || media === `${major}/*`);
  });
};

/** The outcome of one request message in a ready session of `version`. */
async function outcomeOf(message: { method: string; params?: JsonObject }, server: LocalServer): Promise<Outcome> {
  if (message.method === 'ping') return { result: '{}' };
  if (message.method === 'initialize') return { code: ErrorCode.InvalidRequest };
  try {
    const result = await server.handle(message, { signal: new AbortController().signal, session: undefined as never, downstream: undefined as never, progress: () => Promise.resolve() });
    try {
      return { result: JSON.stringify(result) };
    } catch {
      return { code: ErrorCode.InternalError };
    }
  } catch (error) {
    return { code: error instanceof McpError ? error.code : ErrorCode.InternalError };
  }
}

/**
 * What a well-formed request must get, following the front's order of checks: Host and Origin
 * (403), CORS preflight (204), path (404), MCP-Protocol-Version of a GET or DELETE (400), method
 * (405), then per method: Accept (406), Content-Type (415), body size (413) and syntax (400
 * -32700), a POST's MCP-Protocol-Version (400, with its lone request's id), session
 * (400, 404), batch allowed (400 -32600), each message (400 with its code and id, or the answers).
 */
async function expect(given: HttpInput, built: Built, server: LocalServer, full: boolean): Promise<Expected> {
  if (given.host === 'evil') return refuse(403);
  if (given.origin !== 'none' && given.origin !== 'loopback') return refuse(403);
  if (given.method === 'OPTIONS' && given.origin === 'loopback') return { status: 204 };
  const path = new URL(given.path, 'http://x').pathname;
  if (path !== '/mcp') return refuse(404);
  // An unsupported MCP-Protocol-Version: GET and DELETE are refused here; a POST's is checked
  // against its body (below), so that the refusal carries the request's id.
  const badVersion = given.protocolVersion !== undefined && !isSessionEraVersion(given.protocolVersion);
  if (badVersion && given.method !== 'POST') return refuse(400);
  const pool = given.session === 'A' || given.session === 'B' ? given.session : undefined;
  const findSession = (): Expected | undefined => {
    if (given.session === 'none') return refuse(400);
    if (pool === undefined) return refuse(404);
    return undefined;
  };
  if (given.method === 'DELETE') return findSession() ?? { status: 200, deletes: pool as Pool };
  if (given.method === 'GET') {
    if (!acceptsType(given.accept, 'text/event-stream')) return refuse(406);
    const missing = findSession();
    if (missing) return missing;
    const id = given.lastEventId;
    if (id === undefined || id === '' || id.startsWith('0-')) return { status: 200 };
    // An id the store may know (a POST stream of the session) is replayed, else refused.
    return { status: 400, anyOf: [200, 400] };
  }
  if (given.method !== 'POST') return refuse(405);
  if (!acceptsType(given.accept, 'application/json') || !acceptsType(given.accept, 'text/event-stream')) return refuse(406);
  if (!/^application\/json\s*(;|$)/i.test(given.contentType ?? '')) return refuse(415);
  const bytes = built.body;
  if (bytes.length > MAX_BODY) return refuse(413);
  if (!isUtf8(bytes)) return refuse(400, ErrorCode.ParseError);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return refuse(400, ErrorCode.ParseError);
  }
  const batch = Array.isArray(parsed);
  const values: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  if (values.length === 0) return refuse(400, ErrorCode.InvalidRequest);
  if (badVersion) {
    const lone = batch ? undefined : classifyMessage(values[0]);
    return refuse(400, ErrorCode.ConnectionClosed, lone?.kind === 'request' ? lone.message.id : null);
  }
  let version: string;
  if (given.session === 'none') {
    const first = classifyMessage(values[0]);
    if (batch || first.kind !== 'request' || first.message.method !== 'initialize') return refuse(400);
    if (full) return { status: 503, refusal: { code: ErrorCode.ConnectionClosed, id: null } };
    const requested = first.message.params?.protocolVersion;
    if (typeof requested !== 'string') return { status: 200, opens: true, answers: { byId: new Map([[keyOf(first.message.id), { code: ErrorCode.InvalidParams }]]), nullCodes: [], batch: false } };
    const offered = isSessionEraVersion(requested) ? requested : LATEST_SESSION_ERA_VERSION;
    return { status: 200, opens: true, answers: { byId: new Map([[keyOf(first.message.id), { result: `protocolVersion:${offered}` }]]), nullCodes: [], batch: false } };
  } else {
    const missing = findSession();
    if (missing) return missing;
    version = POOL_VERSIONS[pool as Pool];
  }
  if (batch && version !== '2025-03-26') return refuse(400, ErrorCode.InvalidRequest);
  const byId = new Map<string, Outcome>();
  const nullCodes: number[] = [];
  let requests = 0;
  for (const value of values) {
    const classified = classifyMessage(value);
    if (classified.kind === 'invalid') {
      if (!batch) return refuse(400, classified.error.code, classified.id);
      if (classified.id === null) nullCodes.push(classified.error.code);
      else byId.set(keyOf(classified.id), { code: classified.error.code });
      continue;
    }
    if (classified.kind !== 'request') continue;
    const { id, method } = classified.message;
    if (byId.has(keyOf(id))) {
      if (!batch) return refuse(400, ErrorCode.InvalidRequest, id);
      continue;
    }
    requests += 1;
    byId.set(keyOf(id), await outcomeOf(classified.message.params === undefined ? { method } : { method, params: classified.message.params }, server));
  }
  nullCodes.sort();
  if (requests === 0) return byId.size + nullCodes.length === 0 ? { status: 202 } : { status: 200, answers: { byId, nullCodes, batch } };
  return { status: 200, answers: { byId, nullCodes, batch } };
}

interface Response {
  status: number;
  headers: Map<string, string[]>;
  body: Buffer;
}

/** Reads HTTP responses off a socket, in order. */
class ResponseReader {
  #buffer = Buffer.alloc(0);
  #ended = false;
  #wake: (() => void) | undefined;
  readonly #socket: Socket;

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#wake?.();
    });
    const end = (): void => {
      this.#ended = true;
      this.#wake?.();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  async #more(deadline: number, what: string): Promise<boolean> {
    if (this.#ended) return false;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no ${what} within the deadline; got ${JSON.stringify(this.#buffer.toString('latin1').slice(0, 300))}`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
    return true;
  }

  /** The next complete response; undefined when the connection ends first (before any byte of it). */
  async next(deadline: number, head: boolean, stream = false): Promise<Response | undefined> {
    let end: number;
    while ((end = this.#buffer.indexOf('\r\n\r\n')) === -1) {
      if (!(await this.#more(deadline, 'response head'))) {
        if (this.#buffer.length === 0) return undefined;
        throw new Error(`the connection ended inside a response head: ${JSON.stringify(this.#buffer.toString('latin1').slice(0, 300))}`);
      }
    }
    const [statusLine = '', ...headerLines] = this.#buffer.subarray(0, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine)}`);
    const headers = new Map<string, string[]>();
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
    }
    const status = Number(match[1]);
    this.#buffer = this.#buffer.subarray(end + 4);
    // A GET's event stream stays open: its head is all there is to check.
    if (head || status === 204 || status === 304 || (stream && headers.get('content-type')?.[0]?.startsWith('text/event-stream'))) {
      return { status, headers, body: Buffer.alloc(0) };
    }
    const length = headers.get('content-length')?.[0];
    if (headers.get('transfer-encoding')?.[0] === 'chunked') {
      const pieces: Buffer[] = [];
      for (;;) {
        let nl: number;
        while ((nl = this.#buffer.indexOf('\r\n')) === -1) if (!(await this.#more(deadline, 'chunk size'))) throw new Error('the connection ended inside a chunked body');
        const size = parseInt(this.#buffer.subarray(0, nl).toString('latin1'), 16);
        while (this.#buffer.length < nl + 2 + size + 2) if (!(await this.#more(deadline, 'chunk'))) throw new Error('the connection ended inside a chunk');
        pieces.push(this.#buffer.subarray(nl + 2, nl + 2 + size));
        this.#buffer = this.#buffer.subarray(nl + 2 + size + 2);
        if (size === 0) return { status, headers, body: Buffer.concat(pieces) };
      }
    }
    if (length !== undefined) {
      const n = Number(length);
      while (this.#buffer.length < n) if (!(await this.#more(deadline, 'response body'))) throw new Error(`the connection ended after ${this.#buffer.length} of ${n} body bytes`);
      const body = this.#buffer.subarray(0, n);
      this.#buffer = this.#buffer.subarray(n);
      return { status, headers, body };
    }
    while (await this.#more(deadline, 'body up to the close'));
    const body = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    return { status, headers, body };
  }

  get ended(): boolean {
    return this.#ended;
  }

  destroy(): void {
    this.#socket.destroy();
  }
}

/** Opens a connection to the front. */
function open(port: number): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** One request of a valid client, on a fresh connection: its response. */
async function valid(port: number, method: string, headers: Record<string, string>, payload?: unknown): Promise<Response> {
  const text = payload === undefined ? '' : JSON.stringify(payload);
  const head = [`${method} /mcp HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Accept: application/json, text/event-stream', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  const socket = await open(port);
  const reader = new ResponseReader(socket);
  try {
    socket.write(head.join('\r\n') + '\r\n\r\n' + text);
    const response = await reader.next(Date.now() + 3000, false);
    if (!response) throw new Error(`no response to a valid ${method}`);
    return response;
  } finally {
    reader.destroy();
  }
}

async function initialize(port: number, version: string): Promise<string> {
  const response = await valid(port, 'POST', {}, { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } } });
  const id = response.headers.get('mcp-session-id')?.[0];
  if (response.status !== 200 || id === undefined) throw new Error(`initialize failed: ${response.status} ${response.body.toString()}`);
  await valid(port, 'POST', { 'Mcp-Session-Id': id, 'MCP-Protocol-Version': version }, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return id;
}

/** A JSON body that is a JSON-RPC response or a batch of them; the messages. */
function jsonRpcBody(response: Response): JsonObject[] {
  if (response.headers.get('content-type')?.[0] === 'text/event-stream') return sseMessages(response);
  let value: unknown;
  try {
    value = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new Error(`a JSON response that is not JSON: ${JSON.stringify(response.body.toString('latin1').slice(0, 300))}`);
  }
  const messages = Array.isArray(value) ? value : [value];
  for (const message of messages) {
    if (!isJsonObject(message) || message.jsonrpc !== '2.0' || !('id' in message) || ('result' in message) === ('error' in message)
      || ('error' in message && !(isJsonObject(message.error) && Number.isInteger(message.error.code) && typeof message.error.message === 'string'))) {
      throw new Error(`not a JSON-RPC response: ${JSON.stringify(message).slice(0, 300)}`);
    }
  }
  return messages as JsonObject[];
}

/**
 * The JSON-RPC responses of a POST's event stream (its events parsed as SSE: `data:` lines joined);
 * the notifications on it must be the progress tool's.
 */
function sseMessages(response: Response): JsonObject[] {
  const messages: JsonObject[] = [];
  for (const block of response.body.toString('utf8').split('\n\n')) {
    const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n');
    if (data === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      throw new Error(`an SSE event that is not JSON: ${JSON.stringify(data.slice(0, 300))}`);
    }
    if (isJsonObject(value) && value.method === 'notifications/progress' && !('id' in value)) continue;
    if (!isJsonObject(value) || value.jsonrpc !== '2.0' || !('id' in value) || ('result' in value) === ('error' in value)) {
      throw new Error(`not a JSON-RPC response on the stream: ${JSON.stringify(value).slice(0, 300)}`);
    }
    messages.push(value);
  }
  return messages;
}

/** Checks any response against what the spec allows at all. */
function checkAllowed(response: Response, head: boolean): void {
  if (!ALLOWED.has(response.status)) throw new Error(`status ${response.status} is not one the front may answer with`);
  if ((response.status === 503 || response.status === 429) && response.headers.get('retry-after') === undefined) throw new Error(`${response.status} without Retry-After`);
  const type = response.headers.get('content-type')?.[0];
  if (!head && (type === 'application/json' || (type === 'text/event-stream' && response.body.length > 0))) jsonRpcBody(response);
}

const describe = (r: Response): string => `${r.status} ${r.body.toString('latin1').slice(0, 300)}`;

function checkExpected(response: Response, want: Expected): void {
  if (want.anyOf ? !want.anyOf.includes(response.status) : response.status !== want.status) {
    throw new Error(`status ${response.status}, expected ${want.anyOf?.join(' or ') ?? want.status}: ${describe(response)}`);
  }
  if (want.anyOf && response.status !== want.status) return;
  if (want.refusal) {
    const [message] = jsonRpcBody(response);
    const error = isJsonObject(message?.error) ? message.error : undefined;
    if (error?.code !== want.refusal.code || keyOf(message?.id) !== keyOf(want.refusal.id)) {
      throw new Error(`refusal ${describe(response)}, expected code ${want.refusal.code} id ${JSON.stringify(want.refusal.id)}`);
    }
  }
  if (want.answers) {
    const messages = jsonRpcBody(response);
    // On an event stream each answer is an event of its own; as JSON, a batch's answers are an array.
    const isArray = response.body.toString('utf8').trimStart().startsWith('[');
    if (response.headers.get('content-type')?.[0] === 'application/json' && isArray !== want.answers.batch) throw new Error(`answer ${want.answers.batch ? 'not ' : ''}a batch: ${describe(response)}`);
    const seen = new Set<string>();
    const nullCodes: number[] = [];
    for (const message of messages) {
      if (message.id === null) {
        nullCodes.push(Number((message.error as JsonObject).code));
        continue;
      }
      const key = keyOf(message.id);
      if (seen.has(key)) throw new Error(`id ${key} answered twice: ${describe(response)}`);
      seen.add(key);
      const outcome = want.answers.byId.get(key);
      if (outcome === undefined) throw new Error(`an answer to no request (id ${key}): ${describe(response)}`);
      if ('code' in outcome) {
        if (!isJsonObject(message.error) || message.error.code !== outcome.code) throw new Error(`id ${key}: expected error ${outcome.code}: ${describe(response)}`);
      } else if (outcome.result.startsWith('protocolVersion:')) {
        if (!isJsonObject(message.result) || `protocolVersion:${String(message.result.protocolVersion)}` !== outcome.result) throw new Error(`initialize: expected ${outcome.result}: ${describe(response)}`);
      } else if (JSON.stringify(message.result) !== outcome.result) {
        throw new Error(`id ${key}: expected result ${outcome.result.slice(0, 200)}: ${describe(response)}`);
      }
    }
    for (const key of want.answers.byId.keys()) if (!seen.has(key)) throw new Error(`id ${key} not answered: ${describe(response)}`);
    if (JSON.stringify(nullCodes.sort()) !== JSON.stringify(want.answers.nullCodes)) throw new Error(`errors with id null ${JSON.stringify(nullCodes)}, expected ${JSON.stringify(want.answers.nullCodes)}`);
  }
}

/** A front on a free port, with the pool's sessions open. */
async function startFront(server: LocalServer): Promise<Pick<Fixture, 'front' | 'port' | 'server' | 'sessions'>> {
  const front = await serveHttp(server, { host: '127.0.0.1', port: 0, maxBodyBytes: MAX_BODY, maxSessions: MAX_SESSIONS, sseKeepAliveMs: 0, log: silentLogger });
  const port = Number(new URL(front.url).port);
  return {
    front,
    port,
    server,
    sessions: { A: await initialize(port, POOL_VERSIONS.A), B: await initialize(port, POOL_VERSIONS.B), C: await initialize(port, POOL_VERSIONS.C) },
  };
}

interface Fixture {
  front: HttpFront;
  port: number;
  server: LocalServer;
  sessions: Record<Pool | 'C', string>;
  errors: unknown[];
  control: number;
}

async function checkInput(given: HttpInput, fx: Fixture): Promise<void> {
  const rendered = new BodyRenderer().bytes(given.body);
  const built = build(given, fx.port, fx.sessions, rendered);
  const full = fx.front.sessions >= MAX_SESSIONS;
  const expected = built.wellFormed ? await expect(given, built, fx.server, full) : undefined;
  // A HEAD answer has no body to check.
  const want = expected && given.method === 'HEAD' ? { status: expected.status } : expected;
  const opened: string[] = [];
  const socket = await open(fx.port);
  const reader = new ResponseReader(socket);
  try {
    const cuts = [...new Set(given.cuts.map((cut) => cut % (built.bytes.length + 1)))].sort((a, b) => a - b);
    let from = 0;
    for (const cut of [...cuts, built.bytes.length]) {
      if (cut > from) socket.write(built.bytes.subarray(from, cut));
      from = Math.max(from, cut);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (given.vanish) {
      socket.destroy();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // A request that never ends as sent: the client gives up its side, the server must let go.
    if (built.incomplete && !given.vanish) socket.end();
    const deadline = Date.now() + 3000;
    const first = given.vanish ? undefined : await reader.next(deadline, given.method === 'HEAD', given.method !== 'POST');
    if (given.vanish) {
      // Nothing to read: what matters is what the front does next.
    } else if (first === undefined) {
      if (want !== undefined || !built.incomplete) throw new Error('the connection closed without a response');
    } else {
      const session = first.headers.get('mcp-session-id')?.[0];
      if (session !== undefined && !Object.values(fx.sessions).includes(session)) opened.push(session);
      checkAllowed(first, given.method === 'HEAD');
      if (want !== undefined) {
        checkExpected(first, want);
        if (want.opens === true && first.status === 200 && session === undefined) {
          const [answer] = jsonRpcBody(first);
          if (isJsonObject(answer?.result)) throw new Error('initialize answered without an Mcp-Session-Id');
        }
        if (want.deletes !== undefined) fx.sessions[want.deletes] = await initialize(fx.port, POOL_VERSIONS[want.deletes]);
      }
    }
  } finally {
    reader.destroy();
  }
  if ((want === undefined || given.vanish) && given.method === 'DELETE') {
    // A malformed DELETE is acted on once its head is read (its body is never read), even when
    // its answer is lost to the broken framing: make the pool whole again.
    for (const pool of ['A', 'B'] as const) {
      const probe = await valid(fx.port, 'POST', { 'Mcp-Session-Id': fx.sessions[pool] }, { jsonrpc: '2.0', id: 'probe', method: 'ping' });
      if (probe.status === 404) fx.sessions[pool] = await initialize(fx.port, POOL_VERSIONS[pool]);
    }
  }
  // The front still serves a valid request on a fresh connection.
  fx.control += 1;
  const id = `ctl-${fx.control}`;
  const after = await valid(fx.port, 'POST', { 'Mcp-Session-Id': fx.sessions.C, 'MCP-Protocol-Version': POOL_VERSIONS.C }, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { n: fx.control } } });
  const [answer] = after.status === 200 ? jsonRpcBody(after) : [];
  if (answer?.id !== id || !isJsonObject(answer.result) || JSON.stringify(answer.result.structuredContent) !== JSON.stringify({ n: fx.control })) {
    throw new Error(`a valid call after the input was not served: ${describe(after)}`);
  }
  // Sessions the input opened are ended, and the count comes back to the pool's.
  for (const session of opened) {
    const ended = await valid(fx.port, 'DELETE', { 'Mcp-Session-Id': session });
    if (ended.status !== 200 && ended.status !== 404) throw new Error(`DELETE of a session the input opened: ${describe(ended)}`);
  }
  const until = Date.now() + 2000;
  if (given.vanish && given.method === 'POST' && given.session === 'none') {
    // An initialize whose client vanished may have opened a session nobody can name (it ends
    // after the session TTL): at most one. A fresh front for the next inputs.
    while (fx.front.sessions < 3 || fx.front.sessions > 4) {
      if (Date.now() > until) throw new Error(`${fx.front.sessions} sessions live after a vanished initialize, expected the pool's 3 and at most one more`);
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    }
    await fx.front.close();
    Object.assign(fx, await startFront(fx.server));
  }
  while (fx.front.sessions !== 3) {
    // Fewer: a pool session ended that no DELETE named.
    if (Date.now() > until) throw new Error(`${fx.front.sessions} sessions live after the input, expected the pool's 3`);
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
  if (fx.errors.length > 0) throw new Error(`unhandled: ${fx.errors.map(String).join('; ')}`);
}

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'http-front',
    invariant: 'whatever bytes an HTTP client sends, it gets one complete response with a status the spec allows for that case (the exact one, with the right JSON-RPC error code and id, when the request is well-formed), a valid request on a fresh connection is served after it, and the sessions it opened do not outlive it',
    arbitrary: input,
    quickRuns: 300,
    inputTimeoutMs: 10_000,
    open: async () => {
      const errors: unknown[] = [];
      const onError = (error: unknown): void => void errors.push(error);
      process.on('unhandledRejection', onError);
      process.on('uncaughtException', onError);
      const fx: Fixture = { ...(await startFront(echo())), errors, control: 0 };
      return {
        check: (given: HttpInput) => checkInput(given, fx),
        close: async () => {
          await fx.front.close();
          process.off('unhandledRejection', onError);
          process.off('uncaughtException', onError);
        },
      };
    },
  }),
];

// The HTTP upstream with an UpstreamAuth (`http({ auth })`): a scripted authorizer and a raw
// node:http MCP server that checks the bearer token of every request and refuses with 401 or 403.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { LoginRequiredError } from '../../auth/client/login-required-error.js';
import type { Principal, UpstreamAuth, UpstreamRefusal } from '../../auth/upstream-auth.js';
import { chain } from '../../chain/chain.js';
import { ChainError } from '../../errors/chain-error.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness, type Harness } from '../../testing/harness.js';
import type { Upstream } from '../../core/upstream.js';
import { http } from './http.js';
import { sse } from './sse.js';
import { URL_ELICITATION_REQUIRED } from './session-auth.js';

interface Seen {
  readonly method: string;
  readonly rpc: string | undefined;
  readonly authorization: string | undefined;
}

/** What the server answers a request whose token it does not take. */
interface Refusal {
  readonly status: 401 | 403;
  readonly challenge: string;
}

/** A Streamable HTTP MCP server taking the bearer tokens in `valid` only. */
class TokenCheckingServer {
  readonly seen: Seen[] = [];
  valid = new Set<string>(['t1']);
  refusal: Refusal = { status: 401, challenge: 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"' };
  /** How many GETs to refuse whatever their token. */
  refuseGets = 0;
  readonly #server: Server = createServer((request, response) => void this.#handle(request, response));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/mcp`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The requests seen since `from`, as `METHOD rpc authorization`. */
  since(from: number): string[] {
    return this.seen.slice(from).map((s) => `${s.method} ${s.rpc ?? '-'} ${s.authorization ?? 'none'}`);
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = chunks.length === 0 ? undefined : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject);
    const authorization = request.headers.authorization;
    this.seen.push({ method: request.method ?? '', rpc: typeof body?.method === 'string' ? body.method : undefined, authorization });
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
    const refuseGet = request.method === 'GET' && this.refuseGets > 0;
    if (refuseGet) this.refuseGets--;
    if (token === undefined || !this.valid.has(token) || refuseGet) {
      response.writeHead(this.refusal.status, { 'www-authenticate': this.refusal.challenge, 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    if (request.method === 'GET') {
      response.writeHead(405).end();
      return;
    }
    if (request.method === 'DELETE' || body === undefined || !('id' in body)) {
      response.writeHead(request.method === 'DELETE' ? 200 : 202).end();
      return;
    }
    const result = body.method === 'initialize'
      ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'token-checking', version: '1.0.0' } }
      : { content: [{ type: 'text', text: `called with ${token}` }] };
    response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' });
    response.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
  }
}

/** A legacy HTTP+SSE server (2024-11-05) taking the bearer tokens in `valid` only: GET /sse, POST /messages. */
class LegacyTokenCheckingServer {
  readonly seen: string[] = [];
  valid = new Set<string>(['t1']);
  readonly #server: Server = createServer((request, response) => void this.#handle(request, response));
  #stream: ServerResponse | undefined;
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/sse`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const authorization = request.headers.authorization;
    this.seen.push(`${request.method ?? ''} ${request.url ?? ''} ${authorization ?? 'none'}`);
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
    if (token === undefined || !this.valid.has(token)) {
      response.writeHead(401, { 'www-authenticate': 'Bearer realm="legacy"' }).end();
      return;
    }
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: endpoint\ndata: /messages\n\n');
      this.#stream = response;
      return;
    }
    response.writeHead(202).end();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject;
    if (!('id' in body)) return;
    const result = body.method === 'initialize'
      ? { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1.0.0' } }
      : { content: [{ type: 'text', text: `called with ${token}` }] };
    this.#stream?.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result })}\n\n`);
  }
}

/** An UpstreamAuth whose answers the test decides. */
class ScriptedAuth implements UpstreamAuth {
  token: string | undefined = 't1';
  readonly principals: Principal[] = [];
  readonly refusals: UpstreamRefusal[] = [];
  /** What `refused` does (default: nothing better; the request is sent again with the same token). */
  onRefused: (refusal: UpstreamRefusal) => Promise<void> = () => Promise.resolve();
  closed = false;

  authorization(principal: Principal): Promise<string | undefined> {
    this.principals.push(principal);
    return Promise.resolve(this.token === undefined ? undefined : `Bearer ${this.token}`);
  }

  refused(_principal: Principal, refusal: UpstreamRefusal): Promise<void> {
    this.refusals.push(refusal);
    return this.onRefused(refusal);
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

function text(result: JsonObject): string | undefined {
  return (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
}

/** A session whose setup (initialize, notifications/initialized, the GET stream) is over: one call went through. */
async function open(upstream: Upstream, capabilities: JsonObject = {}): Promise<Harness> {
  const h = await harness(chain().to(upstream), { capabilities });
  assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'called with t1');
  return h;
}

async function callError(h: Harness): Promise<McpError> {
  const error = await h.request('tools/call', { name: 'echo', arguments: {} }).then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof McpError, `expected an error, got ${String(error)}`);
  return error;
}

describe('http upstream with an UpstreamAuth', () => {
  const server = new TokenCheckingServer();
  let auth: ScriptedAuth;
  let upstream: Upstream;
  before(() => server.start());
  after(() => server.stop());
  beforeEach(() => {
    server.valid = new Set(['t1']);
    server.refuseGets = 0;
    server.refusal = { status: 401, challenge: 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"' };
    auth = new ScriptedAuth();
    upstream = http({ url: server.url, auth });
  });

  test('every request (initialize, notifications, calls, the GET stream, DELETE) carries the token of the session\'s principal', async () => {
    const from = server.seen.length;
    const h = await harness(chain().to(upstream));
    assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'called with t1');
    await h.close();
    await upstream.close?.();
    const seen = server.since(from);
    for (const method of ['POST initialize', 'POST notifications/initialized', 'GET -', 'POST tools/call', 'DELETE -']) {
      assert.ok(seen.includes(`${method} Bearer t1`), `${method} in ${JSON.stringify(seen)}`);
    }
    assert.ok(seen.every((line) => line.endsWith('Bearer t1')), JSON.stringify(seen));
    // Stdio has no identity: the person running mcp-chain.
    assert.ok(auth.principals.length > 0 && auth.principals.every((p) => p.key === 'local'));
    assert.deepEqual(auth.refusals, []);
    // The caller's object is the caller's to close.
    assert.equal(auth.closed, false);
  });

  test('a 401 is reported with the challenge and the refused Authorization; the request goes once more with the new token', async () => {
    const h = await open(upstream);
    server.valid = new Set(['t2']);
    auth.onRefused = () => {
      auth.token = 't2';
      return Promise.resolve();
    };
    const from = server.seen.length;
    assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'called with t2');
    assert.deepEqual(server.since(from), ['POST tools/call Bearer t1', 'POST tools/call Bearer t2']);
    assert.deepEqual(auth.refusals, [{ status: 401, challenge: server.refusal.challenge, sent: 'Bearer t1' }]);
    await h.close();
  });

  test('the standalone GET stream refused: reported, and opened again with the new token', async () => {
    server.valid = new Set(['t1', 't2']);
    server.refuseGets = 1;
    auth.onRefused = () => {
      auth.token = 't2';
      return Promise.resolve();
    };
    const from = server.seen.length;
    const h = await harness(chain().to(upstream));
    // The call waits for the stream (notifications/initialized does): the new token by then.
    assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'called with t2');
    assert.deepEqual(server.since(from).filter((line) => line.startsWith('GET')), ['GET - Bearer t1', 'GET - Bearer t2']);
    assert.deepEqual(auth.refusals.map((r) => [r.status, r.sent]), [[401, 'Bearer t1']]);
    await h.close();
  });

  test('a second 401 is the answer (-32000 naming the status): no loop', async () => {
    const h = await open(upstream);
    server.valid = new Set();
    auth.onRefused = () => {
      auth.token = 't2';
      return Promise.resolve();
    };
    const from = server.seen.length;
    const error = await callError(h);
    assert.equal(error.code, -32000);
    assert.match(error.message, /answered HTTP 401/);
    assert.deepEqual(server.since(from), ['POST tools/call Bearer t1', 'POST tools/call Bearer t2']);
    assert.equal(auth.refusals.length, 1);
    await h.close();
  });

  test('no token yet: the request goes without Authorization, and the 401 asks for one', async () => {
    auth.token = undefined;
    auth.onRefused = () => {
      auth.token = 't1';
      return Promise.resolve();
    };
    const from = server.seen.length;
    const h = await harness(chain().to(upstream));
    // The server/discover probe meets the 401 first and starts no login; initialize does, and goes again with the token.
    assert.deepEqual(server.since(from).slice(0, 3), ['POST server/discover none', 'POST initialize none', 'POST initialize Bearer t1']);
    assert.deepEqual(auth.refusals, [{ status: 401, challenge: server.refusal.challenge, sent: undefined }]);
    await h.close();
  });

  test('a 403 with error="insufficient_scope" is a refusal too (step-up); another 403 is not', async () => {
    const h = await open(upstream);
    server.valid = new Set(['t2']);
    server.refusal = { status: 403, challenge: 'Bearer error="insufficient_scope", scope="files:write"' };
    auth.onRefused = () => {
      auth.token = 't2';
      return Promise.resolve();
    };
    assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'called with t2');
    assert.deepEqual(auth.refusals, [{ status: 403, challenge: 'Bearer error="insufficient_scope", scope="files:write"', sent: 'Bearer t1' }]);

    server.valid = new Set();
    server.refusal = { status: 403, challenge: 'Bearer error="invalid_token"' };
    const error = await callError(h);
    assert.match(error.message, /answered HTTP 403/);
    assert.equal(auth.refusals.length, 1);
    await h.close();
  });

  test('a login needed, for a client without URL elicitation: -32000 with the login URL and command, in the message and in data', async () => {
    const h = await open(upstream);
    server.valid = new Set();
    const url = 'https://as.example/authorize?client_id=abc&state=xyz';
    auth.onRefused = () => Promise.reject(new LoginRequiredError('remote', { url, command: 'mcp-chain auth login remote', completion: new Promise<void>(() => undefined) }));
    const error = await callError(h);
    assert.equal(error.code, -32000);
    assert.ok(error.message.includes(url) && error.message.includes('mcp-chain auth login remote'), error.message);
    assert.deepEqual(error.data, { server: 'remote', login: 'mcp-chain auth login remote', url });
    await h.close();
  });

  test('a login needed without a URL (none started here): -32000 naming the command', async () => {
    const h = await open(upstream, { elicitation: { url: {} } });
    server.valid = new Set();
    auth.onRefused = () => Promise.reject(new LoginRequiredError('remote', { command: 'mcp-chain auth login remote' }));
    const error = await callError(h);
    assert.equal(error.code, -32000);
    assert.deepEqual(error.data, { server: 'remote', login: 'mcp-chain auth login remote' });
    await h.close();
  });

  test('a login needed, for a client with URL elicitation: -32042 with one URL elicitation per login, then notifications/elicitation/complete once it ends, and the retry works', async () => {
    const h = await open(upstream, { elicitation: { url: {}, form: {} } });
    server.valid = new Set(['t2']);
    const url = 'https://as.example/authorize?client_id=abc&state=xyz';
    let complete = (): void => undefined;
    const completion = new Promise<void>((resolve) => {
      complete = resolve;
    });
    auth.onRefused = () => Promise.reject(new LoginRequiredError('remote', { url, command: 'mcp-chain auth login remote', completion }));
    const [first, second] = await Promise.all([callError(h), callError(h)]);
    assert.equal(first.code, URL_ELICITATION_REQUIRED);
    const data = first.data as { elicitations: Array<{ mode: string; elicitationId: string; url: string; message: string }> };
    assert.equal(data.elicitations.length, 1);
    const [elicitation] = data.elicitations;
    assert.ok(elicitation);
    assert.equal(elicitation.mode, 'url');
    assert.equal(elicitation.url, url);
    assert.match(elicitation.elicitationId, /^[0-9a-f-]{36}$/);
    assert.match(elicitation.message, /remote/);
    // The same login: the same elicitation.
    assert.deepEqual(second.data, first.data);

    const notified = h.notification('notifications/elicitation/complete');
    auth.token = 't2';
    complete();
    assert.deepEqual((await notified).params, { elicitationId: elicitation.elicitationId });
    assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'called with t2');
    assert.equal(h.notifications('notifications/elicitation/complete').length, 1);
    await h.close();
  });

  test('a failed login completes the elicitation too (the client may retry and get a new URL)', async () => {
    const h = await open(upstream, { elicitation: { url: {} } });
    server.valid = new Set();
    let fail = (_error: Error): void => undefined;
    const completion = new Promise<void>((_resolve, reject) => {
      fail = reject;
    });
    auth.onRefused = () => Promise.reject(new LoginRequiredError('remote', { url: 'https://as.example/a', command: 'mcp-chain auth login remote', completion }));
    const error = await callError(h);
    const notified = h.notification('notifications/elicitation/complete');
    fail(new Error('access_denied'));
    assert.deepEqual((await notified).params, { elicitationId: (error.data as { elicitations: Array<{ elicitationId: string }> }).elicitations[0]?.elicitationId });
    await h.close();
  });

  test('the authorization server failing: -32000 saying no token could be had', async () => {
    const h = await open(upstream);
    server.valid = new Set();
    auth.onRefused = () => Promise.reject(new Error('the token endpoint answered HTTP 500'));
    const error = await callError(h);
    assert.equal(error.code, -32000);
    assert.match(error.message, /could not be given an access token: the token endpoint answered HTTP 500/);
    await h.close();
  });

  test('the token store failing before the request: -32000 too, nothing sent', async () => {
    const h = await open(upstream);
    auth.authorization = () => Promise.reject(new Error('the token file is corrupt'));
    const from = server.seen.length;
    const error = await callError(h);
    assert.match(error.message, /could not be given an access token: the token file is corrupt/);
    assert.deepEqual(server.since(from), []);
    await h.close();
  });

  test('ending the session with a refused token does not ask for a new one (no login started by a close)', async () => {
    const h = await open(upstream);
    server.valid = new Set();
    const from = server.seen.length;
    await h.close();
    assert.deepEqual(server.since(from), ['DELETE - Bearer t1']);
    assert.deepEqual(auth.refusals, []);
  });

  test('the legacy HTTP+SSE transport: the stream and every POST carry the token; a refused POST is reported and sent once more', async () => {
    const legacy = new LegacyTokenCheckingServer();
    await legacy.start();
    const upstream = sse({ url: legacy.url, auth });
    try {
      const h = await open(upstream);
      legacy.valid = new Set(['t2']);
      auth.onRefused = () => {
        auth.token = 't2';
        return Promise.resolve();
      };
      // The stream opened with t1 stays; the POST with t1 is refused, and sent again with t2.
      assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: {} })), 'called with t2');
      await h.close();
      assert.ok(legacy.seen.every((line) => !line.endsWith(' none')), JSON.stringify(legacy.seen));
      assert.deepEqual(legacy.seen.filter((line) => line.startsWith('GET')), ['GET /sse Bearer t1']);
      assert.deepEqual(legacy.seen.slice(-2), ['POST /messages Bearer t1', 'POST /messages Bearer t2']);
      assert.equal(auth.refusals.length, 1);
    } finally {
      await upstream.close?.();
      await legacy.stop();
    }
  });

  test('OAuth and a static Authorization are a configuration error', () => {
    assert.throws(() => http({ url: server.url, auth, bearer: 'static' }), (e: unknown) => e instanceof ChainError && /not both/.test(e.message));
    assert.throws(() => http({ url: server.url, auth, headers: { Authorization: 'Bearer static' } }), (e: unknown) => e instanceof ChainError && /not both/.test(e.message));
  });
});

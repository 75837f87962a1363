// Raw HTTP for tests of the Streamable HTTP front: what a client puts on the wire, and what comes
// back (status, headers, JSON body or SSE events), without an SDK in between. Every wait has a
// deadline (HTTP_WAIT_MS, a safety net): a reply or event that never comes fails the test, saying
// which, instead of hanging it.
import { createServer } from 'node:net';
import { withDeadline } from '../../src/testing/with-deadline.js';

/** How long `send`, `openStream` and a stream's `next` wait before failing. */
export const HTTP_WAIT_MS = 30_000;

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

export interface HttpReply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
  /** The body parsed as SSE events, when it is an event stream. */
  events: SseEvent[];
  /** The JSON-RPC messages of the body, whichever form it has (priming events left out). */
  messages: unknown[];
}

export const ACCEPT_BOTH = 'application/json, text/event-stream';
export const LATEST = '2025-11-25';

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (block.trim() === '') continue;
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon === 0) continue;
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') event.id = value;
      else if (field === 'event') event.event = value;
      else if (field === 'data') data.push(value);
    }
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}

/** Sends one HTTP request and reads the whole answer (within `timeoutMs`, default {@link HTTP_WAIT_MS}). */
export function send(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpReply> {
  const what = (): string => `the reply to ${init.method ?? 'POST'} ${url}${init.body === undefined ? '' : ` ${String(typeof init.body === 'string' ? init.body : JSON.stringify(init.body)).slice(0, 120)}`}`;
  return withDeadline(exchange(url, init), { what, timeoutMs: init.timeoutMs ?? HTTP_WAIT_MS });
}

async function exchange(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<HttpReply> {
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const response = await fetch(url, {
    method: init.method ?? 'POST',
    headers: {
      ...(init.method === undefined || init.method === 'POST' ? { 'content-type': 'application/json', accept: ACCEPT_BOTH } : {}),
      ...init.headers,
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  let json: unknown;
  if (type.startsWith('application/json') && text !== '') json = JSON.parse(text);
  const events = type.startsWith('text/event-stream') ? parseSse(text) : [];
  const messages = json === undefined
    ? events.filter((e) => e.data !== '').map((e) => JSON.parse(e.data) as unknown)
    : Array.isArray(json) ? json : [json];
  return { status: response.status, headers: response.headers, text, json, events, messages };
}

export function initializeRequest(version = LATEST, id: number | string = 1): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: { elicitation: {} }, clientInfo: { name: 'raw-http-test', version: '1' } },
  };
}

/** Initializes a session (and sends `notifications/initialized`); returns its headers for later requests. */
export async function openSession(
  url: string,
  options: { version?: string; headers?: Record<string, string> } = {},
): Promise<{ id: string; headers: Record<string, string> }> {
  const version = options.version ?? LATEST;
  const reply = await send(url, { body: initializeRequest(version), headers: options.headers ?? {} });
  const id = reply.headers.get('mcp-session-id');
  if (reply.status !== 200 || id === null) throw new Error(`initialize failed: ${reply.status} ${reply.text}`);
  const headers = { ...options.headers, 'mcp-session-id': id, 'mcp-protocol-version': version };
  const initialized = await send(url, { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers });
  if (initialized.status !== 202) throw new Error(`initialized: ${initialized.status}`);
  return { id, headers };
}

/** An SSE stream read as it comes. */
export interface OpenStream {
  status: number;
  headers: Headers;
  /** The next event (waits for it); rejects if the stream ends first. */
  next(): Promise<SseEvent>;
  /** Drops the connection. */
  close(): void;
}

export async function openStream(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> },
): Promise<OpenStream> {
  const controller = new AbortController();
  const method = init.method ?? 'GET';
  const response = await withDeadline(fetch(url, {
    method,
    headers: { accept: method === 'GET' ? 'text/event-stream' : ACCEPT_BOTH, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: controller.signal,
  }), { what: `the response headers of ${method} ${url}`, timeoutMs: HTTP_WAIT_MS }, { onTimeout: () => controller.abort() });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: SseEvent[] = [];
  const read = async (): Promise<SseEvent> => {
    for (;;) {
      const queued = queue.shift();
      if (queued) return queued;
      const cut = buffer.indexOf('\n\n');
      if (cut !== -1) {
        queue.push(...parseSse(buffer.slice(0, cut + 2)));
        buffer = buffer.slice(cut + 2);
        continue;
      }
      const chunk = await reader?.read();
      if (!chunk || chunk.done) throw new Error('the stream ended');
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  let events = 0;
  const next = (): Promise<SseEvent> => withDeadline(read(), { what: `event ${++events} of the stream of ${method} ${url}`, timeoutMs: HTTP_WAIT_MS });
  return {
    status: response.status,
    headers: response.headers,
    next,
    close: () => controller.abort(),
  };
}

/** The response to request `id` among a reply's messages (JSON or SSE), or undefined. */
export function answerTo(reply: HttpReply, id: number | string): { result?: Record<string, unknown>; error?: { code: number; message: string } } | undefined {
  return reply.messages.find((m): m is { id: unknown } => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id && !('method' in m)) as
    | { result?: Record<string, unknown>; error?: { code: number; message: string } }
    | undefined;
}

/** A free loopback port, for a server whose URL must be known before it listens (an OAuth resource identifier). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

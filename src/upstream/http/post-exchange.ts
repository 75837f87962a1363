// The POST exchange of Streamable HTTP: one message POSTed, and its 2xx answer read (JSON, an SSE
// stream, or nothing for a notification). What a non-2xx answer means is the transport's to decide.
import { claimsStatelessEra, ENVELOPE_META } from '../../eras/stateless-envelope.js';
import { statelessRequestHeaders } from '../../eras/stateless-headers.js';
import { paramHeaderValues } from '../../eras/param-headers.js';
import type { ToolHeaderMap } from '../../eras/tool-header-map.js';
import type { IncomingMessage } from 'node:http';
import type { JsonRpcId, JsonRpcMessage } from '../../message/jsonrpc.js';
import { encodeMessage } from '../../message/raw-json.js';
import { answersRequest } from './answers-request.js';
import { readAnswerStream } from './answer-stream.js';
import { drainResponse } from './drain-response.js';
import { mediaType } from './http-refusal.js';
import { readResponseBytes } from './read-response-text.js';
import { networkCause, transportError } from './transport-error.js';
import { UpstreamAuthFailure } from './upstream-auth-failure.js';
import type { UpstreamSession } from './upstream-session.js';

const ACCEPT_BOTH = 'application/json, text/event-stream';

/**
 * POSTs one message with the session's headers (none for `initialize`), and its access token when
 * the server wants OAuth. Resolves with the response (its body not read yet), or undefined when the
 * server could not be reached: the message has then failed (its request is answered with -32000)
 * and the connection is down; or when no access token could be had: its request is answered with
 * the login URL (`SessionAuth.error`). An aborted POST fails nothing.
 */
export async function sendPost(
  session: UpstreamSession,
  message: JsonRpcMessage,
  signal: AbortSignal,
  toolHeaders?: ToolHeaderMap,
): Promise<IncomingMessage | undefined> {
  const initialize = 'method' in message && message.method === 'initialize';
  const { client, target, status, auth } = session.options;
  const stateless = statelessHeadersOf(message, toolHeaders);
  const base = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
  const call = {
    method: 'POST',
    // A request of the stateless era names itself in headers, and belongs to no session.
    headers: stateless === undefined ? session.headers(base, initialize) : { ...target.headers, ...base, ...stateless },
    body: encodeMessage(message),
    signal,
  } as const;
  try {
    // A server/discover probe never starts a login: initialize, which follows a refused probe, does.
    const probe = 'method' in message && message.method === 'server/discover';
    return await (auth ? auth.send(client, target.url, call, !probe) : client.send(target.url, call));
  } catch (error) {
    if (signal.aborted) return undefined;
    if (error instanceof UpstreamAuthFailure) {
      session.fail(message, session.authError(error));
      return undefined;
    }
    const unreachable = `is unreachable: ${networkCause(error)}`;
    status.down(unreachable);
    session.fail(message, transportError(target.server, unreachable));
    return undefined;
  }
}

/**
 * Reads a 2xx answer to a POST: notes the session id the answer to `initialize` carries; a
 * notification or response gets no body; a request's answer is one JSON body or an SSE stream
 * (resumed if it breaks). Whatever goes wrong answers request `id` with an error.
 */
export async function readPostAnswer(session: UpstreamSession, message: JsonRpcMessage, id: JsonRpcId | undefined, response: IncomingMessage, signal: AbortSignal): Promise<void> {
  if ('method' in message && message.method === 'initialize') {
    const header = response.headers['mcp-session-id'];
    session.id = typeof header === 'string' && header !== '' ? header : undefined;
    session.expired = false;
    // Which headers go with every request, by name only: their values may be secrets.
    const { server, headers } = session.options.target;
    session.options.log.debug('upstream session opened', { server, headers: Object.keys(headers) });
  }
  if (id === undefined) {
    drainResponse(response);
    return;
  }
  const type = mediaType(response);
  const { server, maxMessageBytes } = session.options.target;
  if (type === 'text/event-stream') {
    await readAnswerStream(session, id, response, signal);
  } else if (type === 'application/json') {
    const body = await readResponseBytes(response, maxMessageBytes).catch(() => null);
    if (body === null) {
      if (!signal.aborted) session.inbox.fail(id, transportError(server, 'broke the connection while answering'));
    } else if (body === undefined) {
      session.inbox.fail(id, transportError(server, `answered with more than ${maxMessageBytes} bytes`));
    } else if (!answersRequest(session.inbox.receiveBytes(body), id)) {
      session.inbox.fail(id, transportError(server, 'answered without a response to the request'));
    }
  } else {
    drainResponse(response);
    session.inbox.fail(id, transportError(server, `answered HTTP ${response.statusCode ?? 0} with ${type === '' ? 'no content type' : type}, not JSON or an SSE stream`));
  }
}

/**
 * The 2026-07-28 headers of a request whose `_meta` claims that era, else undefined; for a
 * `tools/call`, the `Mcp-Param-*` headers its tool declares (`x-mcp-header`), as far as
 * `toolHeaders` knows the server's tools.
 */
function statelessHeadersOf(message: JsonRpcMessage, toolHeaders: ToolHeaderMap | undefined): Record<string, string> | undefined {
  if (!('method' in message) || !claimsStatelessEra(message.params)) return undefined;
  const version = (message.params?._meta as Record<string, unknown>)[ENVELOPE_META.protocolVersion];
  if (typeof version !== 'string') return undefined;
  const headers = statelessRequestHeaders(message.method, message.params, version);
  const name = message.params?.name;
  if (message.method !== 'tools/call' || typeof name !== 'string' || toolHeaders === undefined) return headers;
  const declared = toolHeaders.headersOf(name);
  return declared === undefined || declared.length === 0 ? headers : { ...headers, ...paramHeaderValues(declared, message.params?.arguments) };
}

import type { IncomingMessage } from 'node:http';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonRpcErrorObject, JsonRpcId } from '../../message/jsonrpc.js';
import { answersRequest } from './answers-request.js';
import { delay } from './delay.js';
import { httpRefusal, mediaType } from './http-refusal.js';
import { readWithCursor, sseCursor, type SseCursor } from './sse-cursor.js';
import { networkCause, transportError } from './transport-error.js';
import { UpstreamAuthFailure } from './upstream-auth-failure.js';
import type { UpstreamSession } from './upstream-session.js';

/** Reconnection attempts in a row that may fail before a broken answer stream is given up. */
const RESUME_ATTEMPTS = 3;

/**
 * Reads the SSE stream answering request `id`; if it ends or breaks before the answer, resumes it
 * with GET and `Last-Event-ID` (after the server's retry hint) until the answer comes. When it
 * cannot be resumed, `id` is answered with an error. Stops quietly once `signal` aborts.
 */
export async function readAnswerStream(session: UpstreamSession, id: JsonRpcId, first: IncomingMessage, signal: AbortSignal): Promise<void> {
  const { target } = session.options;
  const cursor = sseCursor();
  const progress = { answered: false, events: 0 };
  const deliver = (data: string): void => {
    progress.events++;
    if (answersRequest(session.inbox.receive(data, id), id)) progress.answered = true;
  };
  let response = first;
  for (;;) {
    let broke: string | undefined;
    try {
      await readWithCursor(response, cursor, deliver, target.maxMessageBytes);
    } catch (error) {
      broke = networkCause(error);
    }
    if (progress.answered || signal.aborted || session.closed) return;
    if (cursor.lastEventId === undefined) {
      session.inbox.fail(id, transportError(target.server, broke === undefined
        ? 'ended the stream of the answer without sending it'
        : `broke the stream of the answer before sending it (${broke}), and it cannot be resumed`));
      return;
    }
    const resumed = await resume(session, cursor, signal, progress.events);
    if (signal.aborted || session.closed) return;
    if ('error' in resumed) {
      session.inbox.fail(id, resumed.error);
      return;
    }
    response = resumed.response;
  }
}

/**
 * Reopens a stream with GET and `Last-Event-ID`, honouring the retry hint, a few attempts in a row.
 * A server that stays unreachable takes the connection down.
 */
async function resume(session: UpstreamSession, cursor: SseCursor, signal: AbortSignal, eventsBefore: number): Promise<{ response: IncomingMessage } | { error: McpError | JsonRpcErrorObject }> {
  const { server } = session.options.target;
  for (let attempt = 1; ; attempt++) {
    // First attempt: after the server's retry hint (at once without one); then back off.
    const wait = attempt === 1 ? (cursor.retryMs ?? 0) : (cursor.retryMs ?? 500) * 2 ** (attempt - 1);
    if (!(await delay(wait, signal))) return { error: transportError(server, 'closed') };
    let response: IncomingMessage;
    try {
      response = await session.get(cursor, signal);
    } catch (error) {
      if (signal.aborted) return { error: transportError(server, 'closed') };
      if (error instanceof UpstreamAuthFailure) return { error: session.authError(error) };
      if (attempt < RESUME_ATTEMPTS) continue;
      const unreachable = `is unreachable: ${networkCause(error)}`;
      session.options.status.down(unreachable);
      return { error: transportError(server, `${unreachable}; the answer was lost`) };
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300 && mediaType(response) === 'text/event-stream') {
      session.options.log.debug('resumed a stream', { after: cursor.lastEventId, eventsBefore });
      return { response };
    }
    const refusal = await httpRefusal(response, server);
    return { error: refusal instanceof McpError ? transportError(server, `could not resume the stream of the answer: ${refusal.message.replace(`Upstream ${server} `, '')}`, refusal.data) : refusal };
  }
}

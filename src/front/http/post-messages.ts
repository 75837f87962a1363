import type { IncomingMessage } from 'node:http';
import { ErrorCode } from '../../errors/error-code.js';
import { HttpError } from '../../errors/http-error.js';
import { errorResponse, type JsonRpcId, type JsonRpcResponse } from '../../message/jsonrpc.js';
import { classifyMessage } from '../../message/parse-message.js';
import { readJsonBody } from './read-json-body.js';

/** The JSON values a POST to the Streamable HTTP endpoint carried. */
export interface PostBody {
  /** One value, or the members of a batch (never empty). */
  readonly values: readonly unknown[];
  /** The body was a JSON array (a 2025-03-26 batch). */
  readonly batch: boolean;
}

/** A POST's messages, sorted: what is forwarded, what waits for an answer, what is answered here. */
export interface SortedMessages {
  /** The ids of the requests among `forward`: the POST is answered once each has its answer. */
  readonly waiting: JsonRpcId[];
  /** The valid messages, in order, to hand to the session. */
  readonly forward: unknown[];
  /** Answers to the invalid members of a batch, known before anything is forwarded. */
  readonly answers: JsonRpcResponse[];
}

/** Reads a POST body: one JSON-RPC message or a batch of them; an empty batch is 400 -32600. */
export async function readPostBody(req: IncomingMessage, maxBodyBytes: number): Promise<PostBody> {
  const parsed = await readJsonBody(req, maxBodyBytes);
  const batch = Array.isArray(parsed);
  const values: readonly unknown[] = batch ? parsed : [parsed];
  if (values.length === 0) throw new HttpError(400, 'Invalid Request: empty batch', { code: ErrorCode.InvalidRequest });
  return { values, batch };
}

/**
 * Sorts the messages of a POST: requests wait for their answers; an invalid message, or a request
 * whose id is already in flight in the session (`inFlight`), is refused — alone with a 400, in a
 * batch with an error answer of its own while the rest goes on.
 */
export function sortPostMessages(body: PostBody, inFlight: { has(id: JsonRpcId): boolean }): SortedMessages {
  const { values, batch } = body;
  const waiting: JsonRpcId[] = [];
  const forward: unknown[] = [];
  const answers: JsonRpcResponse[] = [];
  for (const value of values) {
    const classified = classifyMessage(value);
    if (classified.kind === 'invalid') {
      if (!batch) throw new HttpError(400, classified.error.message, { code: classified.error.code, id: classified.id });
      answers.push(errorResponse(classified.id, classified.error));
      continue;
    }
    if (classified.kind === 'request') {
      const { id } = classified.message;
      if (inFlight.has(id) || waiting.includes(id)) {
        const message = `Invalid Request: id ${JSON.stringify(id)} is already in use by a request in flight`;
        if (!batch) throw new HttpError(400, message, { code: ErrorCode.InvalidRequest, id });
        answers.push(errorResponse(id, { code: ErrorCode.InvalidRequest, message }));
        continue;
      }
      waiting.push(id);
    }
    forward.push(value);
  }
  return { waiting, forward, answers };
}

/**
 * @module
 * A scripted upstream for middleware tests: answers requests from a table of handlers, records what
 * reached it, and sends server→client traffic on demand (what `local()` cannot do: pages,
 * broken results, notifications, sampling).
 */
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, McpMessage, Result } from '../../message/jsonrpc.js';
import type { Downstream } from '../../core/downstream.js';
import type { Upstream, UpstreamConnection } from '../../core/upstream.js';

export type Handler = (params: JsonObject) => Result | Promise<Result>;

export interface Scripted extends Upstream {
  /** Every request and notification that reached the upstream, in order. */
  readonly received: McpMessage[];
  /** Sends a notification to the client (the session must be connected). */
  notify(method: string, params?: JsonObject): Promise<void>;
  /** Sends a request to the client (sampling, elicitation, roots) and resolves with its result. */
  ask(method: string, params?: JsonObject): Promise<Result>;
}

export function scripted(handlers: Record<string, Handler>): Scripted {
  let downstream: Downstream | undefined;
  const received: McpMessage[] = [];
  const connected = (): Downstream => {
    if (!downstream) throw new Error('no session is connected');
    return downstream;
  };
  const all: Record<string, Handler> = {
    initialize: () => ({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1.0.0' } }),
    ...handlers,
  };
  return {
    received,
    connect(target): UpstreamConnection {
      downstream = target;
      return {
        request: async (message) => {
          received.push(message);
          const handler = all[message.method];
          if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`);
          return handler(message.params ?? {});
        },
        notify: (message) => {
          received.push(message);
          return Promise.resolve();
        },
        close: () => Promise.resolve(),
      };
    },
    notify: (method, params) => connected().notify(params === undefined ? { method } : { method, params }),
    ask: (method, params) =>
      connected().request(params === undefined ? { method } : { method, params }, { signal: new AbortController().signal }),
  };
}

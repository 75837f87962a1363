import { ErrorCode } from '../../../errors/error-code.js';
import { McpError } from '../../../errors/mcp-error.js';
import { silentLogger } from '../../../log/stderr-logger.js';
import type { JsonObject, McpMessage, Result } from '../../../message/jsonrpc.js';
import type { Downstream } from '../../../core/downstream.js';
import type { RequestScope } from '../../../core/request-scope.js';
import { StatusReporter } from '../../../core/status-reporter.js';
import type { Upstream, UpstreamConnection } from '../../../core/upstream.js';

export type Handler = (params: JsonObject, scope: RequestScope, downstream: Downstream) => Result | Promise<Result>;

/**
 * For aggregate tests: a member whose answers the test scripts per method, that can be taken down
 * and brought up like a crashing server, and that records what it was sent.
 */
export class ScriptedMember implements Upstream {
  readonly handlers = new Map<string, Handler>();
  readonly status = new StatusReporter(silentLogger);
  readonly received: McpMessage[] = [];
  readonly notified: McpMessage[] = [];
  /** While true, every request fails as if the server had exited. */
  failing = false;
  /** The client side of the last connection. */
  downstream: Downstream | undefined;
  connections = 0;
  closed = 0;

  constructor(capabilities: JsonObject = { tools: {} }, handlers: Record<string, Handler> = {}) {
    this.handlers.set('initialize', (params) => ({
      protocolVersion: typeof params.protocolVersion === 'string' ? params.protocolVersion : '2025-11-25',
      capabilities,
      serverInfo: { name: 'scripted', version: '1.0.0' },
    }));
    this.handlers.set('ping', () => ({}));
    for (const [method, handler] of Object.entries(handlers)) this.handlers.set(method, handler);
  }

  on(method: string, handler: Handler): this {
    this.handlers.set(method, handler);
    return this;
  }

  /** Goes down like a crashed server: told to listeners, requests fail until `up()`. */
  down(reason = 'exited (code 1)'): void {
    this.failing = true;
    this.status.down(reason);
  }

  up(): void {
    this.failing = false;
    this.status.up(true);
  }

  connect(downstream: Downstream): UpstreamConnection {
    this.downstream = downstream;
    this.connections++;
    return {
      request: async (message, scope) => {
        this.received.push(message);
        if (this.failing) throw new McpError(ErrorCode.ConnectionClosed, 'Upstream scripted exited before answering');
        const handler = this.handlers.get(message.method);
        if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`);
        return handler(message.params ?? {}, scope, downstream);
      },
      notify: (message) => {
        this.notified.push(message);
        return Promise.resolve();
      },
      close: () => {
        this.closed++;
        return Promise.resolve();
      },
      onStatus: (listener) => this.status.subscribe(listener),
    };
  }
}

/** A tool as a list shows it. */
export function tool(name: string, description = `the ${name} tool`): JsonObject {
  return { name, description, inputSchema: { type: 'object' } };
}

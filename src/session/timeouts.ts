import type { McpMessage } from '../message/jsonrpc.js';

/** Deadlines of forwarded requests, in milliseconds. */
export interface TimeoutOptions {
  /** Default deadline of a request in either direction. Default 60 000. */
  request?: number;
  /** The hard maximum: progress extends a deadline, but never past this from the start. Default 600 000. */
  max?: number;
  /** Whether `notifications/progress` restarts the countdown. Default true. */
  resetOnProgress?: boolean;
  /**
   * Per method, e.g. `{ 'resources/read': 5000 }`. `initialize` (which includes the server's
   * start) defaults to the larger of `request` and 60 000.
   */
  methods?: Record<string, number>;
  /** Per tool name (as the client calls it), for `tools/call`. */
  tools?: Record<string, number>;
}

export interface ResolvedTimeouts {
  request: number;
  max: number;
  resetOnProgress: boolean;
  methods: Record<string, number>;
  tools: Record<string, number>;
}

export function resolveTimeouts(options: TimeoutOptions = {}): ResolvedTimeouts {
  return {
    request: options.request ?? 60_000,
    max: options.max ?? 600_000,
    resetOnProgress: options.resetOnProgress ?? true,
    methods: options.methods ?? {},
    tools: options.tools ?? {},
  };
}

/** `initialize` includes the server's cold start (an `npx` download): never less than this by default. */
const INITIALIZE_FLOOR_MS = 60_000;

export function timeoutFor(timeouts: ResolvedTimeouts, message: McpMessage): number {
  if (message.method === 'initialize') {
    return timeouts.methods.initialize ?? Math.max(timeouts.request, INITIALIZE_FLOOR_MS);
  }
  if (message.method === 'tools/call') {
    const name = message.params?.name;
    const perTool = typeof name === 'string' ? timeouts.tools[name] : undefined;
    if (perTool !== undefined) return perTool;
  }
  return timeouts.methods[message.method] ?? timeouts.request;
}

import { McpError } from '../../errors/mcp-error.js';

/**
 * The JSON-RPC error code of a call `approve` refused (with `onDeny: 'error'`): in the
 * implementation-defined range (-32000 to -32099), chosen to read as HTTP's 403 and to stay clear
 * of the codes in use (-32000 connection closed, -32001 timeout, -32002 resource not found,
 * -32029 rate limited, -32042 URL elicitation required).
 */
export const APPROVAL_DENIED = -32003;

/**
 * Why a call was denied: the user `declined` or `cancelled` the question, nobody answered in
 * time (`timeout`), the client cannot be asked (`fallback`: no form elicitation), asking failed
 * (`error`: the client answered the question with an error), or the answer made no sense
 * (`invalid`).
 */
export type DenyReason = 'declined' | 'cancelled' | 'timeout' | 'fallback' | 'error' | 'invalid';

/** What a refusal's `data` carries (with `onDeny: 'error'`). */
export interface ApprovalDeniedData {
  readonly tool: string;
  readonly reason: DenyReason;
}

/** The sentence the model (or the client) reads about a denied call. */
export function denialText(tool: string, reason: DenyReason, timeoutMs: number): string {
  const name = JSON.stringify(tool);
  switch (reason) {
    case 'declined':
      return `The user declined to run ${name}; it did not run. Do not try it again unless the user asks for it.`;
    case 'cancelled':
      return `The user cancelled the approval of ${name} (dismissed the question); it did not run.`;
    case 'timeout':
      return `Nobody approved ${name} within ${formatMs(timeoutMs)}; it did not run.`;
    case 'fallback':
      return `${name} needs the user's approval, and this client cannot ask for it (it does not support elicitation); it did not run.`;
    case 'error':
      return `${name} needs the user's approval, and asking the user failed (the client answered with an error); it did not run.`;
    case 'invalid':
      return `${name} needs the user's approval, and the client's answer to the question was not understood; it did not run.`;
  }
}

/** A denied call as a tool result the model can read. */
export function deniedResult(text: string): { isError: true; content: Array<{ type: 'text'; text: string }> } {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A denied call as a JSON-RPC error. */
export function deniedError(text: string, data: ApprovalDeniedData): McpError {
  return new McpError(APPROVAL_DENIED, text, { tool: data.tool, reason: data.reason });
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6000) / 10} min`;
}

import { ErrorCode } from './error-code.js';

/**
 * An HTTP front refuses a request: the status, and the JSON-RPC error its body carries (with the
 * id of the refused message when it could be read, else `null`). Thrown anywhere in the HTTP
 * front and written by the one place that answers HTTP errors.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: number;
  readonly id: string | number | null;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    message: string,
    options: { code?: number; id?: string | number | null; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = options.code ?? ErrorCode.ConnectionClosed;
    this.id = options.id ?? null;
    this.headers = options.headers ?? {};
  }

  /** The response body: a JSON-RPC error response. */
  body(): string {
    return JSON.stringify({ jsonrpc: '2.0', id: this.id, error: { code: this.code, message: this.message } });
  }
}

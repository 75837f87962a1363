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
  /** The JSON-RPC error's `data`, when it has one. */
  readonly data: unknown;

  constructor(
    status: number,
    message: string,
    options: { code?: number; id?: string | number | null; headers?: Record<string, string>; data?: unknown } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = options.code ?? ErrorCode.ConnectionClosed;
    this.id = options.id ?? null;
    this.headers = options.headers ?? {};
    this.data = options.data;
  }

  /** The response body: a JSON-RPC error response. */
  body(): string {
    const error = this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
    return JSON.stringify({ jsonrpc: '2.0', id: this.id, error });
  }
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { LoginRequiredError } from '../../auth/client/login-required-error.js';
import type { Principal, UpstreamAuth } from '../../auth/upstream-auth.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { drainResponse } from './drain-response.js';
import type { HttpCall, HttpClient } from './http-client.js';
import { transportError } from './transport-error.js';
import { UpstreamAuthFailure } from './upstream-auth-failure.js';

/** MCP 2025-11-25: URLElicitationRequiredError, a request that waits for a URL-mode elicitation. */
export const URL_ELICITATION_REQUIRED = -32042;

/** What a session needs to know about its client (read when needed: it initializes after connecting). */
export interface SessionClient {
  readonly clientCapabilities: Readonly<Record<string, unknown>> | undefined;
}

/**
 * How one downstream session's requests to a remote server get their access tokens: the
 * upstream's `UpstreamAuth`, asked on behalf of the session's principal before every request
 * (POST, GET stream, DELETE). A 401, or a 403 with `error="insufficient_scope"`, is reported
 * (`refused`) and the request sent once more with the new token; a second refusal is the server's
 * answer. When a person must log in, the request is answered with an error carrying the login URL:
 * -32042 (URL elicitation) to a client that declared `elicitation.url`, which is then told
 * `notifications/elicitation/complete` when the login ends, else -32000.
 */
export class SessionAuth {
  readonly auth: UpstreamAuth;
  readonly principal: Principal;
  readonly #client: SessionClient;
  /** The elicitation id of each login (its completion) this session's client was told about. */
  readonly #elicitations = new WeakMap<Promise<void>, string>();
  /** The errors `error()` made. */
  readonly #made = new WeakSet<McpError>();

  constructor(auth: UpstreamAuth, principal: Principal, client: SessionClient) {
    this.auth = auth;
    this.principal = principal;
    this.#client = client;
  }

  /**
   * Sends `call` with the principal's `Authorization`. A refusal is reported and the call sent once
   * more with the new token (not when `retry` is false: a DELETE on close must not start a login).
   * Rejects with an {@link UpstreamAuthFailure} when no token could be had, with the network error
   * of the client otherwise; an abort of `call.signal` while waiting for a token rejects at once.
   */
  async send(client: HttpClient, url: URL, call: HttpCall, retry = true): Promise<IncomingMessage> {
    const sent = await this.#authorization(call.signal);
    const response = await client.send(url, withAuthorization(call, sent));
    if (!retry || !isRefusal(response)) return response;
    const challenge = response.headers['www-authenticate'];
    drainResponse(response);
    await this.#settle(this.auth.refused(this.principal, { status: response.statusCode === 403 ? 403 : 401, challenge, sent }), call.signal);
    return client.send(url, withAuthorization(call, await this.#authorization(call.signal)));
  }

  /**
   * The error a request gets when no token could be had (`failure.cause`): a login URL (-32042 or
   * -32000 with `data: { server, login, url }`), or -32000 naming what failed. `deliver` hands a
   * notification to the client, as if the server had sent it.
   */
  error(failure: UpstreamAuthFailure, server: string, deliver: (notification: JsonObject) => void): McpError {
    const cause = failure.cause;
    const error = isLoginRequired(cause) ? this.#loginError(cause, deliver) : transportError(server, `could not be given an access token: ${failure.message}`);
    this.#made.add(error);
    return error;
  }

  /** Whether `error` is one `error()` made: the request could not be given a token. */
  failed(error: unknown): error is McpError {
    return error instanceof McpError && this.#made.has(error);
  }

  #loginError(login: LoginRequiredError, deliver: (notification: JsonObject) => void): McpError {
    const { url, completion } = login;
    if (url === undefined || completion === undefined || !this.#urlElicitation()) {
      const data = url === undefined ? { server: login.server, login: login.command } : { server: login.server, login: login.command, url };
      return new McpError(ErrorCode.ConnectionClosed, login.message, data);
    }
    let elicitationId = this.#elicitations.get(completion);
    if (elicitationId === undefined) {
      const id = randomUUID();
      elicitationId = id;
      this.#elicitations.set(completion, id);
      const complete = (): void => {
        deliver({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: id } });
      };
      completion.then(complete, complete);
    }
    return new McpError(URL_ELICITATION_REQUIRED, login.message, {
      elicitations: [{ mode: 'url', elicitationId, url, message: `Log in to ${login.server} to let mcp-chain use it on your behalf.` }],
    });
  }

  #urlElicitation(): boolean {
    const elicitation = this.#client.clientCapabilities?.elicitation;
    return isJsonObject(elicitation) && isJsonObject(elicitation.url);
  }

  async #authorization(signal: AbortSignal | undefined): Promise<string | undefined> {
    return this.#settle(this.auth.authorization(this.principal), signal);
  }

  /** `promise`, its rejection an UpstreamAuthFailure; rejects at once (with the abort reason) when `signal` aborts. */
  #settle<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const settled = promise.catch((error: unknown) => {
      throw new UpstreamAuthFailure(error);
    });
    if (signal === undefined) return settled;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      settled.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}

function withAuthorization(call: HttpCall, authorization: string | undefined): HttpCall {
  return authorization === undefined ? call : { ...call, headers: { ...call.headers, authorization } };
}

/** 401, or 403 asking for more scope (RFC 6750 §3.1): worth a better token. */
function isRefusal(response: IncomingMessage): boolean {
  if (response.statusCode === 401) return true;
  if (response.statusCode !== 403) return false;
  const challenge = response.headers['www-authenticate'];
  return challenge !== undefined && /\berror\s*=\s*"?insufficient_scope\b/i.test(challenge);
}

/** A LoginRequiredError, also from another copy of the module (a bundle). */
function isLoginRequired(error: unknown): error is LoginRequiredError {
  return error instanceof Error && error.name === 'LoginRequiredError' && typeof (error as Partial<LoginRequiredError>).command === 'string';
}

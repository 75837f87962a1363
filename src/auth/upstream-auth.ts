/**
 * @module
 * The contract between an HTTP upstream and whatever gets it access tokens (the gateway as an
 * OAuth client of a remote server, MCP authorization spec 2025-11-25): the transport asks for the
 * `Authorization` value of each request, and reports a refusal (401, or 403 `insufficient_scope`)
 * so that a better token can be had. The transport never sees a refresh token, a client secret or
 * a login; the implementation never sees a message.
 */
import type { Identity } from '../core/session-info.js';

/**
 * On whose behalf a request goes upstream: tokens are stored and used per server and per
 * principal. `key` is `local` for the person running mcp-chain (stdio fronts, `mcp-chain auth
 * login`), `machine` for the client-credentials grant, or `<issuer> <subject>` (or
 * `token <id>`) for a user of an authenticating HTTP front.
 */
export interface Principal {
  readonly key: string;
  /** The front's identity of the user, when there is one (token exchange needs it). */
  readonly identity?: Identity | undefined;
}

/** What a refusal of the remote server said. */
export interface UpstreamRefusal {
  readonly status: 401 | 403;
  /** The `WWW-Authenticate` header, as received. */
  readonly challenge: string | undefined;
  /** The `Authorization` value the refused request carried (undefined: none). */
  readonly sent: string | undefined;
}

/** Gets access tokens for requests to one remote server. */
export interface UpstreamAuth {
  /**
   * The `Authorization` header value for a request made for `principal` (`Bearer …`), refreshing
   * first a token that expires within a minute. Undefined: no token yet; the request goes
   * without, and the server's 401 starts discovery. Never rejects for a missing login (that is
   * `refused`'s answer); rejects only when the store cannot be read.
   */
  authorization(principal: Principal): Promise<string | undefined>;
  /**
   * The server refused a request. Resolves when a new token is ready, and the request is worth
   * sending once more: refreshed, obtained by the client-credentials grant or a token exchange,
   * found in the store (another process logged in), or already replaced by a concurrent request.
   * Rejects with a `LoginRequiredError` when a person must log in (a login was started, and the
   * error carries its URL), or with another Error when the authorization server failed.
   */
  refused(principal: Principal, refusal: UpstreamRefusal): Promise<void>;
  /** Stops what the implementation keeps running (redirect listeners of logins not finished). */
  close(): Promise<void>;
}

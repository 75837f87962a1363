import type { Logger } from '../log/logger.js';

/** Who a client authenticated as, on a front with authentication. */
export interface Identity {
  /** A stable name of the credential or principal (never the secret itself). */
  readonly id: string;
  /** How it authenticated, such as `bearer`, `api-key` or `oauth`. */
  readonly method: string;
  /** `oauth`: the authorization server that issued the token (`iss`); sessions stay bound to issuer and subject. */
  readonly issuer?: string | undefined;
  /** `oauth`: the OAuth client the token was issued to. */
  readonly clientId?: string | undefined;
  /** `oauth`: the token's scopes. */
  readonly scopes?: readonly string[] | undefined;
  /** `oauth`: the claims chosen to travel with the identity (`claims` of the front's oauth options). */
  readonly claims?: Readonly<Record<string, unknown>> | undefined;
}

/** What an upstream knows of the session it is opened for. */
export interface SessionInfo {
  /** Who the client authenticated as; absent on fronts without authentication (stdio). */
  readonly identity?: Identity;
  /** A unique id of the downstream session (random; not the HTTP session id). */
  readonly id: string;
  /** The protocol version negotiated with the downstream, once initialized. */
  readonly protocolVersion: string | undefined;
  /** `clientInfo` the downstream sent in `initialize`. */
  readonly clientInfo: Readonly<Record<string, unknown>> | undefined;
  /** `capabilities` the downstream sent in `initialize`. */
  readonly clientCapabilities: Readonly<Record<string, unknown>> | undefined;
  readonly log: Logger;
}

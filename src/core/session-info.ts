import type { Logger } from '../log/logger.js';

/** Who a client authenticated as, on a front with authentication. */
export interface Identity {
  /** A stable name of the credential or principal (never the secret itself). */
  readonly id: string;
  /** How it authenticated, such as `bearer` or `api-key`. */
  readonly method: string;
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

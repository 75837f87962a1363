import type { StatusReporter } from '../../core/status-reporter.js';
import type { Logger } from '../../log/logger.js';
import type { SessionReplay } from '../session-replay.js';
import type { HttpClient } from './http-client.js';
import type { HttpTarget } from './http-target.js';
import type { SessionAuth } from './session-auth.js';

/** What an HTTP transport (Streamable HTTP or legacy SSE) is made with, one per session. */
export interface HttpTransportOptions {
  readonly target: HttpTarget;
  readonly client: HttpClient;
  /** What the session told the server, to tell a new server session again. */
  readonly replay: SessionReplay;
  readonly log: Logger;
  /** Where the transport tells that the server was lost and came back (the connection's listeners). */
  readonly status: StatusReporter;
  /** Where the session's access tokens come from, when the server wants OAuth (`http({ auth })`, `http({ oauth })`). */
  readonly auth?: SessionAuth | undefined;
}

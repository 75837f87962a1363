import { principalOf } from '../../auth/client/principal-of.js';
import type { UpstreamAuth } from '../../auth/upstream-auth.js';
import { StatusReporter } from '../../core/status-reporter.js';
import type { Transport } from '../../transport/transport.js';
import { SessionReplay } from '../session-replay.js';
import type { Upstream } from '../../core/upstream.js';
import { HttpClient } from './http-client.js';
import { HttpConnection } from './http-connection.js';
import type { HttpOptions } from './http-options.js';
import { httpTarget } from './http-target.js';
import type { HttpTransportOptions } from './http-transport-options.js';
import { oauthUpstreamAuth } from './oauth-upstream-auth.js';
import { SessionAuth } from './session-auth.js';

/**
 * A remote server over an HTTP transport made by `transport`: one connection (and HTTP session)
 * per downstream session, one keep-alive client for them all, closed with the upstream. With
 * `auth` (the caller's object, which it closes itself) or `oauth` (an OAuth client made here),
 * each session's requests carry the access token of its principal.
 */
export function remoteUpstream(options: HttpOptions, transport: (options: HttpTransportOptions) => Transport): Upstream {
  const target = httpTarget(options);
  const client = new HttpClient();
  /** The OAuth client of `oauth`, made for the first session (its log), shared by all. */
  let oauth: UpstreamAuth | undefined;
  return {
    connect: (downstream, session) => {
      const log = session.log.child({ upstream: target.name });
      const replay = new SessionReplay();
      const status = new StatusReporter(log);
      if (options.oauth !== undefined) oauth ??= oauthUpstreamAuth({ server: target.name, serverUrl: target.url, oauth: options.oauth, log, loginCommand: options.loginCommand });
      const auth = options.auth ?? oauth;
      const sessionAuth = auth && new SessionAuth(auth, principalOf(session, options.oauth ?? {}), session);
      return new HttpConnection(transport({ target, client, replay, log, status, auth: sessionAuth }), { replay, status, downstream, log, server: target.server });
    },
    close: async () => {
      client.destroy();
      await oauth?.close();
    },
  };
}

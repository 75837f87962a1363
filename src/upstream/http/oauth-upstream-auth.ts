import type { UpstreamOAuthOptions } from '../../auth/client/upstream-oauth-options.js';
import type { Principal, UpstreamAuth, UpstreamRefusal } from '../../auth/upstream-auth.js';
import type { Logger } from '../../log/logger.js';

export interface OAuthUpstreamAuthOptions {
  /** The server's name in messages and the login command. */
  readonly server: string;
  readonly serverUrl: URL;
  readonly oauth: UpstreamOAuthOptions;
  readonly log: Logger;
  /** The command that logs in to the server, in messages (see HttpOptions.loginCommand). */
  readonly loginCommand?: string | undefined;
}

/**
 * The OAuth client of `http({ oauth })`: the `oauthAuthorizer` (discovery, registration, logins,
 * refresh, the token store), loaded on the first request, so that a gateway without OAuth never
 * loads the OAuth client's code (oauth4webapi).
 */
export function oauthUpstreamAuth(options: OAuthUpstreamAuthOptions): UpstreamAuth {
  let made: Promise<UpstreamAuth> | undefined;
  const authorizer = (): Promise<UpstreamAuth> => {
    made ??= import('../../auth/client/oauth-authorizer.js').then(({ oauthAuthorizer }) => oauthAuthorizer({
      server: options.server,
      serverUrl: options.serverUrl,
      oauth: options.oauth,
      // The token store's default path comes from the process's environment (`MCP_CHAIN_TOKEN_STORE`,
      // XDG_CONFIG_HOME, HOME), never from `HttpOptions.env`, which only resolves `${NAME}`.
      log: options.log,
      ...(options.loginCommand === undefined ? {} : { loginCommand: options.loginCommand }),
    }));
    return made;
  };
  return {
    authorization: async (principal: Principal) => (await authorizer()).authorization(principal),
    refused: async (principal: Principal, refusal: UpstreamRefusal) => (await authorizer()).refused(principal, refusal),
    close: async () => {
      if (made !== undefined) await (await made).close();
    },
  };
}

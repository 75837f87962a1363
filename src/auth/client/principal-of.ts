import type { SessionInfo } from '../../core/session-info.js';
import type { Principal } from '../upstream-auth.js';
import type { UpstreamOAuthOptions } from './upstream-oauth-options.js';

/** The principal of the person running mcp-chain (stdio fronts, `mcp-chain auth login`). */
export const LOCAL_PRINCIPAL: Principal = { key: 'local' };

/** The principal of the client-credentials grant: the gateway itself. */
export const MACHINE_PRINCIPAL: Principal = { key: 'machine' };

/**
 * On whose behalf a session's requests go to a server with `oauth`: `machine` for the
 * client-credentials grant; `local` on a front without authentication (stdio) and with
 * `sharedLogin`; else the front's user: `<issuer> <subject>` for an OAuth identity, `token <id>`
 * for a static token or API key. Token exchange always needs the user (never `local`).
 */
export function principalOf(session: Pick<SessionInfo, 'identity'> | undefined, oauth: UpstreamOAuthOptions): Principal {
  const grant = oauth.grant ?? 'authorization_code';
  if (grant === 'client_credentials') return MACHINE_PRINCIPAL;
  const identity = session?.identity;
  if (identity === undefined) return LOCAL_PRINCIPAL;
  if (grant === 'authorization_code' && oauth.sharedLogin === true) return LOCAL_PRINCIPAL;
  const key = identity.method === 'oauth' && identity.issuer !== undefined ? `${identity.issuer} ${identity.id}` : `token ${identity.id}`;
  return { key, identity };
}

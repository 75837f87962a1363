import type { Principal } from '../../auth/upstream-auth.js';
import type { SessionInfo } from '../../core/session-info.js';

/**
 * On whose behalf a session's requests go to a server with `http({ auth })`: the user of an
 * authenticating HTTP front (`<issuer> <subject>` for OAuth, `token <id>` for a static token), or
 * `local`, the person running mcp-chain (stdio, an HTTP front without authentication).
 */
export function sessionPrincipal(session: Pick<SessionInfo, 'identity'>): Principal {
  const { identity } = session;
  if (identity === undefined) return { key: 'local' };
  const key = identity.method === 'oauth' && identity.issuer !== undefined ? `${identity.issuer} ${identity.id}` : `token ${identity.id}`;
  return { key, identity };
}

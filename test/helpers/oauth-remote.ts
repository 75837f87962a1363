import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOAuthProtectedServer, type OAuthProtectedServer } from '../fixtures/servers/oauth-protected-server.js';
import { startAuthorizationServer, type AuthorizationServer } from './authorization-server.js';

/** A remote MCP server that wants OAuth, its authorization server, and a temp dir for the test's files. */
export interface OAuthRemote {
  readonly as: AuthorizationServer;
  readonly remote: OAuthProtectedServer;
  readonly dir: string;
  /** Closes both servers and removes the dir. */
  close(): Promise<void>;
}

/**
 * oidc-provider on loopback, the SDK resource server fixture trusting it, and a fresh temp dir
 * named with `prefix`: what every test of the gateway as an OAuth client starts from.
 */
export async function startOAuthRemote(prefix: string): Promise<OAuthRemote> {
  const as = await startAuthorizationServer();
  let remote: OAuthProtectedServer;
  try {
    remote = await startOAuthProtectedServer({ issuer: as.issuer, jwksUri: as.jwksUri });
  } catch (error) {
    await as.close();
    throw error;
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    as,
    remote,
    dir,
    close: async () => {
      await remote.close();
      await as.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

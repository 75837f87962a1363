import assert from 'node:assert/strict';
import { createPkce, type AuthorizationServer } from './authorization-server.js';

/** Where a test's MCP client says it is redirected to: the login is driven by the test, nothing listens there. */
export const UNUSED_REDIRECT = 'http://127.0.0.1:1/callback';

/**
 * A user's access token for `resource` (scope `mcp:read`), by authorization code with PKCE, the
 * login driven as a browser would: a public client registered for the occasion, `subject` logging
 * in, the code exchanged. An opaque token has a subject only as a user's, hence a login rather than
 * a client-credentials token.
 */
export async function userToken(as: AuthorizationServer, resource: string, subject: string): Promise<string> {
  const { client_id: clientId } = await as.registerClient({ redirect_uris: [UNUSED_REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' });
  const pkce = createPkce();
  const url = as.authorizationUrl({ clientId, redirectUri: UNUSED_REDIRECT, resource, scope: 'mcp:read', codeChallenge: pkce.challenge });
  const code = new URL(await as.completeLogin(url, { subject })).searchParams.get('code');
  assert.ok(code, 'the login gives a code');
  return (await as.exchangeCode({ clientId }, { code, verifier: pkce.verifier, redirectUri: UNUSED_REDIRECT, resource })).access_token;
}

// The gateway as an OAuth client of a remote MCP server, in-process: `http({ oauth })` (and the
// OAuth authorizer given as `auth`, with a clock the test moves) in front of the SDK resource
// server fixture, oidc-provider as the authorization server, the test playing the person in the
// browser (completeLogin with the URL the gateway handed out). Discovery, dynamic registration,
// PKCE login, the tokens kept in a 0600 file, refresh when the token is about to expire, a revoked
// grant answered with a new login as a URL elicitation (-32042) that completes; a step-up for a
// call that needs more scope (403 insufficient_scope).
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { oauthAuthorizer } from '../../src/auth/client/oauth-authorizer.js';
import { chain } from '../../src/chain/chain.js';
import { McpError } from '../../src/errors/mcp-error.js';
import { harness, type Harness } from '../../src/testing/harness.js';
import { http } from '../../src/upstream/http/http.js';
import type { AuthorizationServer } from '../helpers/authorization-server.js';
import { withTimeout } from '../helpers/client.js';
import { startOAuthRemote, type OAuthRemote } from '../helpers/oauth-remote.js';
import type { OAuthProtectedServer } from '../fixtures/servers/oauth-protected-server.js';
import { storedTokens } from '../helpers/stored-logins.js';
import { CaptureLogger } from './_capture-logger.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;
const CLIENT = { name: 'oauth-upstream-login-test', version: '1.0.0' };

function text(result: Record<string, unknown>): string | undefined {
  return (result.content as Array<{ text?: string }> | undefined)?.[0]?.text;
}

/** No secret of the store, nor the authorization code, in what was logged. */
function assertNoSecrets(log: CaptureLogger, secrets: readonly (string | undefined)[]): void {
  const logged = JSON.stringify(log.lines);
  for (const secret of secrets) if (secret !== undefined && secret !== '') assert.ok(!logged.includes(secret), 'a secret reached the log');
}

function codeOf(redirect: string): string | undefined {
  return new URL(redirect).searchParams.get('code') ?? undefined;
}

describe('the gateway as an OAuth client of a remote server (in-process)', T, () => {
  let fixture: OAuthRemote | undefined;
  let as: AuthorizationServer;
  let remote: OAuthProtectedServer;
  let dir: string;
  before(async () => {
    fixture = await startOAuthRemote('mcp-chain-oauth-upstream-');
    ({ as, remote, dir } = fixture);
  });
  after(() => fixture?.close());

  test('http({ oauth }): the first initialize answers -32000 with the login URL; once the person logged in, the session is served as them; the token file is 0600; nothing secret logged', T, async () => {
    const tokenStore = join(dir, 'wiring.json');
    const log = new CaptureLogger();
    const upstream = http({ url: remote.url, name: 'remote', oauth: { tokenStore, openBrowser: false } });
    const h = await harness(chain().to(upstream), { log, initialize: false });
    try {
      const refused = await h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT });
      const error = refused.error as { code: number; message: string; data: { server: string; login: string; url: string } };
      assert.equal(error.code, -32000, JSON.stringify(refused));
      assert.equal(error.data.server, 'remote');
      assert.equal(error.data.login, 'mcp-chain auth login remote');
      assert.ok(error.data.url.startsWith(as.authorizationEndpoint), error.data.url);
      assert.ok(error.message.includes(error.data.url));
      const authorization = new URL(error.data.url);
      assert.equal(authorization.searchParams.get('resource'), remote.url);
      assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');

      const loggedIn = log.waitFor(/logged in/);
      const redirect = await as.completeLogin(error.data.url, { subject: 'alice', deliver: true });
      await withTimeout(loggedIn, EVENT_MS, () => 'the login to complete');

      await h.initialize();
      assert.equal(text(await h.request('tools/call', { name: 'whoami', arguments: {} })), 'alice');
      assert.equal(statSync(tokenStore).mode & 0o777, 0o600);
      const tokens = storedTokens(tokenStore);
      assertNoSecrets(log, [tokens.accessToken, tokens.refreshToken, codeOf(redirect)]);
    } finally {
      await h.close();
      await upstream.close?.();
    }
  });

  test('a token about to expire is refreshed before it is sent; a revoked grant asks for a new login: -32042 URL elicitation to a client that takes them, completed once the person logged in again', T, async () => {
    const tokenStore = join(dir, 'refresh.json');
    const log = new CaptureLogger();
    let clock = Date.now();
    const authorizer = oauthAuthorizer({ server: 'remote', serverUrl: new URL(remote.url), oauth: { tokenStore, openBrowser: false }, log, now: () => clock });
    const upstream = http({ url: remote.url, auth: authorizer });
    try {
      // The login from a terminal (`mcp-chain auth login`), played here.
      const redirects: string[] = [];
      await authorizer.login(undefined, {
        onUrl: (url) => {
          void as.completeLogin(url, { subject: 'bob', deliver: true }).then((redirect) => redirects.push(redirect));
        },
      });
      const h = await harness(chain().to(upstream), { log, capabilities: { elicitation: { url: {} } } });
      assert.equal(text(await h.request('tools/call', { name: 'whoami', arguments: {} })), 'bob');
      const first = storedTokens(tokenStore);

      // Minutes later the token is about to expire: refreshed before the call, a new token sent.
      clock = (first.expiresAt ?? clock) - 30_000;
      assert.equal(text(await h.request('tools/call', { name: 'whoami', arguments: {} })), 'bob');
      const second = storedTokens(tokenStore);
      assert.notEqual(second.accessToken, first.accessToken);
      assert.equal(remote.requests.at(-1)?.authorization, `Bearer ${second.accessToken}`);

      // The grant is revoked and the token refused: the refresh fails, a new login is needed.
      assert.ok(second.refreshToken);
      await as.revokeGrant(second.refreshToken);
      remote.expireTokens();
      const refused = await h.request('tools/call', { name: 'whoami', arguments: {} }).then(() => undefined, (e: unknown) => e);
      assert.ok(refused instanceof McpError, String(refused));
      assert.equal(refused.code, -32042);
      const [elicitation] = (refused.data as { elicitations: Array<{ mode: string; elicitationId: string; url: string; message: string }> }).elicitations;
      assert.ok(elicitation);
      assert.equal(elicitation.mode, 'url');
      assert.ok(elicitation.url.startsWith(as.authorizationEndpoint));

      const completed = h.notification('notifications/elicitation/complete', { timeoutMs: EVENT_MS });
      redirects.push(await as.completeLogin(elicitation.url, { subject: 'bob', deliver: true }));
      assert.deepEqual((await completed).params, { elicitationId: elicitation.elicitationId });
      assert.equal(text(await h.request('tools/call', { name: 'whoami', arguments: {} })), 'bob');
      const third = storedTokens(tokenStore);
      assert.notEqual(third.accessToken, second.accessToken);

      await h.close();
      assertNoSecrets(log, [first.accessToken, first.refreshToken, second.accessToken, third.accessToken, third.refreshToken, ...redirects.map(codeOf)]);
    } finally {
      await upstream.close?.();
      await authorizer.close();
    }
  });

  // oidc-provider holds a dynamically registered client to the `scope` it registered with (here
  // the resource's scopes_supported, without mcp:admin): the step-up login registers again.
  test('a call that needs more scope (403 insufficient_scope) is answered -32042 with a login for the union of scopes; once logged in, served', { ...T }, async () => {
    const tokenStore = join(dir, 'step-up.json');
    const log = new CaptureLogger();
    const authorizer = oauthAuthorizer({ server: 'remote', serverUrl: new URL(remote.url), oauth: { tokenStore, openBrowser: false }, log });
    const upstream = http({ url: remote.url, auth: authorizer });
    const redirects: string[] = [];
    let h: Harness | undefined;
    try {
      await authorizer.login(undefined, {
        onUrl: (url) => {
          void as.completeLogin(url, { subject: 'dave', deliver: true }).then((redirect) => redirects.push(redirect));
        },
      });
      h = await harness(chain().to(upstream), { log, capabilities: { elicitation: { url: {} } } });
      assert.equal(text(await h.request('tools/call', { name: 'whoami', arguments: {} })), 'dave');
      // A tool that needs more scope (403 insufficient_scope): a login asking for the union, then served.
      const stepUp = await h.request('tools/call', { name: 'admin', arguments: {} }).then(() => undefined, (e: unknown) => e);
      assert.ok(stepUp instanceof McpError, String(stepUp));
      assert.equal(stepUp.code, -32042, stepUp.message);
      const [more] = (stepUp.data as { elicitations: Array<{ elicitationId: string; url: string }> }).elicitations;
      assert.ok(more);
      assert.deepEqual(new URL(more.url).searchParams.get('scope')?.split(' ').sort(), ['mcp:admin', 'mcp:read', 'mcp:write']);
      const steppedUp = h.notification('notifications/elicitation/complete', { timeoutMs: EVENT_MS });
      redirects.push(await as.completeLogin(more.url, { subject: 'dave', deliver: true }));
      assert.deepEqual((await steppedUp).params, { elicitationId: more.elicitationId });
      assert.match(text(await h.request('tools/call', { name: 'admin', arguments: {} })) ?? '', /mcp:admin/);
      const tokens = storedTokens(tokenStore);
      assertNoSecrets(log, [tokens.accessToken, tokens.refreshToken, ...redirects.map(codeOf)]);
    } finally {
      await h?.close();
      await upstream.close?.();
      await authorizer.close();
    }
  });
});

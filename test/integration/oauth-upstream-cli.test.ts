// `mcp-chain serve <config>` (a real `node dist/cli/main.js`; build first) with a remote server
// whose config entry has an `oauth` key, in front of the SDK resource server fixture, oidc-provider
// as the authorization server, driven by the official SDK client over stdio. The gateway discovers
// the authorization server, registers itself, and hands out a login URL (on stderr, and in the
// error of a call); the test plays the person in the browser; the tools then work; a token the
// server finds expired is refreshed. A revoked
// grant asks for a new login (-32042 to a client that takes URL elicitations, completed when the
// person logged in again). The token file is 0600; no token, code or secret reaches stderr.
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AuthorizationServer } from '../helpers/authorization-server.js';
import { withTimeout } from '../helpers/client.js';
import { startOAuthRemote, type OAuthRemote } from '../helpers/oauth-remote.js';
import { StderrWatch } from '../helpers/stderr-watch.js';
import { storedTokens } from '../helpers/stored-logins.js';
import { proxyEnv, proxyMain } from '../helpers/targets.js';
import type { OAuthProtectedServer } from '../fixtures/servers/oauth-protected-server.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;

function text(result: unknown): string | undefined {
  return ((result as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text;
}

describe('mcp-chain serve: a remote server with an oauth key (real CLI, SDK client, oidc-provider)', T, () => {
  let fixture: OAuthRemote | undefined;
  let as: AuthorizationServer;
  let remote: OAuthProtectedServer;
  let dir: string;
  before(async () => {
    fixture = await startOAuthRemote('mcp-chain-oauth-cli-');
    ({ as, remote, dir } = fixture);
  });
  after(() => fixture?.close());

  test('login URL on stderr; after the login the tools work as the person; an expired token is refreshed; a revoked grant asks for a new login (-32042, completed); the token file is 0600; no secret on stderr', T, async () => {
    const config = join(dir, 'mcp-chain.config.json');
    const tokenStore = join(dir, 'tokens.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { remote: { url: remote.url, oauth: { openBrowser: false } } } }));
    const stderr = new StderrWatch("the gateway's stderr");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [proxyMain, 'serve', config],
      env: { PATH: process.env.PATH ?? '', ...proxyEnv(), MCP_CHAIN_TOKEN_STORE: tokenStore, MCP_CHAIN_NO_BROWSER: '1' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    const client = new Client({ name: 'oauth-upstream-cli-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const completions: string[] = [];
    let completed = (): void => undefined;
    const completion = new Promise<void>((resolve) => {
      completed = resolve;
    });
    client.fallbackNotificationHandler = (notification) => {
      if (notification.method === 'notifications/elicitation/complete') {
        completions.push(String((notification.params as { elicitationId?: unknown }).elicitationId));
        completed();
      }
      return Promise.resolve();
    };
    const redirects: string[] = [];
    try {
      const endpoint = as.authorizationEndpoint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const loginUrl = new RegExp(`(${endpoint}\\?[^\\s"\`)]+)`);
      const announced = stderr.waitFor(loginUrl, 0);
      await withTimeout(client.connect(transport), EVENT_MS, () => `initialize: ${stderr.text}`);
      const [, url] = await announced;
      assert.ok(url);

      // The person logs in; the gateway's next try of the server succeeds.
      const back = stderr.waitFor(/server \\?"remote\\?" is back/);
      redirects.push(await as.completeLogin(url, { subject: 'carol', deliver: true }));
      await back;
      assert.equal(text(await client.callTool({ name: 'whoami', arguments: {} })), 'carol');
      assert.equal(statSync(tokenStore).mode & 0o777, 0o600);
      const first = storedTokens(tokenStore);

      // The token expires for the server (401): refreshed by the gateway, the call served.
      remote.expireTokens();
      const expired = remote.nextRefusal();
      assert.equal(text(await client.callTool({ name: 'whoami', arguments: {} })), 'carol');
      await withTimeout(expired, EVENT_MS, () => 'the refusal of the expired token');
      const refreshed = storedTokens(tokenStore);
      assert.notEqual(refreshed.accessToken, first.accessToken);

      // The grant is revoked and the token refused: the refresh fails, the call asks for a new login.
      assert.ok(refreshed.refreshToken);
      await as.revokeGrant(refreshed.refreshToken);
      remote.expireTokens();
      const refused = await client.callTool({ name: 'whoami', arguments: {} }).then(() => undefined, (e: unknown) => e);
      assert.ok(refused instanceof McpError, String(refused));
      assert.equal(refused.code, -32042, refused.message);
      const [elicitation] = (refused.data as { elicitations: Array<{ elicitationId: string; url: string }> }).elicitations;
      assert.ok(elicitation);
      assert.ok(elicitation.url.startsWith(as.authorizationEndpoint));
      redirects.push(await as.completeLogin(elicitation.url, { subject: 'carol', deliver: true }));
      await withTimeout(completion, EVENT_MS, () => `notifications/elicitation/complete: ${stderr.text}`);
      assert.deepEqual(completions, [elicitation.elicitationId]);
      assert.equal(text(await client.callTool({ name: 'whoami', arguments: {} })), 'carol');
      const second = storedTokens(tokenStore);
      assert.notEqual(second.accessToken, refreshed.accessToken);

      // The remote server only ever saw tokens the authorization server made for it.
      assert.ok(remote.requests.every((r) => r.authorization === undefined || r.authorization.startsWith('Bearer ey')));
      for (const secret of [first.accessToken, first.refreshToken, refreshed.accessToken, refreshed.refreshToken, second.accessToken, second.refreshToken, ...redirects.map((r) => new URL(r).searchParams.get('code'))]) {
        if (secret) assert.ok(!stderr.text.includes(secret), 'a token or code reached stderr');
      }
    } finally {
      await client.close();
    }
  });
});

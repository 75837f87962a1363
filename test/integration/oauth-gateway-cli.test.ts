// `mcp-chain serve <config>` (a real `node dist/cli/main.js`; build first) of a gateway: a remote
// member with an `oauth` key (the SDK resource server fixture, oidc-provider as the authorization
// server) beside server-everything on stdio, driven by the official SDK client over stdio. The
// remote member cannot start until a person logs in: server-everything serves at once; a call to a
// tool of the remote one answers the login error (-32042 with the URL to a client that takes URL
// elicitations, else -32000 with the URL and the login command); once the person logged in, the
// client hears `tools/list_changed` (and the elicitation complete), and the remote tools work.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AuthorizationServer } from '../helpers/authorization-server.js';
import { withTimeout } from '../helpers/client.js';
import { startOAuthRemote, type OAuthRemote } from '../helpers/oauth-remote.js';
import { referenceEntry } from '../helpers/gateway.js';
import { proxyEnv, proxyMain } from '../helpers/targets.js';
import type { OAuthProtectedServer } from '../fixtures/servers/oauth-protected-server.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;

function text(result: unknown): string | undefined {
  return ((result as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text;
}

/** Notifications the client received, and a bounded wait for the next of a method. */
class Notifications {
  readonly seen: Array<{ method: string; params?: unknown }> = [];
  readonly #waiters = new Set<{ method: string; resolve: () => void }>();

  push(notification: { method: string; params?: unknown }): void {
    this.seen.push(notification);
    for (const waiter of [...this.#waiters]) {
      if (waiter.method !== notification.method) continue;
      this.#waiters.delete(waiter);
      waiter.resolve();
    }
  }

  /** The next `method` from now on. */
  next(method: string, what: () => string): Promise<void> {
    return withTimeout(new Promise<void>((resolve) => this.#waiters.add({ method, resolve })), EVENT_MS, () => `${method}: ${what()}`);
  }
}

describe('mcp-chain serve: a gateway whose remote member needs a login (real CLI, SDK client, oidc-provider)', T, () => {
  let fixture: OAuthRemote | undefined;
  let as: AuthorizationServer;
  let remote: OAuthProtectedServer;
  let dir: string;
  before(async () => {
    fixture = await startOAuthRemote('mcp-chain-oauth-gateway-');
    ({ as, remote, dir } = fixture);
  });
  after(() => fixture?.close());

  /** The gateway of a fresh config (its own token store: no login yet), and an SDK client with `capabilities` connected to it. */
  async function serve(name: string, capabilities: Record<string, unknown>): Promise<{ client: Client; notifications: Notifications; stderr: () => string }> {
    const config = join(dir, `${name}.config.json`);
    writeFileSync(config, JSON.stringify({ mcpServers: { remote: { url: remote.url, oauth: { openBrowser: false } }, everything: referenceEntry('server-everything') } }));
    let stderr = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [proxyMain, 'serve', config],
      env: { PATH: process.env.PATH ?? '', ...proxyEnv(), MCP_CHAIN_TOKEN_STORE: join(dir, `${name}.tokens.json`), MCP_CHAIN_NO_BROWSER: '1' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'oauth-gateway-cli-test', version: '1.0.0' }, { capabilities });
    const notifications = new Notifications();
    client.fallbackNotificationHandler = (notification) => {
      notifications.push(notification);
      return Promise.resolve();
    };
    await withTimeout(client.connect(transport), EVENT_MS, () => `initialize: ${stderr}`);
    return { client, notifications, stderr: () => stderr };
  }

  /** The other member serves at once; the remote one is not listed. */
  async function othersServe(client: Client): Promise<void> {
    const listed = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes('everything__echo'), listed.join(', '));
    assert.ok(!listed.some((name) => name.startsWith('remote__')), listed.join(', '));
    assert.equal(text(await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } })), 'Echo: hi');
  }

  /** Once the login is done: list_changed came (awaited by the caller), the remote tool is listed and answers as the person. */
  async function remoteServes(client: Client): Promise<void> {
    const after = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(after.includes('remote__whoami'), after.join(', '));
    assert.equal(text(await client.callTool({ name: 'remote__whoami', arguments: {} })), 'carol');
  }

  test('to a client that takes URL elicitations: the remote tool answers -32042 with the URL; after the login, the elicitation completes, list_changed, the tool works', T, async () => {
    const { client, notifications, stderr } = await serve('elicitation', { elicitation: { url: {} } });
    try {
      await othersServe(client);
      const refused = await client.callTool({ name: 'remote__whoami', arguments: {} }).then(() => undefined, (e: unknown) => e);
      assert.ok(refused instanceof McpError, String(refused));
      assert.equal(refused.code, -32042, refused.message);
      const [elicitation] = (refused.data as { elicitations: Array<{ mode: string; elicitationId: string; url: string }> }).elicitations;
      assert.ok(elicitation);
      assert.equal(elicitation.mode, 'url');
      assert.ok(elicitation.url.startsWith(as.authorizationEndpoint), elicitation.url);

      const changed = notifications.next('notifications/tools/list_changed', stderr);
      await as.completeLogin(elicitation.url, { subject: 'carol', deliver: true });
      await changed;
      await remoteServes(client);
      assert.ok(
        notifications.seen.some((n) => n.method === 'notifications/elicitation/complete' && (n.params as { elicitationId?: unknown }).elicitationId === elicitation.elicitationId),
        'the elicitation was completed',
      );
      // Told once that it is down (its retries are quiet).
      assert.equal(stderr().match(/server \\?"remote\\?" is down/g)?.length, 1, stderr());
    } finally {
      await client.close();
    }
  });

  test('to a client without URL elicitations: -32000 naming the member, with the login command and the URL; after the login, list_changed (the short retry), the tool works', T, async () => {
    const { client, notifications, stderr } = await serve('plain', {});
    try {
      await othersServe(client);
      const refused = await client.callTool({ name: 'remote__whoami', arguments: {} }).then(() => undefined, (e: unknown) => e);
      assert.ok(refused instanceof McpError, String(refused));
      assert.equal(refused.code, -32000, refused.message);
      const data = refused.data as { server: string; reason: string; login: string; url: string };
      assert.equal(data.server, 'remote');
      assert.match(data.reason, /needs a login/);
      assert.match(data.login, /^mcp-chain auth login remote\b/);
      assert.ok(data.url.startsWith(as.authorizationEndpoint), data.url);

      const changed = notifications.next('notifications/tools/list_changed', stderr);
      await as.completeLogin(data.url, { subject: 'carol', deliver: true });
      await changed;
      await remoteServes(client);
    } finally {
      await client.close();
    }
  });
});

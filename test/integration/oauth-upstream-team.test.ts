// A team gateway: `mcp-chain serve <config>` (a real `node dist/cli/main.js`; build first) with an
// HTTP front that is an OAuth resource server (`http.oauth`, oidc-provider issuing the users'
// tokens), and a remote member that wants OAuth too (the SDK resource server fixture), each user
// logging in to it as themselves. The login's redirect URI is an address of the gateway's own HTTP
// front (`oauth.redirectUri`), since a user's browser cannot reach a loopback listener on the
// gateway's host: the front answers it, before authentication (the login's `state` is the
// credential). Two users, alice and bob, each with the official SDK client declaring URL
// elicitations: each call to the remote tool first answers -32042 with that user's own login URL;
// once each logged in (the test plays their browser), the tool answers as that user. A forged
// redirect (wrong state) is 400 and leaves the login waiting; the token file holds one login per user.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startAuthorizationServer, type AuthorizationServer } from '../helpers/authorization-server.js';
import { withTimeout } from '../helpers/client.js';
import { workspace, type Workspace } from '../helpers/gateway.js';
import { freePort, send } from '../helpers/http.js';
import { proxyEnv, proxyMain } from '../helpers/targets.js';
import { userToken } from '../helpers/user-token.js';
import { startOAuthProtectedServer, type OAuthProtectedServer } from '../fixtures/servers/oauth-protected-server.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;
function text(result: unknown): string | undefined {
  return ((result as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text;
}

/** One user's MCP client: the official SDK client over Streamable HTTP with the user's token, taking URL elicitations. */
interface User {
  readonly client: Client;
  /** Resolves with the next notification of `method` from now on (bounded). */
  next(method: string): Promise<{ method: string; params?: Record<string, unknown> | undefined }>;
  readonly seen: Array<{ method: string; params?: Record<string, unknown> | undefined }>;
}

async function connectUser(resource: string, token: string, stderr: () => string): Promise<User> {
  const client = new Client({ name: 'oauth-upstream-team-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const seen: User['seen'] = [];
  const waiters = new Set<{ method: string; resolve: (n: User['seen'][number]) => void }>();
  client.fallbackNotificationHandler = (notification) => {
    seen.push(notification);
    for (const waiter of [...waiters]) {
      if (waiter.method !== notification.method) continue;
      waiters.delete(waiter);
      waiter.resolve(notification);
    }
    return Promise.resolve();
  };
  await withTimeout(client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${token}` } } })), EVENT_MS, () => `connect: ${stderr()}`);
  return {
    client,
    seen,
    next: (method) => withTimeout(new Promise((resolve) => waiters.add({ method, resolve })), EVENT_MS, () => `${method}: ${stderr()}`),
  };
}

/** The remote tool's first call: -32042 with one URL elicitation, this user's login. */
async function loginAsked(user: User, as: AuthorizationServer): Promise<{ elicitationId: string; url: string }> {
  const refused = await user.client.callTool({ name: 'remote__whoami', arguments: {} }).then(() => undefined, (e: unknown) => e);
  assert.ok(refused instanceof McpError, String(refused));
  assert.equal(refused.code, -32042, refused.message);
  const elicitations = (refused.data as { elicitations: Array<{ mode: string; elicitationId: string; url: string }> }).elicitations;
  assert.equal(elicitations.length, 1);
  const [elicitation] = elicitations;
  assert.ok(elicitation);
  assert.equal(elicitation.mode, 'url');
  assert.ok(elicitation.url.startsWith(as.authorizationEndpoint), elicitation.url);
  return elicitation;
}

describe('a team gateway: each user of the OAuth front logs in to the remote member as themselves, redirected to the front (real CLI, SDK clients, oidc-provider)', T, () => {
  let as: AuthorizationServer;
  let remote: OAuthProtectedServer;
  let ws: Workspace;
  before(async () => {
    as = await startAuthorizationServer();
    remote = await startOAuthProtectedServer({ issuer: as.issuer, jwksUri: as.jwksUri });
    ws = workspace('mcp-chain-oauth-team-');
  });
  after(async () => {
    await remote?.close();
    await as?.close();
    ws?.remove();
  });

  test('alice and bob each get their own login URL; the redirect comes to the front; a forged one is 400; each is then served as themselves; two logins kept', T, async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const resource = `${origin}/mcp`;
    const redirectUri = `${origin}/oauth/callback`;
    const tokenStore = ws.path('tokens.json');
    const config = ws.write(
      'mcp-chain.config.json',
      JSON.stringify({
        mcpServers: {
          remote: { url: remote.url, oauth: { redirectUri, openBrowser: false } },
          // A second member (so tools are named <server>__<tool>), served at once.
          local: { commands: { hello: { description: 'Says hello', command: process.execPath, args: ['-e', 'console.log("hello")'] } } },
        },
        http: { host: '127.0.0.1', port, oauth: { resource, issuer: as.issuer, jwksUri: as.jwksUri, requiredScopes: ['mcp:read'] } },
      }),
    );
    const child = spawn(process.execPath, [proxyMain, 'serve', config], {
      env: { PATH: process.env.PATH ?? '', ...proxyEnv(), MCP_CHAIN_TOKEN_STORE: tokenStore, MCP_CHAIN_NO_BROWSER: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const listening = new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        if (/"msg":"listening"/.test(stderr)) resolve();
      });
      void exited.then(() => reject(new Error(`the CLI exited before listening: ${stderr}`)));
    });
    const users: User[] = [];
    try {
      await withTimeout(listening, EVENT_MS, () => `the CLI to listen: ${stderr}`);
      const nothingWaits = await send(`${redirectUri}?code=x&state=y`, { method: 'GET' });
      assert.equal(nothingWaits.status, 404, 'no login waits: the path is not served');

      const alice = await connectUser(resource, await userToken(as, resource, 'alice'), () => stderr);
      const bob = await connectUser(resource, await userToken(as, resource, 'bob'), () => stderr);
      users.push(alice, bob);
      assert.match(text(await alice.client.callTool({ name: 'local__hello', arguments: {} })) ?? '', /hello/);
      const aliceLogin = await loginAsked(alice, as);
      const bobLogin = await loginAsked(bob, as);
      assert.notEqual(aliceLogin.url, bobLogin.url);
      for (const login of [aliceLogin, bobLogin]) assert.equal(new URL(login.url).searchParams.get('redirect_uri'), redirectUri);
      assert.notEqual(new URL(aliceLogin.url).searchParams.get('state'), new URL(bobLogin.url).searchParams.get('state'));

      // Someone forges a redirect with a state of their own: 400, without a token, and alice's login goes on waiting.
      const forged = await send(`${redirectUri}?code=forged&state=${'A'.repeat(43)}`, { method: 'GET' });
      assert.equal(forged.status, 400);
      assert.match(forged.text, /does not match/);

      const backs: string[] = [];
      // bob logs in first, then alice: each redirect settles its own login, the page never shows the code.
      for (const [user, login, subject] of [[bob, bobLogin, 'bob'], [alice, aliceLogin, 'alice']] as const) {
        const completed = user.next('notifications/elicitation/complete');
        const back = await as.completeLogin(login.url, { subject });
        assert.ok(back.startsWith(`${redirectUri}?`), back);
        const page = await send(back, { method: 'GET' });
        assert.equal(page.status, 200, page.text);
        assert.match(page.text, /Logged in/);
        const code = new URL(back).searchParams.get('code');
        assert.ok(code !== null && !page.text.includes(code), 'the page does not show the code');
        assert.deepEqual((await completed).params, { elicitationId: login.elicitationId });
        backs.push(back);
      }
      for (const back of backs) assert.equal((await send(back, { method: 'GET' })).status, 404, 'one use per state: nothing waits there any more');

      // Each is served as themselves once the member is back for their session.
      for (const [user, subject] of [[alice, 'alice'], [bob, 'bob']] as const) {
        const answer = await withTimeout(whoamiOnceBack(user), EVENT_MS, () => `remote__whoami for ${subject}: ${stderr}`);
        assert.equal(answer, subject);
      }

      const store = JSON.parse(readFileSync(tokenStore, 'utf8')) as { logins: Record<string, Record<string, { tokens: { accessToken: string; refreshToken?: string } }>> };
      assert.deepEqual(Object.keys(store.logins), [remote.url]);
      const logins = store.logins[remote.url] ?? {};
      assert.deepEqual(Object.keys(logins).sort(), [`${as.issuer} alice`, `${as.issuer} bob`]);
      const secrets = [...Object.values(logins).flatMap((login) => [login.tokens.accessToken, login.tokens.refreshToken]), ...backs.map((back) => new URL(back).searchParams.get('code')), 'forged'];
      for (const secret of secrets) if (secret !== undefined && secret !== null) assert.ok(!stderr.includes(secret), 'a token or code reached the log');
    } finally {
      for (const user of users) await user.client.close();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const exit = await withTimeout(exited, EVENT_MS, () => `the CLI to exit: ${stderr}`);
      assert.equal(exit.code, 0, stderr);
    }
  });
});

/**
 * `remote__whoami`'s answer once the member is up for this user's session: right away when it
 * already is, else after the `tools/list_changed` that says it came back.
 */
async function whoamiOnceBack(user: User): Promise<string | undefined> {
  const mark = user.seen.length;
  const tools = (await user.client.listTools()).tools.map((t) => t.name);
  if (!tools.includes('remote__whoami') && !user.seen.slice(mark).some((n) => n.method === 'notifications/tools/list_changed')) {
    await user.next('notifications/tools/list_changed');
  }
  return text(await user.client.callTool({ name: 'remote__whoami', arguments: {} }));
}

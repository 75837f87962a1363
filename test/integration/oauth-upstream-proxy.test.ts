// `mcp-chain --url <remote> --oauth` (the one-liner, a real `node dist/cli/main.js`; build first) in
// front of the SDK resource server fixture, oidc-provider as the authorization server, driven over
// stdio: a login made ahead of time with `mcp-chain auth login --url <remote>` (with a client
// registered beforehand and its fixed callback port) is found by the proxy; without one, the first
// request is answered with the login error naming `mcp-chain auth login --url <remote>`, the URL on
// stderr, and once the person logged in the same session is served as them. `mcp-chain serve <file>`
// from another directory names the file by its absolute path in the login command. No token, code
// or secret reaches stderr.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AuthorizationServer } from '../helpers/authorization-server.js';
import { withTimeout } from '../helpers/client.js';
import { startOAuthRemote, type OAuthRemote } from '../helpers/oauth-remote.js';
import { freePort } from '../helpers/http.js';
import { StderrWatch } from '../helpers/stderr-watch.js';
import { storedLogins } from '../helpers/stored-logins.js';
import { proxyEnv, proxyMain } from '../helpers/targets.js';
import type { OAuthProtectedServer } from '../fixtures/servers/oauth-protected-server.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;

function text(result: unknown): string | undefined {
  return ((result as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text;
}

/**
 * A transport started already (its first messages exchanged by the test), handed to the SDK client
 * for the rest of the session: `start()` does nothing, the rest goes to the transport.
 */
class StartedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #inner: Transport;

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onmessage = (message) => this.onmessage?.(message);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.onclose?.();
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/** A regular expression matching `text` literally. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('mcp-chain --url <remote> --oauth (real CLI, SDK client, oidc-provider)', T, () => {
  let fixture: OAuthRemote | undefined;
  let as: AuthorizationServer;
  let remote: OAuthProtectedServer;
  let dir: string;
  before(async () => {
    fixture = await startOAuthRemote('mcp-chain-oauth-proxy-');
    ({ as, remote, dir } = fixture);
  });
  after(() => fixture?.close());

  const env = (tokenStore: string): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    HOME: dir,
    ...proxyEnv(),
    MCP_CHAIN_TOKEN_STORE: tokenStore,
    MCP_CHAIN_NO_BROWSER: '1',
  });
  const loginUrl = (): RegExp => new RegExp(`(${literal(as.authorizationEndpoint)}\\?[^\\s"\`)]+)`);

  test('auth login --url ahead of time (a client registered beforehand, its callback port): the proxy with the same options serves the tools as the person, asking for no login', T, async () => {
    const tokenStore = join(dir, 'ahead.json');
    const port = await freePort();
    const client = await as.registerClient({
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    // `=`: a client id may begin with "-" (oidc-provider's are random base64url).
    const oauthArgs = [`--oauth-client-id=${client.client_id}`, '--oauth-callback-port', String(port), '--oauth-scope', 'mcp:read,mcp:write'];

    // The login, in a terminal: the URL on stderr, the browser played by the test.
    const login = spawn(process.execPath, [proxyMain, 'auth', 'login', '--url', remote.url, ...oauthArgs], { cwd: dir, env: env(tokenStore), stdio: ['ignore', 'pipe', 'pipe'] });
    const loginErr = new StderrWatch();
    let loginOut = '';
    login.stderr.on('data', (chunk: Buffer) => loginErr.push(chunk));
    login.stdout.setEncoding('utf8').on('data', (chunk: string) => (loginOut += chunk));
    const exited = new Promise<number | null>((resolve) => login.once('exit', (code) => resolve(code)));
    let redirect: string;
    try {
      const [, url] = await loginErr.waitFor(loginUrl(), 0);
      assert.ok(url);
      const asked = new URL(url);
      assert.deepEqual([asked.searchParams.get('client_id'), asked.searchParams.get('redirect_uri'), asked.searchParams.get('scope')], [client.client_id, `http://127.0.0.1:${port}/callback`, 'mcp:read mcp:write']);
      assert.equal(asked.searchParams.get('resource'), remote.url);
      redirect = await as.completeLogin(url, { subject: 'dave', deliver: true });
      assert.equal(await withTimeout(exited, EVENT_MS, () => `auth login to exit: ${loginErr.text}`), 0, loginErr.text);
    } finally {
      if (login.exitCode === null) login.kill();
    }
    assert.match(loginOut, new RegExp(`^Logged in to ${literal(remote.url)} \\(scopes mcp:read mcp:write, expires `));
    const [kept] = storedLogins(tokenStore);
    assert.ok(kept);
    assert.equal(kept.clientId, client.client_id);

    // The proxy finds the login under the server's URL.
    const seen = remote.requests.length;
    const stderr = new StderrWatch();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [proxyMain, '--url', remote.url, ...oauthArgs],
      env: env(tokenStore),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    const mcp = new Client({ name: 'oauth-upstream-proxy-test', version: '1.0.0' });
    try {
      await withTimeout(mcp.connect(transport), EVENT_MS, () => `initialize: ${stderr.text}`);
      assert.equal(text(await mcp.callTool({ name: 'whoami', arguments: {} })), 'dave');
      assert.equal(text(await mcp.callTool({ name: 'whoami', arguments: {} })), 'dave');
    } finally {
      await mcp.close();
    }
    assert.ok(!stderr.text.includes(as.authorizationEndpoint), `no login asked for: ${stderr.text}`);
    assert.deepEqual(remote.requests.slice(seen).filter((r) => r.status === 401 || r.authorization !== `Bearer ${kept.tokens.accessToken}`), [], 'every request carried the login, none refused');
    const { accessToken, refreshToken } = kept.tokens;
    for (const secret of [accessToken, refreshToken, new URL(redirect).searchParams.get('code')]) {
      if (secret) assert.ok(!stderr.text.includes(secret) && !loginErr.text.includes(secret) && !loginOut.includes(secret), 'a token or code was printed');
    }
  });

  test('no login yet: the first request is answered with the login error naming mcp-chain auth login --url, the URL on stderr; once the person logged in, the same session is served as them', T, async () => {
    const tokenStore = join(dir, 'first-use.json');
    const stderr = new StderrWatch();
    const inner = new StdioClientTransport({ command: process.execPath, args: [proxyMain, '--url', remote.url, '--oauth'], env: env(tokenStore), stderr: 'pipe' });
    inner.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    const answers = new Map<string | number, (message: JSONRPCMessage) => void>();
    inner.onmessage = (message) => {
      if ('id' in message && message.id !== undefined && !('method' in message)) answers.get(message.id)?.(message);
    };
    const announced = stderr.waitFor(loginUrl(), 0);
    await inner.start();
    const mcp = new Client({ name: 'oauth-upstream-proxy-test', version: '1.0.0' });
    let redirect = '';
    try {
      // The first request, by hand: the SDK client closes its transport when initialize fails.
      const answered = new Promise<JSONRPCMessage>((resolve) => answers.set(1, resolve));
      await inner.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'first', version: '1.0.0' } } });
      const refused = (await withTimeout(answered, EVENT_MS, () => `the answer to initialize: ${stderr.text}`)) as { error?: { code: number; message: string; data?: { login?: string; url?: string } } };
      assert.ok(refused.error, JSON.stringify(refused));
      assert.equal(refused.error.code, -32000, JSON.stringify(refused));
      assert.equal(refused.error.data?.login, `mcp-chain auth login --url ${remote.url}`);
      assert.ok(refused.error.message.includes(`mcp-chain auth login --url ${remote.url}`), refused.error.message);
      const [, url] = await announced;
      assert.ok(url);
      assert.equal(refused.error.data.url, url);

      // The person logs in; the session goes on as them.
      const loggedIn = stderr.waitFor(/: logged in/);
      redirect = await as.completeLogin(url, { subject: 'erin', deliver: true });
      await loggedIn;
      // The SDK client takes the session over (the wrapper takes over the transport's callbacks).
      await withTimeout(mcp.connect(new StartedTransport(inner)), EVENT_MS, () => `initialize after the login: ${stderr.text}`);
      assert.equal(text(await mcp.callTool({ name: 'whoami', arguments: {} })), 'erin');
    } finally {
      await mcp.close();
      await inner.close();
    }
    const [kept, ...others] = storedLogins(tokenStore);
    assert.ok(kept);
    assert.equal(others.length, 0);
    for (const secret of [kept.tokens.accessToken, kept.tokens.refreshToken, new URL(redirect).searchParams.get('code')]) {
      if (secret) assert.ok(!stderr.text.includes(secret), 'a token or code reached stderr');
    }
  });

  test('mcp-chain serve <file> from another directory: the login command names the file by its absolute path, quoted for the shell', T, async () => {
    const tokenStore = join(dir, 'serve.json');
    const configDir = join(dir, 'my configs');
    mkdirSync(configDir);
    const config = join(configDir, 'gateway.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { remote: { url: remote.url, oauth: { openBrowser: false } } } }));
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const stderr = new StderrWatch();
    const transport = new StdioClientTransport({ command: process.execPath, args: [proxyMain, 'serve', join('..', 'my configs', 'gateway.json')], cwd: elsewhere, env: env(tokenStore), stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    const mcp = new Client({ name: 'oauth-upstream-proxy-test', version: '1.0.0' });
    try {
      const command = stderr.waitFor(new RegExp(literal(`mcp-chain auth login remote --config '${config}'`)), 0);
      await withTimeout(mcp.connect(transport), EVENT_MS, () => `initialize: ${stderr.text}`);
      await command;
    } finally {
      await mcp.close();
    }
  });
});

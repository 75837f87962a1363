// `mcp-chain auth login|status|logout` through a real `node dist/cli/main.js` (build first),
// against a real authorization server (oidc-provider) and a protected resource naming it: the
// login URL on stderr, the browser played by the test (`completeLogin`, which loads the redirect
// into the CLI's loopback listener), the tokens kept in a 0600 file, status and logout; no token
// or code in anything the CLI prints.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { withDeadline } from '../../src/testing/with-deadline.js';
import { startAuthorizationServer, type AuthorizationServer } from '../helpers/authorization-server.js';
import { freePort } from '../helpers/http.js';
import { proxyEnv, proxyMain } from '../helpers/targets.js';

const T = { timeout: 45_000 };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('mcp-chain auth', () => {
  let as: AuthorizationServer;
  let resource: Server;
  let resourceUrl: string;
  let dir: string;
  let config: string;
  let tokens: string;

  before(async () => {
    as = await startAuthorizationServer();
    resource = createServer((req, res) => {
      if (req.url === '/.well-known/oauth-protected-resource/mcp') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ resource: resourceUrl, authorization_servers: [as.issuer], scopes_supported: ['mcp:read'] }));
        return;
      }
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
    await new Promise<void>((resolve) => resource.listen(0, '127.0.0.1', resolve));
    resourceUrl = `http://127.0.0.1:${(resource.address() as AddressInfo).port}/mcp`;
    dir = mkdtempSync(join(tmpdir(), 'mcp-chain-cli-auth-'));
    tokens = join(dir, 'state', 'tokens.json');
    config = join(dir, 'mcp-chain.config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { notes: { url: resourceUrl, oauth: { openBrowser: false } }, local: { command: 'x' } } }));
  });
  after(async () => {
    await new Promise<void>((resolve) => resource.close(() => resolve()));
    await as.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '', HOME: dir, MCP_CHAIN_TOKEN_STORE: tokens, MCP_CHAIN_NO_BROWSER: '1', ...proxyEnv() });

  /** Runs the CLI to its exit. */
  const run = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      const child = execFile(process.execPath, [proxyMain, ...args], { cwd: dir, env: env(), timeout: 20_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });

  /** `auth login`, the browser played on the URL it prints on stderr. Resolves with its output and the code the redirect carried. */
  const login = async (args: string[]): Promise<Run & { code_: string }> => {
    const child = spawn(process.execPath, [proxyMain, 'auth', 'login', ...args], { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await withDeadline(
        new Promise<string>((resolve, reject) => {
          child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
            stderr += chunk;
            const found = /https?:\/\/\S+\/auth\?\S+/.exec(stderr)?.[0];
            if (found !== undefined) resolve(found);
          });
          child.once('exit', () => reject(new Error(`auth login exited without a URL:\n${stderr}`)));
        }),
        { timeoutMs: 15_000, what: 'the login URL on stderr' },
      );
      const redirect = new URL(await as.completeLogin(url, { subject: 'alice', deliver: true }));
      const code = await withDeadline(exited, { timeoutMs: 15_000, what: 'auth login to exit' });
      return { code, stdout, stderr, code_: redirect.searchParams.get('code') ?? '' };
    } finally {
      if (child.exitCode === null) child.kill();
    }
  };

  test('login, status, logout of a server of the config file', T, async () => {
    const done = await login(['notes', '--config', config]);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /^Logged in to notes \(scopes [^)]*mcp:read[^)]*, expires \d{4}-\d\d-\d\dT[^)]+\)\nTokens kept in /);
    assert.match(done.stderr, /^Log in to notes in a browser: http:\/\/127\.0\.0\.1:\d+\/auth\?/m);
    assert.equal(statSync(tokens).mode & 0o777, 0o600);
    const stored = JSON.parse(readFileSync(tokens, 'utf8')) as { logins: Record<string, Record<string, { tokens: { accessToken: string; refreshToken?: string } }>> };
    const kept = stored.logins[resourceUrl]?.['local']?.tokens;
    assert.ok(kept !== undefined, JSON.stringify(Object.keys(stored.logins)));
    const secrets = [kept.accessToken, kept.refreshToken ?? 'none', done.code_];

    const status = await run(['auth', 'status', '--config', config]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`^notes \\(${resourceUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): logged in at ${as.issuer.replace(/[.]/g, '\\.')} \\(scopes .*; expires .*, refreshable\\)$`, 'm'));
    const json = await run(['auth', 'status', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const rows = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    assert.deepEqual(rows.map((row) => [row.server, row.principal, row.loggedIn, row.refreshable]), [['notes', 'local', true, true]], 'the config file of the working directory names the server');

    const logout = await run(['auth', 'logout', 'notes', '--config', config]);
    assert.equal(logout.code, 0, logout.stderr);
    assert.equal(logout.stdout, 'Logged out of notes (1 login forgotten).\n');
    const after = await run(['auth', 'status', '--config', config]);
    assert.equal(after.stdout, `notes (${resourceUrl}): not logged in\n`);

    for (const output of [done, status, json, logout, after]) {
      for (const secret of secrets) {
        assert.ok(!output.stdout.includes(secret) && !output.stderr.includes(secret), 'a secret was printed');
      }
    }
  });

  test("Claude Code's oauth: a client registered beforehand, its fixed callback port", T, async () => {
    const port = await freePort();
    const redirectUri = `http://localhost:${port}/callback`;
    const client = await as.registerClient({ redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', application_type: 'native' });
    const claude = join(dir, 'claude.json');
    writeFileSync(claude, JSON.stringify({ mcpServers: { notes: { type: 'http', url: resourceUrl, oauth: { clientId: client.client_id, callbackPort: port } } } }));
    const done = await login(['notes', '--config', claude]);
    assert.equal(done.code, 0, done.stderr);
    const url = new URL(/https?:\/\/\S+\/auth\?\S+/.exec(done.stderr)?.[0] ?? 'http://none');
    assert.deepEqual([url.searchParams.get('client_id'), url.searchParams.get('redirect_uri')], [client.client_id, redirectUri]);
    const stored = JSON.parse(readFileSync(tokens, 'utf8')) as { logins: Record<string, Record<string, { clientId: string }>>; clients: Record<string, unknown> };
    assert.equal(stored.logins[resourceUrl]?.['local']?.clientId, client.client_id);
    assert.ok(!JSON.stringify(stored.clients).includes(client.client_id), 'a client registered beforehand is not stored');
    assert.equal((await run(['auth', 'logout', 'notes', '--config', claude])).code, 0);
  });

  test('a URL instead of a name; mistakes: an unknown server, a local one, no action', T, async () => {
    const done = await login([resourceUrl]);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, new RegExp(`^Logged in to ${resourceUrl.replace(/[.]/g, '\\.')} `));
    assert.equal((await run(['auth', 'logout', resourceUrl])).stdout, `Logged out of ${resourceUrl} (1 login forgotten).\n`);

    const unknown = await run(['auth', 'login', 'nope', '--config', config]);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, `mcp-chain auth login: ${config} has no server named "nope"; its remote servers: notes\n`);
    const local = await run(['auth', 'login', 'local', '--config', config]);
    assert.equal(local.code, 1);
    assert.match(local.stderr, /"local" in .* is not a remote server/);
    const usage = await run(['auth', 'login']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /auth login needs a server/);
  });
});

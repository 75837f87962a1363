// The gateway as an OAuth client, end to end against a real authorization server (oidc-provider,
// test/helpers/authorization-server.ts) and a protected resource that names it in its metadata:
// login, the stored tokens, refresh before expiry and on a refusal, a revoked grant (a new login,
// started in the background), one refresh for many refusals, client credentials, status, logout,
// and logs that never hold a secret.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPkce, startAuthorizationServer, type AuthorizationServer } from '../../../test/helpers/authorization-server.js';
import type { Identity } from '../../core/session-info.js';
import type { LogFields, Logger } from '../../log/logger.js';
import { rememberSubjectToken } from '../subject-token.js';
import { LoginRequiredError } from './login-required-error.js';
import { oauthAuthorizer, type OAuthAuthorizer, type OAuthAuthorizerOptions } from './oauth-authorizer.js';
import { LOCAL_PRINCIPAL, MACHINE_PRINCIPAL, principalOf } from './principal-of.js';
import { TokenStore, type StoredLogin } from './token-store.js';

/** Every line logged, with its fields, as one string per line. */
function captureLog(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (message: string, fields?: LogFields) => void lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const logger: Logger & { lines: string[] } = { lines, error: add('error'), warn: add('warn'), info: add('info'), debug: add('debug'), child: () => logger };
  return logger;
}

/** A store that counts the logins written (one per token obtained: login, refresh, grant). */
class CountingStore extends TokenStore {
  writes = 0;
  override async setLogin(server: string, principal: string, login: StoredLogin): Promise<void> {
    this.writes++;
    await super.setLogin(server, principal, login);
  }
}

/** A protected resource (RFC 9728) at /mcp naming the authorization server; its /mcp refuses everything. */
async function startResource(issuer: string, metadataPath = '/.well-known/oauth-protected-resource/mcp'): Promise<{ url: URL; close(): Promise<void> }> {
  let origin = '';
  const server: Server = createServer((req, res) => {
    if (req.url === metadataPath) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [issuer], scopes_supported: ['mcp:read', 'mcp:write', 'mcp:admin'] }));
      return;
    }
    res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${origin}${metadataPath}"` });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: new URL(`${origin}/mcp`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('oauthAuthorizer', () => {
  let as: AuthorizationServer;
  let resource: { url: URL; close(): Promise<void> };
  let dir: string;
  let files = 0;
  const log = captureLog();
  /** Every secret seen in the tests: none may be in a log line. */
  const secrets = new Set<string>();
  const authorizers: OAuthAuthorizer[] = [];

  before(async () => {
    as = await startAuthorizationServer();
    resource = await startResource(as.issuer);
    dir = mkdtempSync(join(tmpdir(), 'mcp-chain-authorizer-'));
  });
  after(async () => {
    await Promise.all(authorizers.map((authorizer) => authorizer.close()));
    await resource.close();
    await as.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const make = (options: Partial<OAuthAuthorizerOptions> = {}): { authorizer: OAuthAuthorizer; store: CountingStore } => {
    const store = (options.store as CountingStore | undefined) ?? new CountingStore(join(dir, `tokens-${++files}`, 'tokens.json'));
    const authorizer = oauthAuthorizer({ server: 'notes', serverUrl: resource.url, oauth: { openBrowser: false }, log, ...options, store });
    authorizers.push(authorizer);
    return { authorizer, store };
  };

  /** A login of the local principal, the browser played by the helper; its code kept as a secret. */
  const logIn = async (authorizer: OAuthAuthorizer, subject = 'alice'): Promise<StoredLogin> => {
    let delivered: Promise<string> | undefined;
    const login = authorizer.login(LOCAL_PRINCIPAL, {
      onUrl: (url) => {
        delivered = as.completeLogin(url, { subject, deliver: true });
      },
    });
    const stored = await login;
    const redirect = new URL(await (delivered as Promise<string>));
    secrets.add(redirect.searchParams.get('code') ?? 'no code');
    remember(stored);
    return stored;
  };

  const remember = (login: StoredLogin | undefined): void => {
    if (login?.tokens.accessToken !== undefined) secrets.add(login.tokens.accessToken);
    if (login?.tokens.refreshToken !== undefined) secrets.add(login.tokens.refreshToken);
  };

  test('login: discovery from the resource metadata, dynamic registration, PKCE, the redirect, the code exchange; tokens kept in a 0600 file', async () => {
    const { authorizer, store } = make();
    assert.equal(await authorizer.authorization(LOCAL_PRINCIPAL), undefined, 'no token before a login');
    const login = await logIn(authorizer);
    assert.equal(login.issuer, as.issuer);
    assert.equal(login.resource, resource.url.href);
    assert.ok(login.tokens.refreshToken !== undefined, 'a refresh token');
    assert.equal(await authorizer.authorization(LOCAL_PRINCIPAL), `Bearer ${login.tokens.accessToken}`);
    assert.equal(statSync(store.file).mode & 0o777, 0o600);
    const client = await store.getClient(as.issuer, resource.url.href);
    assert.equal(client?.method, 'dcr');
    assert.equal(client?.clientId, login.clientId);
    if (client?.clientSecret !== undefined) secrets.add(client.clientSecret);
    const claims = JSON.parse(Buffer.from(login.tokens.accessToken.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual([claims.sub, claims.aud], ['alice', resource.url.href], 'minted for the resource, for the person who logged in');

    // Another authorizer (another process) on the same file: the login is there; the stored client is reused.
    const { authorizer: again } = make({ store: new CountingStore(store.file) });
    assert.equal(await again.authorization(LOCAL_PRINCIPAL), `Bearer ${login.tokens.accessToken}`);
    const second = await logIn(again, 'alice');
    assert.equal(second.clientId, login.clientId, 'the registered client is reused');

    const status = await again.status();
    assert.equal(status.url, resource.url.href);
    assert.deepEqual(
      status.logins.map((entry) => [entry.principal, entry.issuer, entry.refreshable, entry.expired]),
      [['local', as.issuer, true, false]],
    );
    assert.ok(!JSON.stringify(status).includes(second.tokens.accessToken));
  });

  test("login asks the server for its challenge first: protected resource metadata at a URL of the server's choosing", async () => {
    const own = await startResource(as.issuer, '/metadata/of/notes');
    try {
      const { authorizer } = make({ serverUrl: own.url });
      const login = await logIn(authorizer);
      assert.equal(login.resource, own.url.href);
    } finally {
      await own.close();
    }
  });

  test('a token expiring within a minute is refreshed before it is sent', async () => {
    let skew = 0;
    const { authorizer, store } = make({ now: () => Date.now() + skew });
    const login = await logIn(authorizer);
    const writes = store.writes;
    skew = (login.tokens.expiresAt ?? 0) - Date.now() - 30_000;
    const header = await authorizer.authorization(LOCAL_PRINCIPAL);
    assert.equal(store.writes, writes + 1, 'one refresh');
    const refreshed = await store.getLogin(resource.url.href, 'local');
    remember(refreshed);
    assert.notEqual(refreshed?.tokens.accessToken, login.tokens.accessToken);
    assert.equal(header, `Bearer ${refreshed?.tokens.accessToken}`);
  });

  test('a refusal (401) refreshes once, however many requests were refused at once; a stale refusal resolves at once', async () => {
    const { authorizer, store } = make();
    const login = await logIn(authorizer);
    const writes = store.writes;
    const sent = `Bearer ${login.tokens.accessToken}`;
    const refusal = { status: 401 as const, challenge: 'Bearer error="invalid_token"', sent };
    await Promise.all(Array.from({ length: 10 }, () => authorizer.refused(LOCAL_PRINCIPAL, refusal)));
    assert.equal(store.writes, writes + 1, 'one refresh for ten refusals');
    const refreshed = await store.getLogin(resource.url.href, 'local');
    remember(refreshed);
    assert.equal(await authorizer.authorization(LOCAL_PRINCIPAL), `Bearer ${refreshed?.tokens.accessToken}`);
    await authorizer.refused(LOCAL_PRINCIPAL, refusal);
    assert.equal(store.writes, writes + 1, 'a refusal of the replaced token: nothing to do');
  });

  test('a refused refresh (invalid_grant) drops the login and starts a new one: LoginRequiredError with its URL and completion', async () => {
    const { authorizer, store } = make();
    const login = await logIn(authorizer);
    await as.revokeGrant(login.tokens.refreshToken ?? '');
    const refusal = { status: 401 as const, challenge: undefined, sent: `Bearer ${login.tokens.accessToken}` };
    const error = await authorizer.refused(LOCAL_PRINCIPAL, refusal).then(
      () => assert.fail('expected a LoginRequiredError'),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof LoginRequiredError, String(error));
    assert.equal(error.server, 'notes');
    assert.equal(error.command, 'mcp-chain auth login notes');
    assert.ok(error.url?.startsWith(`${as.issuer}/auth?`));
    assert.equal(await store.getLogin(resource.url.href, 'local'), undefined, 'the worthless login is gone');
    assert.equal(await authorizer.authorization(LOCAL_PRINCIPAL), undefined);
    // A second refusal meanwhile joins the same login.
    const again = await authorizer.refused(LOCAL_PRINCIPAL, { ...refusal, sent: undefined }).catch((reason: unknown) => reason);
    assert.ok(again instanceof LoginRequiredError);
    assert.equal(again.url, error.url);
    // The URL is logged once per login, however many requests meet it (a gateway member is retried every second).
    assert.equal(log.lines.filter((line) => line.startsWith('info notes needs a login') && line.includes(error.url ?? '?')).length, 1);
    const redirect = new URL(await as.completeLogin(error.url ?? '', { subject: 'alice', deliver: true }));
    secrets.add(redirect.searchParams.get('code') ?? 'no code');
    await error.completion;
    const renewed = await store.getLogin(resource.url.href, 'local');
    remember(renewed);
    assert.equal(await authorizer.authorization(LOCAL_PRINCIPAL), `Bearer ${renewed?.tokens.accessToken}`);
  });

  test('client credentials: a token without a person, renewed on a refusal', async () => {
    const { authorizer, store } = make({ oauth: { grant: 'client_credentials', client: as.machineClient, openBrowser: false } });
    secrets.add(as.machineClient.clientSecret ?? 'no secret');
    await authorizer.refused(MACHINE_PRINCIPAL, { status: 401, challenge: `Bearer resource_metadata="${resource.url.origin}/.well-known/oauth-protected-resource/mcp"`, sent: undefined });
    const first = await store.getLogin(resource.url.href, 'machine');
    remember(first);
    assert.equal(first?.clientId, as.machineClient.clientId);
    assert.equal(await authorizer.authorization(MACHINE_PRINCIPAL), `Bearer ${first?.tokens.accessToken}`);
    await authorizer.refused(MACHINE_PRINCIPAL, { status: 401, challenge: undefined, sent: `Bearer ${first?.tokens.accessToken}` });
    const second = await store.getLogin(resource.url.href, 'machine');
    remember(second);
    assert.notEqual(second?.tokens.accessToken, first?.tokens.accessToken);
  });

  test('a kept login is sent only to the resource it was obtained for', async () => {
    const { authorizer, store } = make();
    const tokens = { accessToken: 'for-another-server', tokenType: 'bearer', expiresAt: Date.now() + 600_000 };
    const other = { tokens, issuer: as.issuer, resource: 'https://other.example/mcp', clientId: 'c', obtainedAt: Date.now() };
    await store.setLogin(resource.url.href, 'local', other);
    assert.equal(await authorizer.authorization(LOCAL_PRINCIPAL), undefined, 'another server\'s token');
    await store.setLogin(resource.url.href, 'local', { ...other, resource: `${resource.url.origin}/` });
    assert.equal(await authorizer.authorization(LOCAL_PRINCIPAL), 'Bearer for-another-server', 'the origin names the same server (as protected resource metadata may)');
    const pinned = make({ store, oauth: { resource: 'https://api.example/mcp', openBrowser: false } }).authorizer;
    assert.equal(await pinned.authorization(LOCAL_PRINCIPAL), undefined, 'a configured resource must match exactly');
  });

  test('logout forgets the logins; status shows none', async () => {
    const { authorizer } = make();
    await logIn(authorizer);
    assert.equal(await authorizer.logout(), 1);
    assert.equal(await authorizer.authorization(LOCAL_PRINCIPAL), undefined);
    assert.deepEqual((await authorizer.status()).logins, []);
    assert.equal(await authorizer.logout(), 0);
  });

  test('a login denied at the consent screen rejects with the reason, and stores nothing', async () => {
    const { authorizer, store } = make();
    let delivered: Promise<string> | undefined;
    const error = await authorizer
      .login(LOCAL_PRINCIPAL, { onUrl: (url) => (delivered = as.completeLogin(url, { subject: 'alice', consent: 'deny', deliver: true })) })
      .catch((reason: unknown) => reason);
    await delivered;
    assert.ok(error instanceof Error && error.name === 'OAuthClientError', String(error));
    assert.equal((error as Error & { code?: string }).code, 'denied');
    assert.equal(await store.getLogin(resource.url.href, 'local'), undefined);
  });

  test('403 insufficient_scope: a new login asking for the scopes held and those the server wants', async () => {
    const { authorizer, store } = make({ oauth: { openBrowser: false, scopes: ['mcp:read'] } });
    const login = await logIn(authorizer);
    const error = await authorizer
      .refused(LOCAL_PRINCIPAL, { status: 403, challenge: 'Bearer error="insufficient_scope", scope="mcp:admin"', sent: `Bearer ${login.tokens.accessToken}` })
      .catch((reason: unknown) => reason);
    assert.ok(error instanceof LoginRequiredError, String(error));
    assert.match(error.message, /more scopes are needed/);
    const asked = new URL(error.url ?? '').searchParams.get('scope')?.split(' ').sort();
    assert.deepEqual(asked, [...new Set([...(login.tokens.scope ?? '').split(' '), 'mcp:admin'])].sort());
    assert.equal((await store.getLogin(resource.url.href, 'local'))?.tokens.accessToken, login.tokens.accessToken, 'the login held is kept meanwhile');
    const redirect = new URL(await as.completeLogin(error.url ?? '', { subject: 'alice', deliver: true }));
    secrets.add(redirect.searchParams.get('code') ?? 'no code');
    await error.completion;
    const stepped = await store.getLogin(resource.url.href, 'local');
    remember(stepped);
    assert.ok(stepped?.tokens.scope?.split(' ').includes('mcp:admin'), stepped?.tokens.scope);
  });

  /** An access token of `subject` for another resource (the gateway's front), as a user's client would have it. */
  const frontToken = async (subject: string): Promise<string> => {
    const redirectUri = 'http://127.0.0.1:9/callback';
    const client = await as.registerClient({ redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' });
    const pkce = createPkce();
    const url = as.authorizationUrl({ clientId: client.client_id, redirectUri, resource: 'https://gateway.test/mcp', codeChallenge: pkce.challenge, state: 's' });
    const code = new URL(await as.completeLogin(url, { subject })).searchParams.get('code') ?? '';
    const token = (await as.exchangeCode({ clientId: client.client_id }, { code, verifier: pkce.verifier, redirectUri, resource: 'https://gateway.test/mcp' })).access_token;
    secrets.add(token);
    return token;
  };

  test("token exchange: each user's token from the front exchanged for one of the same subject for the server; kept in memory only", async () => {
    const oauth = { grant: 'token_exchange' as const, tokenExchange: { clientId: as.tokenExchangeClient.clientId, clientSecret: as.tokenExchangeClient.clientSecret }, openBrowser: false };
    secrets.add(as.tokenExchangeClient.clientSecret ?? 'no secret');
    const { authorizer, store } = make({ oauth });
    const bob: Identity = { id: 'bob', method: 'oauth', issuer: as.issuer };
    rememberSubjectToken(bob, await frontToken('bob'));
    const principal = principalOf({ identity: bob }, oauth);
    assert.equal(await authorizer.authorization(principal), undefined);
    await authorizer.refused(principal, { status: 401, challenge: undefined, sent: undefined });
    const header = (await authorizer.authorization(principal)) ?? '';
    const token = header.replace(/^Bearer /, '');
    secrets.add(token);
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual([claims.sub, claims.aud], ['bob', resource.url.href]);
    const exchange = as.tokenExchanges.at(-1);
    assert.deepEqual([exchange?.clientId, exchange?.subject, exchange?.resource], [as.tokenExchangeClient.clientId, 'bob', resource.url.href]);
    assert.equal(store.writes, 0, 'exchanged tokens are not written to the file');
    const carol: Identity = { id: 'carol', method: 'bearer' };
    await assert.rejects(authorizer.refused(principalOf({ identity: carol }, oauth), { status: 401, challenge: undefined, sent: undefined }), /a token exchange needs the user's token/);
  });

  test('no log line holds a token, a code or a secret', () => {
    assert.ok(secrets.size >= 6, `secrets seen: ${secrets.size}`);
    assert.ok(log.lines.length > 0);
    const text = log.lines.join('\n');
    for (const secret of secrets) assert.ok(!text.includes(secret), 'a secret was logged');
    assert.doesNotMatch(text, /code_verifier|refresh_token=|access_token/);
  });
});

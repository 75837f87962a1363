import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defaultTokenStorePath, TokenStore, TokenStoreError, type StoredClient, type StoredLogin } from './token-store.js';
import { runTsxScript } from '../../fs/_test/run-tsx-script.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-token-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const storeFile = (): string => join(dir, `d${++files}`, 'tokens.json');

const SERVER = 'https://mcp.example/';
const OTHER = 'https://other.example/mcp';
const ISSUER = 'https://as.example';

const login = (accessToken: string, extra: Partial<StoredLogin['tokens']> = {}): StoredLogin => ({
  tokens: { accessToken, tokenType: 'Bearer', ...extra },
  issuer: ISSUER,
  resource: SERVER,
  clientId: 'client-1',
  obtainedAt: 1_700_000_000_000,
});

const client: StoredClient = {
  issuer: ISSUER,
  clientId: 'client-1',
  tokenEndpointAuthMethod: 'none',
  redirectUri: 'http://127.0.0.1:4711/callback',
  method: 'dcr',
  registeredAt: 1_700_000_000_000,
};

describe('TokenStore', () => {
  test('logins are kept per server and per principal; no file reads as no login', async () => {
    const store = new TokenStore(storeFile());
    assert.equal(await store.getLogin(SERVER, 'local'), undefined);
    await store.setLogin(SERVER, 'local', login('at-local', { refreshToken: 'rt', expiresAt: 1_700_000_060_000, scope: 'read write' }));
    await store.setLogin(SERVER, 'https://idp.example alice', login('at-alice'));
    await store.setLogin(OTHER, 'local', login('at-other'));
    assert.deepEqual(await store.getLogin(SERVER, 'local'), login('at-local', { refreshToken: 'rt', expiresAt: 1_700_000_060_000, scope: 'read write' }));
    assert.equal((await store.getLogin(SERVER, 'https://idp.example alice'))?.tokens.accessToken, 'at-alice');
    assert.equal((await store.getLogin(OTHER, 'local'))?.tokens.accessToken, 'at-other');
    assert.equal(await store.getLogin(SERVER, 'machine'), undefined);
    await store.setLogin(SERVER, 'local', login('at-local-2'));
    assert.deepEqual(await store.getLogin(SERVER, 'local'), login('at-local-2'), 'replaced, the refresh token with it');
    assert.deepEqual(
      (await store.listLogins()).map((entry) => [entry.server, entry.principal, entry.login.tokens.accessToken]),
      [
        [SERVER, 'local', 'at-local-2'],
        [SERVER, 'https://idp.example alice', 'at-alice'],
        [OTHER, 'local', 'at-other'],
      ],
    );
  });

  test('deleteLogins forgets one principal or every one at a server, and says how many', async () => {
    const store = new TokenStore(storeFile());
    await store.setLogin(SERVER, 'local', login('a'));
    await store.setLogin(SERVER, 'machine', login('b'));
    await store.setLogin(OTHER, 'local', login('c'));
    assert.equal(await store.deleteLogins(SERVER, 'nobody'), 0);
    assert.equal(await store.deleteLogins(SERVER, 'local'), 1);
    assert.equal(await store.getLogin(SERVER, 'local'), undefined);
    assert.equal((await store.getLogin(SERVER, 'machine'))?.tokens.accessToken, 'b');
    await store.setLogin(SERVER, 'x', login('d'));
    assert.equal(await store.deleteLogins(SERVER), 2);
    assert.equal(await store.deleteLogins('https://never.example/'), 0);
    assert.deepEqual(JSON.parse(readFileSync(store.file, 'utf8')).logins, { [OTHER]: { local: login('c') } });
  });

  test('clients are kept per issuer and server', async () => {
    const store = new TokenStore(storeFile());
    assert.equal(await store.getClient(ISSUER, SERVER), undefined);
    await store.setClient(ISSUER, SERVER, client);
    await store.setClient(ISSUER, OTHER, { ...client, clientId: 'client-2', clientSecret: 's', tokenEndpointAuthMethod: 'client_secret_basic', clientSecretExpiresAt: 0 });
    assert.deepEqual(await store.getClient(ISSUER, SERVER), client);
    assert.equal((await store.getClient(ISSUER, OTHER))?.clientId, 'client-2');
    assert.equal(await store.getClient('https://as2.example', SERVER), undefined);
    assert.equal(await store.deleteClient(ISSUER, SERVER), true);
    assert.equal(await store.deleteClient(ISSUER, SERVER), false);
    assert.equal(await store.getClient(ISSUER, SERVER), undefined);
    assert.equal((await store.getClient(ISSUER, OTHER))?.clientId, 'client-2');
  });

  test('the file is versioned JSON, 0600 in a directory made 0700, with no temporary or lock file left', async () => {
    const store = new TokenStore(storeFile());
    await store.setLogin(SERVER, 'local', login('at'));
    await store.setClient(ISSUER, SERVER, client);
    assert.equal(statSync(store.file).mode & 0o777, 0o600);
    assert.equal(statSync(join(store.file, '..')).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(join(store.file, '..')), ['tokens.json']);
    assert.deepEqual(JSON.parse(readFileSync(store.file, 'utf8')), {
      version: 1,
      logins: { [SERVER]: { local: login('at') } },
      clients: { [ISSUER]: { [SERVER]: client } },
    });
  });

  test('keys that are names of Object.prototype members are plain keys', async () => {
    const store = new TokenStore(storeFile());
    assert.equal(await store.getLogin('constructor', 'toString'), undefined);
    await store.setLogin('__proto__', '__proto__', login('at'));
    assert.equal((await store.getLogin('__proto__', '__proto__'))?.tokens.accessToken, 'at');
    assert.equal((await new TokenStore(store.file).getLogin('__proto__', '__proto__'))?.tokens.accessToken, 'at');
    assert.equal(Object.getPrototypeOf({}).tokens, undefined);
    assert.equal(await store.deleteLogins('__proto__'), 1);
  });

  test('a login stored by another process is read at the next get', async () => {
    const file = storeFile();
    const mine = new TokenStore(file);
    assert.equal(await mine.getLogin(SERVER, 'local'), undefined);
    await new TokenStore(file).setLogin(SERVER, 'local', login('theirs'));
    assert.equal((await mine.getLogin(SERVER, 'local'))?.tokens.accessToken, 'theirs');
  });

  test('two stores on one file, interleaved writes: no login is lost', async () => {
    const file = storeFile();
    const one = new TokenStore(file);
    const two = new TokenStore(file);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 25; i++) writes.push(one.setLogin(SERVER, `one-${i}`, login(`a${i}`)), two.setClient(ISSUER, `https://s${i}.example/`, client));
    await Promise.all(writes);
    const fresh = new TokenStore(file);
    assert.equal((await fresh.listLogins()).length, 25);
    assert.equal(Object.keys(JSON.parse(readFileSync(file, 'utf8')).clients[ISSUER]).length, 25);
  });

  test('two processes writing at once: no login is lost', { timeout: 30_000 }, async () => {
    const file = storeFile();
    const script = fileURLToPath(new URL('./_test/write-logins.ts', import.meta.url));
    const run = (prefix: string): Promise<number | null> => runTsxScript(script, [file, prefix, '15']);
    assert.deepEqual(await Promise.all([run('p'), run('q'), new TokenStore(file).setLogin(SERVER, 'here', login('h')).then(() => 0)]), [0, 0, 0]);
    assert.equal((await new TokenStore(file).listLogins()).length, 31);
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  test('a corrupt file is a TokenStoreError naming the file and what is wrong (never a value), and is never overwritten', async () => {
    const secret = 'at-SECRET-VALUE';
    for (const [text, why] of [
      ['{"version":1,', /is corrupt \(not JSON/],
      [`{"version":1,"logins":{"accessToken":"${secret}" x}}`, /is corrupt \(not JSON/],
      ['{"version":2,"logins":{},"clients":{}}', /expected \{ "version": 1/],
      [`{"version":1,"logins":{"${SERVER}":{"local":{"tokens":{"accessToken":"${secret}"}}}},"clients":{}}`, /login of "local" at "https:\/\/mcp\.example\/": tokens needs accessToken and tokenType/],
      [`{"version":1,"logins":{},"clients":{"${ISSUER}":{"${SERVER}":{"issuer":"${ISSUER}","clientId":"c","registeredAt":1,"tokenEndpointAuthMethod":"x","method":"dcr","clientSecret":"${secret}"}}}}`, /client of "https:\/\/as\.example" for "https:\/\/mcp\.example\/": tokenEndpointAuthMethod/],
    ] as const) {
      const store = new TokenStore(storeFile());
      await store.setLogin(SERVER, 'local', login('at'));
      writeFileSync(store.file, text);
      await assert.rejects(store.getLogin(SERVER, 'local'), (error: unknown) => {
        assert.ok(error instanceof TokenStoreError);
        assert.match(error.message, why);
        assert.ok(error.message.includes(store.file), 'names the file');
        assert.ok(error.message.includes('never overwritten'));
        assert.ok(!error.message.includes(secret), 'never a value');
        return true;
      });
      await assert.rejects(store.setLogin(SERVER, 'local', login('new')), TokenStoreError);
      await assert.rejects(store.deleteLogins(SERVER), TokenStoreError);
      assert.equal(readFileSync(store.file, 'utf8'), text);
      assert.equal(existsSync(`${store.file}.lock`), false);
    }
  });

  test('the default path: MCP_CHAIN_TOKEN_STORE, else XDG_CONFIG_HOME, else ~/.config', () => {
    assert.equal(defaultTokenStorePath({ MCP_CHAIN_TOKEN_STORE: '/t/tokens.json', XDG_CONFIG_HOME: '/x' }), '/t/tokens.json');
    assert.equal(defaultTokenStorePath({ XDG_CONFIG_HOME: '/x' }), '/x/mcp-chain/tokens.json');
    assert.match(defaultTokenStorePath({ XDG_CONFIG_HOME: '' }), /\/\.config\/mcp-chain\/tokens\.json$/);
  });
});

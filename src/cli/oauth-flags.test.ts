import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COMMAND_TABLE } from './command-table.js';
import { authCommand } from './commands/auth.js';
import { proxyCommand } from './commands/proxy.js';
import { oauthFlags, urlLoginCommand } from './oauth-flags.js';
import { parseCommandLine } from './parse-command-line.js';
import type { ServeOptions } from './serve-options.js';
import type { OptionValues } from './command.js';
import { chainSourceOf } from './serve-flags-of.js';
import { UsageError } from './usage-error.js';

const URL_ = 'https://mcp.example.com/mcp';

/** The proxy's values of a command line (its options only: nothing is started). */
function proxyValues(argv: string[]): OptionValues<ServeOptions> {
  const line = parseCommandLine(COMMAND_TABLE, argv);
  assert.equal(line.kind, 'command');
  if (line.kind !== 'command') throw new Error('not a command');
  assert.equal(line.command, proxyCommand);
  return line.parsed.values as OptionValues<ServeOptions>;
}

const usage = (message: string | RegExp) => (error: unknown) =>
  error instanceof UsageError && (typeof message === 'string' ? error.message === message : message.test(error.message));

/** The remote server `--url` and its options name (what the proxy would serve). */
function remoteOf(argv: string[]): unknown {
  const source = chainSourceOf(undefined, proxyValues(argv), undefined, []);
  return source.kind === 'chain' && source.server?.kind === 'http' ? source.server.options : undefined;
}

const fail = (message: string): never => {
  throw new UsageError(message);
};

describe('mcp-chain --url <url> with OAuth: its options', () => {
  test('--oauth: the remote server gets an OAuth client with the defaults; the login command names the URL', () => {
    assert.deepEqual(remoteOf(['--url', URL_, '--oauth']), { url: URL_, headers: {}, oauth: {}, loginCommand: `mcp-chain auth login --url ${URL_}` });
  });

  test('--oauth-client-id implies --oauth; scopes by spaces or commas; the callback port makes the loopback redirect URI; all of them in the login command', () => {
    const argv = ['--url', URL_, '--oauth-client-id', 'mcp-chain-cli', '--oauth-scope', 'mcp:read, mcp:write  files', '--oauth-callback-port', '33418'];
    assert.deepEqual(remoteOf(argv), {
      url: URL_,
      headers: {},
      oauth: { client: { clientId: 'mcp-chain-cli' }, scopes: ['mcp:read', 'mcp:write', 'files'], redirectUri: 'http://127.0.0.1:33418/callback' },
      loginCommand: `mcp-chain auth login --url ${URL_} --oauth-client-id=mcp-chain-cli --oauth-scope 'mcp:read mcp:write files' --oauth-callback-port 33418`,
    });
  });

  test('no OAuth option: no OAuth, as before', () => {
    assert.deepEqual(remoteOf(['--url', URL_, '--bearer', '${TOKEN}']), { url: URL_, headers: {}, bearer: '${TOKEN}' });
  });

  test('the client secret comes from the variable named; the login command names the variable, never the secret', () => {
    const flags = oauthFlags({ 'oauth-client-id': 'gw', 'oauth-client-secret-env': 'GW_SECRET' }, { GW_SECRET: 's3cr3t' }, fail);
    assert.deepEqual(flags?.oauth, { client: { clientId: 'gw', clientSecret: 's3cr3t' } });
    const command = urlLoginCommand(URL_, flags?.words ?? []);
    assert.equal(command, `mcp-chain auth login --url ${URL_} --oauth-client-id=gw --oauth-client-secret-env GW_SECRET`);
    assert.ok(!command.includes('s3cr3t'));
  });

  test('usage mistakes, each on one line, none echoing a secret', () => {
    const serve = (argv: string[]) => () => remoteOf(argv);
    assert.throws(() => proxyValues(['--oauth', '--', 'server']), usage('--oauth needs --url'));
    assert.throws(() => proxyValues(['--oauth-client-id', 'x', '--', 'server']), usage('--oauth-client-id needs --url'));
    assert.throws(() => proxyValues(['--url', URL_, '--oauth', '--oauth-client-secret-env', 'S']), usage('--oauth-client-secret-env needs --oauth-client-id'));
    assert.throws(serve(['--url', URL_, '--oauth', '--bearer', 'abc']), usage(/^give either --oauth or --bearer, not both/));
    assert.throws(serve(['--url', URL_, '--oauth-client-id', 'x', '--header', 'authorization: Bearer abc']), usage(/^give either --oauth-client-id or an Authorization --header, not both/));
    assert.throws(serve(['--url', URL_, '--oauth-scope', 'a']), usage('--oauth-scope needs --oauth or --oauth-client-id'));
    assert.throws(serve(['--url', URL_, '--oauth-callback-port', '8080']), usage('--oauth-callback-port needs --oauth or --oauth-client-id'));
    assert.throws(serve(['--url', URL_, '--oauth', '--oauth-scope', ' , ']), usage('--oauth-scope needs at least one scope'));
    for (const port of ['0', '65536', 'http', '80.5']) {
      assert.throws(serve(['--url', URL_, '--oauth', `--oauth-callback-port=${port}`]), usage(`--oauth-callback-port must be a port number (1-65535), got ${port}`));
    }
    assert.throws(() => oauthFlags({ 'oauth-client-id': 'gw', 'oauth-client-secret-env': 'GW_SECRET' }, {}, fail), usage('--oauth-client-secret-env GW_SECRET: the variable is not set'));
    assert.throws(() => oauthFlags({ 'oauth-client-id': 'gw', 'oauth-client-secret-env': 'GW_SECRET' }, { GW_SECRET: '' }, fail), usage('--oauth-client-secret-env GW_SECRET: the variable is not set'));
    assert.throws(() => oauthFlags({ 'oauth-client-id': 'gw', 'oauth-client-secret-env': 'my secret' }, {}, fail), usage('--oauth-client-secret-env takes the name of an environment variable, got my secret'));
  });
});

describe('mcp-chain auth --url <url>: its options', () => {
  const run = (argv: string[]): Promise<number> => {
    const line = parseCommandLine(COMMAND_TABLE, argv);
    assert.equal(line.kind, 'command');
    if (line.kind !== 'command') return Promise.resolve(-1);
    assert.equal(line.command, authCommand);
    return line.command.run(line.parsed);
  };
  const authUsage = (message: string) => (error: unknown) => error instanceof UsageError && error.message === message && error.command === 'auth';

  test('login --url takes the proxy\'s OAuth options', () => {
    const line = parseCommandLine(COMMAND_TABLE, ['auth', 'login', '--url', URL_, '--oauth-client-id', 'gw', '--oauth-scope', 'a,b', '--oauth-callback-port', '33418']);
    assert.equal(line.kind, 'command');
    if (line.kind !== 'command') return;
    assert.deepEqual(line.parsed.positionals, ['login']);
    assert.deepEqual(line.parsed.values, { url: URL_, 'oauth-client-id': 'gw', 'oauth-scope': 'a,b', 'oauth-callback-port': '33418' });
  });

  test('usage mistakes: a server twice, --url that is no URL, OAuth options for a server of the config file', async () => {
    await assert.rejects(run(['auth', 'login', 'github', '--url', URL_]), authUsage('give the server either as <server> or as --url, not both'));
    await assert.rejects(run(['auth', 'logout', '--url', 'github']), authUsage('--url takes an http or https URL, got github'));
    await assert.rejects(run(['auth', 'login', 'github', '--oauth-client-id', 'gw']), authUsage('--oauth-client-id is for a server given by --url (a server of the config file has its own `oauth` settings)'));
    await assert.rejects(run(['auth', 'login', '--url', URL_, '--oauth-callback-port', '99999']), authUsage('--oauth-callback-port must be a port number (1-65535), got 99999'));
    await assert.rejects(run(['auth', 'login', '--url', URL_, '--json']), authUsage('--json is for auth status only'));
  });
});

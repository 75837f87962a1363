import { defineCommand } from '../command.js';
import { loadAuthCommand } from '../load-auth-command.js';
import { OAUTH_OPTIONS, oauthFlags } from '../oauth-flags.js';
import { UsageError } from '../usage-error.js';

/** `mcp-chain auth login|status|logout`: the gateway's logins at remote servers that need OAuth. */
export const authCommand = defineCommand({
  name: 'auth',
  summary: 'log in to a remote server that needs OAuth, show the logins, log out',
  synopsis: [
    { usage: 'login <server> [--config <file>] [--store <file>]', summary: 'log in to a remote server in a browser and keep its tokens' },
    {
      usage: 'login --url <url> [--oauth-client-id <id> ...] [--store <file>]',
      summary: 'the same for a remote server given by URL, as `mcp-chain --url <url> --oauth` serves it (the same OAuth options)',
    },
    { usage: 'status [--config <file>] [--store <file>] [--json]', summary: 'the logins kept: per server, who, scopes, when they expire (--url <url>: of that server)' },
    { usage: 'logout <server> [--config <file>] [--store <file>]', summary: 'forget the tokens kept for a server' },
    { usage: 'logout --url <url> [--store <file>]', summary: 'the same for a remote server given by URL' },
  ],
  description: [
    'A remote server that needs OAuth (MCP authorization) answers 401 until the gateway has an access token for it. `auth login` gets one the way the spec says: it discovers the server\'s authorization server (protected resource metadata, then authorization server metadata), registers mcp-chain as a client when the server has no client configured (a Client ID Metadata Document, else dynamic registration), prints the login URL on stderr, opens it in a browser when there is a desktop, waits for the redirect to a loopback address (5 minutes at most), and keeps the tokens in the token file (mode 0600), from which `serve` and the one-liners take them, refreshing them before they expire. It prints "Logged in to <server>" with the scopes granted and when the token expires.',
    '`<server>` is the name of an HTTP server in the config file (its `oauth` settings apply), or the URL of one. Without --config, the config file is mcp-chain.config.* in the working directory, when there is one. The token file is the server\'s `oauth.tokenStore`, else --store, else $MCP_CHAIN_TOKEN_STORE, else $XDG_CONFIG_HOME/mcp-chain/tokens.json (~/.config/mcp-chain/tokens.json). `auth status` lists the logins kept (never a token): of the config\'s servers with a config file, else every login of the file. `auth logout` forgets every login kept for the server (the authorization server may keep its grant until it expires).',
    '`--url <url>` names a server by its URL, as `mcp-chain --url <url> --oauth` serves it: log in with `auth login --url <url>` (and the OAuth options given to the proxy: --oauth-client-id, --oauth-client-secret-env, --oauth-scope, --oauth-callback-port) ahead of time, and the proxy finds the login, kept under the server\'s URL. The OAuth options are for servers given by URL only: a config file\'s server has its `oauth` key.',
    'Exit codes: 0 done; 1 the login failed or was refused, the token file or config file cannot be read, the server is not an HTTP server of the config; 2 a usage mistake.',
    'Example: `mcp-chain auth login github --config ~/.cursor/mcp.json`',
  ],
  positionals: [
    { name: 'action', help: '`login`, `status` or `logout`' },
    { name: 'server', optional: true, help: '`login` and `logout`: a server\'s name in the config file, or its URL' },
  ],
  options: {
    config: { type: 'string', value: '<file>', help: 'the config file naming the servers (default: mcp-chain.config.* in the working directory)' },
    store: { type: 'string', value: '<file>', help: 'the token file, for servers whose `oauth` names none (default $MCP_CHAIN_TOKEN_STORE, else $XDG_CONFIG_HOME/mcp-chain/tokens.json)' },
    json: { type: 'boolean', help: '`status` only: as JSON on stdout (one object per login)' },
    url: { type: 'string', value: '<url>', help: 'the remote server by its URL (instead of <server>): as `mcp-chain --url <url>` names it' },
    'oauth-client-id': { ...OAUTH_OPTIONS['oauth-client-id'], help: 'with --url: the client registered for mcp-chain at the authorization server beforehand, as `mcp-chain --url <url> --oauth-client-id <id>` uses it' },
    'oauth-client-secret-env': OAUTH_OPTIONS['oauth-client-secret-env'],
    'oauth-scope': OAUTH_OPTIONS['oauth-scope'],
    'oauth-callback-port': OAUTH_OPTIONS['oauth-callback-port'],
  },
  async run({ values, positionals }) {
    const [action, named] = positionals;
    const fail = (message: string): never => {
      throw new UsageError(message, 'auth');
    };
    if (action !== 'login' && action !== 'status' && action !== 'logout') return fail(`unknown auth action '${action ?? ''}': expected login, status or logout`);
    if (named !== undefined && values.url !== undefined) fail(`give the server either as <server> or as --url, not both`);
    const server = named ?? values.url;
    const byUrl = server !== undefined && /^https?:\/\//i.test(server);
    if (values.url !== undefined && !byUrl) fail(`--url takes an http or https URL, got ${values.url.slice(0, 80)}`);
    // The OAuth options say how to reach a server given by URL; a config file's server has its `oauth` key.
    const flags = oauthFlags({ ...values, oauth: true }, process.env, fail);
    const given = Object.keys(values).find((name) => name.startsWith('oauth-'));
    if (given !== undefined && !byUrl) fail(`--${given} is for a server given by --url (a server of the config file has its own \`oauth\` settings)`);
    const url = byUrl ? { oauth: flags?.oauth, oauthWords: flags?.words } : {};
    if (action === 'status') {
      if (named !== undefined) fail('auth status takes no server');
      const command = await loadAuthCommand();
      return command.authStatus({ config: values.config, store: values.store, json: values.json === true, ...(byUrl ? { url: server, ...url } : {}) });
    }
    if (server === undefined) return fail(`auth ${action} needs a server: its name in the config file, or its URL`);
    if (values.json === true) fail(`--json is for auth status only`);
    const command = await loadAuthCommand();
    if (action === 'login') return command.authLogin({ server, config: values.config, store: values.store, ...url });
    return command.authLogout({ server, config: values.config, store: values.store, ...url });
  },
});

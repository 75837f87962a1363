import { defineCommand } from '../command.js';
import { loadAuthCommand } from '../load-auth-command.js';
import { UsageError } from '../usage-error.js';

/** `mcp-chain auth login|status|logout`: the gateway's logins at remote servers that need OAuth. */
export const authCommand = defineCommand({
  name: 'auth',
  summary: 'log in to a remote server that needs OAuth, show the logins, log out',
  synopsis: [
    { usage: 'login <server> [--config <file>] [--store <file>]', summary: 'log in to a remote server in a browser and keep its tokens' },
    { usage: 'status [--config <file>] [--store <file>] [--json]', summary: 'the logins kept: per server, who, scopes, when they expire' },
    { usage: 'logout <server> [--config <file>] [--store <file>]', summary: 'forget the tokens kept for a server' },
  ],
  description: [
    'A remote server that needs OAuth (MCP authorization) answers 401 until the gateway has an access token for it. `auth login` gets one the way the spec says: it discovers the server\'s authorization server (protected resource metadata, then authorization server metadata), registers mcp-chain as a client when the server has no client configured (a Client ID Metadata Document, else dynamic registration), prints the login URL on stderr, opens it in a browser when there is a desktop, waits for the redirect to a loopback address (5 minutes at most), and keeps the tokens in the token file (mode 0600), from which `serve` and the one-liners take them, refreshing them before they expire. It prints "Logged in to <server>" with the scopes granted and when the token expires.',
    '`<server>` is the name of an HTTP server in the config file (its `oauth` settings apply), or the URL of one. Without --config, the config file is mcp-chain.config.* in the working directory, when there is one. The token file is the server\'s `oauth.tokenStore`, else --store, else $MCP_CHAIN_TOKEN_STORE, else $XDG_CONFIG_HOME/mcp-chain/tokens.json (~/.config/mcp-chain/tokens.json). `auth status` lists the logins kept (never a token): of the config\'s servers with a config file, else every login of the file. `auth logout` forgets every login kept for the server (the authorization server may keep its grant until it expires).',
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
  },
  async run({ values, positionals }) {
    const [action, server] = positionals;
    if (action !== 'login' && action !== 'status' && action !== 'logout') throw new UsageError(`unknown auth action '${action ?? ''}': expected login, status or logout`, 'auth');
    if (action === 'status') {
      if (server !== undefined) throw new UsageError('auth status takes no server', 'auth');
      const command = await loadAuthCommand();
      return command.authStatus({ config: values.config, store: values.store, json: values.json === true });
    }
    if (server === undefined) throw new UsageError(`auth ${action} needs a server: its name in the config file, or its URL`, 'auth');
    if (values.json === true) throw new UsageError(`--json is for auth status only`, 'auth');
    const command = await loadAuthCommand();
    if (action === 'login') return command.authLogin({ server, config: values.config, store: values.store });
    return command.authLogout({ server, config: values.config, store: values.store });
  },
});

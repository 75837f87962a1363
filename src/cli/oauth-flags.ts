import type { UpstreamOAuthOptions } from '../auth/client/upstream-oauth-options.js';
import type { OptionDefinitions, OptionValues } from './command.js';

const OAUTH = 'OAuth for the remote server (with --url)';

/**
 * The options that make the gateway an OAuth client of a remote server given by URL (`mcp-chain
 * --url <url> --oauth`, `mcp-chain auth login --url <url>`): what a config file's `oauth` key of a
 * server says, on the command line. The client secret comes from an environment variable only, so
 * that it never shows in `ps`. The serving commands add `requires: 'url'` to them.
 */
export const OAUTH_OPTIONS = {
  oauth: {
    type: 'boolean',
    group: OAUTH,
    help: 'the remote server needs OAuth (MCP authorization): discover its authorization server, register as a client there when none is given, and ask for a login (the URL on stderr, and in the error of the call that needs it; `mcp-chain auth login --url <url>` logs in ahead of time). Not with --bearer or an Authorization --header.',
  },
  'oauth-client-id': {
    type: 'string',
    value: '<id>',
    group: OAUTH,
    help: 'the client registered for mcp-chain at the authorization server beforehand, instead of dynamic registration (implies --oauth)',
  },
  'oauth-client-secret-env': {
    type: 'string',
    value: '<NAME>',
    group: OAUTH,
    requires: 'oauth-client-id',
    help: "the environment variable holding that client's secret (a confidential client; never give the secret itself on the command line)",
  },
  'oauth-scope': {
    type: 'string',
    value: '<scopes>',
    group: OAUTH,
    help: "the scopes to ask for, separated by spaces or commas (default: the server's challenge's, else its metadata's scopes_supported)",
  },
  'oauth-callback-port': {
    type: 'string',
    value: '<port>',
    group: OAUTH,
    help: 'the login redirects to http://127.0.0.1:<port>/callback (for a client registered with that redirect URI; default: a free port)',
  },
} as const satisfies OptionDefinitions;

export type OAuthFlags = typeof OAUTH_OPTIONS;

/** What the OAuth options of a command line ask for. */
export interface OAuthFlagRequest {
  /** The options of the authorizer. */
  readonly oauth: UpstreamOAuthOptions;
  /**
   * The OAuth options as words of a command line, for the login command in messages: the secret's
   * variable by name, never its value.
   */
  readonly words: readonly string[];
}

/**
 * The OAuth options given (`undefined`: none, no OAuth). `--oauth-client-id` implies `--oauth`;
 * `--oauth-scope` and `--oauth-callback-port` need one of them; the secret is read from the
 * environment variable named (unset or empty is a usage error that names the variable, never a
 * value). Mistakes call `fail` (one line).
 */
export function oauthFlags(values: OptionValues<OAuthFlags>, env: NodeJS.ProcessEnv, fail: (message: string) => never): OAuthFlagRequest | undefined {
  const clientId = values['oauth-client-id'];
  const secretEnv = values['oauth-client-secret-env'];
  const scopeText = values['oauth-scope'];
  const port = values['oauth-callback-port'];
  if (values.oauth !== true && clientId === undefined) {
    if (scopeText !== undefined) fail('--oauth-scope needs --oauth or --oauth-client-id');
    if (port !== undefined) fail('--oauth-callback-port needs --oauth or --oauth-client-id');
    if (secretEnv !== undefined) fail('--oauth-client-secret-env needs --oauth-client-id');
    return undefined;
  }
  const words: string[] = [];
  let client: UpstreamOAuthOptions['client'];
  if (clientId !== undefined) {
    if (clientId.trim() === '') fail('--oauth-client-id needs a client id');
    // One word with `=`: a client id may begin with "-", which would read as an option.
    words.push(`--oauth-client-id=${shellWord(clientId)}`);
    let clientSecret: string | undefined;
    if (secretEnv !== undefined) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv)) fail(`--oauth-client-secret-env takes the name of an environment variable, got ${secretEnv.slice(0, 40)}`);
      clientSecret = env[secretEnv];
      if (clientSecret === undefined || clientSecret === '') fail(`--oauth-client-secret-env ${secretEnv}: the variable is not set`);
      words.push('--oauth-client-secret-env', secretEnv);
    }
    client = { clientId, ...(clientSecret === undefined ? {} : { clientSecret }) };
  }
  let scopes: string[] | undefined;
  if (scopeText !== undefined) {
    scopes = scopeText.split(/[\s,]+/).filter((scope) => scope !== '');
    if (scopes.length === 0) fail('--oauth-scope needs at least one scope');
    words.push('--oauth-scope', shellWord(scopes.join(' ')));
  }
  let redirectUri: string | undefined;
  if (port !== undefined) {
    const n = Number(port);
    if (!/^\d+$/.test(port) || !Number.isInteger(n) || n < 1 || n > 65535) fail(`--oauth-callback-port must be a port number (1-65535), got ${port}`);
    redirectUri = `http://127.0.0.1:${n}/callback`;
    words.push('--oauth-callback-port', String(n));
  }
  return {
    oauth: {
      ...(client === undefined ? {} : { client }),
      ...(scopes === undefined ? {} : { scopes }),
      ...(redirectUri === undefined ? {} : { redirectUri }),
    },
    words,
  };
}

/** `mcp-chain auth login --url <url>` with the OAuth options that were given (so that the login uses the same client). */
export function urlLoginCommand(url: string, words: readonly string[]): string {
  return ['mcp-chain auth login --url', shellWord(url), ...words].join(' ');
}

/** A word for a POSIX shell: as is when safe, single-quoted otherwise. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

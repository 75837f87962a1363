import type { OptionDefinitions } from './command.js';
import { OAUTH_OPTIONS } from './oauth-flags.js';

const HTTP = 'HTTP front (with --http)';

/**
 * The options of every command that serves a chain (the default command and `run`): where to
 * listen, which server to reach, and the session's limits. One definition, so the commands cannot
 * drift apart; `serveRequest` turns their values into a ServeRequest.
 */
export const SERVE_OPTIONS = {
  http: {
    type: 'string',
    value: '[host:]port',
    group: HTTP,
    help: 'serve on Streamable HTTP at /mcp instead of stdio, listening there (host defaults to 127.0.0.1; port 0 picks a free one). A host other than loopback needs --token-env or --allow-unauthenticated.',
  },
  sse: { type: 'boolean', group: HTTP, requires: 'http', help: 'also serve the legacy HTTP+SSE transport at /sse and /messages' },
  'token-env': {
    type: 'string',
    multiple: true,
    value: '<VAR>',
    group: HTTP,
    requires: 'http',
    help: 'require this bearer token (or X-API-Key) from the environment variable VAR (repeatable; the identity is named VAR)',
  },
  'allow-unauthenticated': {
    type: 'boolean',
    group: HTTP,
    requires: 'http',
    help: 'listen beyond loopback without --token-env: the endpoint answers anyone who can reach it (a warning says so at start)',
  },
  'allow-origin': {
    type: 'string',
    multiple: true,
    value: '<origin>',
    group: HTTP,
    requires: 'http',
    help: 'an Origin browsers may call from (repeatable; default: loopback pages)',
  },
  'allow-host': {
    type: 'string',
    multiple: true,
    value: '<name>',
    group: HTTP,
    requires: 'http',
    help: 'a Host name to answer to (repeatable; default: loopback names when bound to loopback, any otherwise)',
  },
  'session-ttl': { type: 'string', value: '<seconds>', group: HTTP, requires: 'http', help: 'end sessions idle for this long (default 1800)' },
  'max-sessions': { type: 'string', value: '<n>', group: HTTP, requires: 'http', help: 'most live sessions (default 1000)' },
  'max-starting-sessions': { type: 'string', value: '<n>', group: HTTP, requires: 'http', help: 'most sessions starting at once; the next wait their turn (up to 10 s), beyond: 503 (default: twice the cores, at least 4)' },
  shared: {
    type: 'boolean',
    group: HTTP,
    requires: 'http',
    help: 'one upstream (server process or remote session) for all sessions instead of one per session (see docs/architecture.md, shared upstream)',
  },
  name: { type: 'string', value: '<name>', help: "serverInfo.name shown to clients (default: the upstream's own)" },
  timeout: { type: 'string', value: '<ms>', help: 'deadline of each forwarded request (default 60000); the upstream gets notifications/cancelled, the client -32001' },
  'max-timeout': { type: 'string', value: '<ms>', help: 'hard maximum even when progress keeps extending a deadline (default 600000)' },
  'max-message-bytes': { type: 'string', value: '<n>', help: 'largest message accepted from the client (default 4 MiB); larger ones get -32600' },
  'drain-ms': {
    type: 'string',
    value: '<ms>',
    help: 'on SIGTERM or SIGINT, how long calls in flight may take to finish (default 10000; 0: none): new sessions and requests are refused meanwhile (HTTP: 503 with Retry-After), the calls left at the deadline are cancelled upstream and answered -32000; a second signal exits at once',
  },
  'log-level': {
    type: 'string',
    value: '<level>',
    help: 'silent, error, warn, info or debug (default info, or MCP_CHAIN_LOG_LEVEL); logs go to stderr',
  },
  'inherit-env': { type: 'boolean', help: 'give the server our whole environment (default: a safe minimum, PATH, HOME, USER, ..., plus --env)' },
  env: { type: 'string', multiple: true, value: 'KEY=VALUE', help: 'set a variable for the server (repeatable)' },
  cwd: { type: 'string', value: '<dir>', help: 'working directory of the server' },
  url: { type: 'string', value: '<url>', help: 'the remote server, Streamable HTTP or legacy HTTP+SSE (instead of a command after --)' },
  header: {
    type: 'string',
    multiple: true,
    value: "'Name: value'",
    requires: 'url',
    help: 'send this header to the remote server (repeatable)',
  },
  bearer: {
    type: 'string',
    value: '<token>',
    requires: 'url',
    help: 'send Authorization: Bearer <token> to the remote server (header values and the token may use ${NAME}: quote them so that the shell leaves them to mcp-chain, and the secret stays out of ps)',
  },
  oauth: { ...OAUTH_OPTIONS.oauth, requires: 'url' },
  'oauth-client-id': { ...OAUTH_OPTIONS['oauth-client-id'], requires: 'url' },
  'oauth-client-secret-env': OAUTH_OPTIONS['oauth-client-secret-env'],
  'oauth-scope': { ...OAUTH_OPTIONS['oauth-scope'], requires: 'url' },
  'oauth-callback-port': { ...OAUTH_OPTIONS['oauth-callback-port'], requires: 'url' },
} as const satisfies OptionDefinitions;

export type ServeOptions = typeof SERVE_OPTIONS;

const FILE_HTTP = "HTTP front (with --http, or the file's `http` section: each option replaces what the file says)";

/**
 * The options of `mcp-chain serve <config-file>`: the file names the servers, so only the front and
 * the session's limits are left to the command line. The HTTP options need no `--http` here: a
 * file with an `http` section serves HTTP by itself (`configServeRequest` refuses them when
 * neither says HTTP).
 */
export const CONFIG_SERVE_OPTIONS = {
  http: {
    type: 'string',
    value: '[host:]port',
    group: FILE_HTTP,
    help: "serve on Streamable HTTP instead of stdio, listening there (instead of the file's host and port; host defaults to 127.0.0.1, port 0 picks a free one). A host other than loopback needs a token or --allow-unauthenticated.",
  },
  sse: { type: 'boolean', group: FILE_HTTP, help: SERVE_OPTIONS.sse.help },
  'token-env': { type: 'string', multiple: true, value: '<VAR>', group: FILE_HTTP, help: `${SERVE_OPTIONS['token-env'].help}; replaces the file's tokens` },
  'allow-unauthenticated': { type: 'boolean', group: FILE_HTTP, help: 'listen beyond loopback without a token: the endpoint answers anyone who can reach it (a warning says so at start)' },
  'allow-origin': { type: 'string', multiple: true, value: '<origin>', group: FILE_HTTP, help: SERVE_OPTIONS['allow-origin'].help },
  'allow-host': { type: 'string', multiple: true, value: '<name>', group: FILE_HTTP, help: SERVE_OPTIONS['allow-host'].help },
  'session-ttl': { type: 'string', value: '<seconds>', group: FILE_HTTP, help: SERVE_OPTIONS['session-ttl'].help },
  'max-sessions': { type: 'string', value: '<n>', group: FILE_HTTP, help: SERVE_OPTIONS['max-sessions'].help },
  'max-starting-sessions': { type: 'string', value: '<n>', group: FILE_HTTP, help: SERVE_OPTIONS['max-starting-sessions'].help },
  watch: {
    type: 'boolean',
    help: 're-read the file when it changes: servers added, removed or changed are started or stopped in running sessions too (the others keep running); a file with problems is reported and the running config kept. The front and the global middleware change only at a restart.',
  },
  name: { type: 'string', value: '<name>', help: "serverInfo.name shown to clients (instead of the file's serverInfo, default mcp-chain)" },
  timeout: { type: 'string', value: '<ms>', help: SERVE_OPTIONS.timeout.help },
  'max-timeout': { type: 'string', value: '<ms>', help: SERVE_OPTIONS['max-timeout'].help },
  'max-message-bytes': { type: 'string', value: '<n>', help: SERVE_OPTIONS['max-message-bytes'].help },
  'drain-ms': { type: 'string', value: '<ms>', help: `${SERVE_OPTIONS['drain-ms'].help} (instead of the file's drainMs)` },
  'log-level': { type: 'string', value: '<level>', help: SERVE_OPTIONS['log-level'].help },
} as const satisfies OptionDefinitions;

export type ConfigServeOptions = typeof CONFIG_SERVE_OPTIONS;

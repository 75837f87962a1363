import type { UpstreamOAuthOptions } from '../../auth/client/upstream-oauth-options.js';
import type { UpstreamAuth } from '../../auth/upstream-auth.js';

/** How to reach a remote MCP server over HTTP. */
export interface HttpOptions {
  /** The MCP endpoint (Streamable HTTP), or the SSE endpoint of a legacy HTTP+SSE server. */
  url: string | URL;
  /**
   * Headers sent with every request. Values may contain `${NAME}` references to environment
   * variables; a variable that is not set is a configuration error when the upstream is made.
   */
  headers?: Readonly<Record<string, string>>;
  /** A bearer token (`Authorization: Bearer …`); may contain `${NAME}` references too. */
  bearer?: string;
  /** Where `${NAME}` references are looked up. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The name in logs; defaults to the URL's host. */
  name?: string;
  /** Largest JSON body or SSE event accepted from the server. Default 4 MiB. */
  maxMessageBytes?: number;
  /**
   * How long `close()` waits for the server to acknowledge the end of the session (DELETE). Default
   * 1000 ms.
   */
  closeTimeoutMs?: number;
  /**
   * Where access tokens for the server come from (an object asked before every request, told of
   * every 401): for tests and programs that get tokens their own way. Not with `bearer` or an
   * `Authorization` header.
   */
  auth?: UpstreamAuth;
  /**
   * The gateway gets access tokens for the server as an OAuth client (MCP authorization): discovery,
   * registration, a login in a browser (`mcp-chain auth login`), refresh. See UpstreamOAuthOptions.
   */
  oauth?: UpstreamOAuthOptions;
  /**
   * With `oauth`: the command that logs in to the server, named in the error of a request that
   * needs a login (and in the login's messages), e.g. `mcp-chain auth login github --config
   * /home/me/mcp.json`. It must work from any directory: name the config file by its absolute
   * path. Default `mcp-chain auth login <name>`.
   */
  loginCommand?: string;
}

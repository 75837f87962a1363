/**
 * @module
 * How the gateway gets access tokens for one remote server (an HTTP upstream): the options of
 * `http({ oauth })`, and of a config file's `oauth` key of a server. Values that are secrets
 * (`clientSecret`, token-exchange credentials) may use `${NAME}`; they are never logged.
 */

/** A client registered with the authorization server beforehand. */
export interface PreregisteredClient {
  readonly clientId: string;
  /** A confidential client's secret (`${NAME}` usually). */
  readonly clientSecret?: string | undefined;
  /** How it authenticates at the token endpoint. Default: `client_secret_basic` with a secret, else `none`. */
  readonly tokenEndpointAuthMethod?: 'none' | 'client_secret_basic' | 'client_secret_post' | undefined;
}

/** RFC 8693 token exchange: each user's token from the front, exchanged for one for this server. */
export interface TokenExchangeOptions {
  /** The identity provider's token endpoint. Default: the front's issuer's, by discovery. */
  readonly tokenEndpoint?: string | undefined;
  /** The gateway's client at the identity provider. */
  readonly clientId: string;
  readonly clientSecret?: string | undefined;
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none' | undefined;
  /** `audience` of the exchange request, when the provider wants one. */
  readonly audience?: string | undefined;
  /** `requested_token_type`. Default `urn:ietf:params:oauth:token-type:access_token`. */
  readonly requestedTokenType?: string | undefined;
}

export type UpstreamGrant = 'authorization_code' | 'client_credentials' | 'token_exchange';

export interface UpstreamOAuthOptions {
  /**
   * `authorization_code` (default): a person logs in in a browser (`mcp-chain auth login`);
   * `client_credentials`: machine to machine, needs `client`; `token_exchange`: each user of an
   * authenticating HTTP front gets a token exchanged from their own (RFC 8693), needs `tokenExchange`.
   */
  readonly grant?: UpstreamGrant | undefined;
  /** A client registered beforehand (else the Client ID Metadata Document, else Dynamic Client Registration). */
  readonly client?: PreregisteredClient | undefined;
  /** An https URL serving this gateway's Client ID Metadata Document, used as `client_id` where the authorization server supports it. */
  readonly clientMetadataUrl?: string | undefined;
  /** The name shown on the consent screen when registering dynamically. Default `mcp-chain`. */
  readonly clientName?: string | undefined;
  /** Scopes to ask for. Default: the `scope` of the server's challenge, else its `scopes_supported`. */
  readonly scopes?: readonly string[] | undefined;
  /**
   * The redirect URI of the login: loopback (`http://127.0.0.1:<port>/callback`, where mcp-chain
   * listens; default a free port, kept with the registration), or an address of the gateway's own
   * HTTP front (`https://mcp.example.com/oauth/callback`), which then answers that path while a
   * login waits, so each user of a team gateway logs in from their own browser.
   */
  readonly redirectUri?: string | undefined;
  /** The authorization server's issuer, skipping protected-resource discovery. */
  readonly authorizationServer?: string | undefined;
  /** The resource indicator (RFC 8707). Default: the protected resource metadata's `resource`, else the server's URL. */
  readonly resource?: string | undefined;
  readonly tokenExchange?: TokenExchangeOptions | undefined;
  /**
   * Users of an authenticating HTTP front use the token of the person running mcp-chain (the
   * `local` login) instead of each logging in. Default false: each user logs in for themselves.
   */
  readonly sharedLogin?: boolean | undefined;
  /** The token file. Default `$MCP_CHAIN_TOKEN_STORE`, else `$XDG_CONFIG_HOME/mcp-chain/tokens.json` (`~/.config/…`). */
  readonly tokenStore?: string | undefined;
  /** Open the login URL in a browser when a desktop is there. Default true. */
  readonly openBrowser?: boolean | undefined;
}

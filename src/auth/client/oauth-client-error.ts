/**
 * Why getting a token for a remote server failed, in the terms the caller acts on.
 *
 * - `discovery`: the server's protected resource metadata or its authorization server's metadata
 *   could not be found or is not acceptable (wrong `resource`, wrong `issuer`, no PKCE S256).
 * - `registration`: no client could be had (nothing pre-registered, no Client ID Metadata
 *   Document, no Dynamic Client Registration, or the registration was refused).
 * - `grant`: the token endpoint refused a grant, or its answer is not acceptable.
 * - `invalid_grant`: the token endpoint answered `invalid_grant` (a refresh token expired or was
 *   revoked): the stored login is worthless.
 * - `state`: the authorization response does not belong to the request (`state` or `iss` mismatch).
 * - `denied`: the person (or the server) refused the authorization request (`access_denied`).
 * - `unsupported`: something this client does not do (a token type other than Bearer, ...).
 *
 * Messages never hold tokens, codes, secrets or query strings: URLs appear as origin and path.
 */
export class OAuthClientError extends Error {
  override name = 'OAuthClientError';
  readonly code: 'discovery' | 'registration' | 'grant' | 'invalid_grant' | 'state' | 'denied' | 'unsupported';
  /** The OAuth `error` code the server answered, when it answered one (`invalid_grant`, `access_denied`, ...). */
  readonly oauthError: string | undefined;

  constructor(
    code: OAuthClientError['code'],
    message: string,
    options: { oauthError?: string | undefined; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.oauthError = options.oauthError;
  }
}

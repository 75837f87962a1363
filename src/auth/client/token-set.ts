/** Tokens from a token endpoint, as the gateway keeps them. Secret: never logged. */
export interface TokenSet {
  readonly accessToken: string;
  /** `Bearer` (or `DPoP`, which is not supported and refused). */
  readonly tokenType: string;
  readonly refreshToken?: string | undefined;
  /** When the access token expires, ms since the epoch (from `expires_in`). */
  readonly expiresAt?: number | undefined;
  /** The granted scope, space-separated. */
  readonly scope?: string | undefined;
}

import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** What the client registers as. */
export interface MemoryOAuthProviderOptions {
  /** `client_name` of the registration. */
  clientName: string;
  /** `grant_types` of the registration: without `refresh_token`, a step-up goes to the user for consent. */
  grantTypes: readonly string[];
}

/**
 * An MCP client application's OAuth state, in memory, as the SDK asks for it: the registration it
 * got, its tokens (and every save of them), the states it made, the PKCE verifier of the login
 * under way, and the authorization URL it would open in the user's browser (kept for the test,
 * which plays the user). A public client (`token_endpoint_auth_method: none`).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier: string | undefined;
  authorizationUrl: URL | undefined;
  readonly states: string[] = [];
  readonly tokenSaves: OAuthTokens[] = [];

  constructor(
    readonly redirect: string,
    readonly options: MemoryOAuthProviderOptions,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.redirect],
      grant_types: [...this.options.grantTypes],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    const state = randomBytes(16).toString('base64url');
    this.states.push(state);
    return state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
    this.tokenSaves.push(tokens);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no login under way');
    return this.verifier;
  }
}

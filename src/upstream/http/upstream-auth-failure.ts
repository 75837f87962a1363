/**
 * No access token could be had for a request to a remote server: the `UpstreamAuth` rejected
 * (a person must log in, the authorization server failed, the token store could not be read).
 * Keeps it apart from a network failure: the server was reached, it is not down.
 */
export class UpstreamAuthFailure extends Error {
  override name = 'UpstreamAuthFailure';

  /** `cause`: what the `UpstreamAuth` rejected with (a `LoginRequiredError`, an `OAuthClientError`, …). */
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

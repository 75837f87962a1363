/**
 * @module
 * The access token a user presented to the HTTP front, kept beside their identity for one use
 * only: an RFC 8693 token exchange for a token of an upstream (`grant: 'token_exchange'`). It is
 * never forwarded (the spec forbids token passthrough), and it is not a property of the identity,
 * so middleware, logs and the audit record never see it.
 */
import type { Identity } from '../core/session-info.js';

const tokens = new WeakMap<Identity, string>();

/** Remembers the token `identity` was made from (the front's OAuth authenticator does). */
export function rememberSubjectToken(identity: Identity, token: string): void {
  tokens.set(identity, token);
}

/** The token `identity` was made from, if the front kept it. */
export function subjectTokenOf(identity: Identity): string | undefined {
  return tokens.get(identity);
}

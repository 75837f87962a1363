/**
 * @module
 * PKCE (RFC 7636) with S256, which MCP 2025-11-25 requires (basic/authorization, "Authorization
 * Code Protection"): clients MUST implement PKCE and use S256.
 */
import { createHash } from 'node:crypto';
import { generateRandomCodeVerifier } from 'oauth4webapi';

/** A PKCE pair: the verifier (secret, sent only to the token endpoint) and its S256 challenge. */
export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

/**
 * A fresh verifier (oauth4webapi's: 32 random bytes, base64url) and its S256 challenge
 * (`BASE64URL(SHA256(verifier))`, RFC 7636 section 4.2, computed synchronously with node:crypto;
 * the same value as oauth4webapi's `calculatePKCECodeChallenge`).
 */
export function createPkce(): Pkce {
  const verifier = generateRandomCodeVerifier();
  return { verifier, challenge: createHash('sha256').update(verifier, 'ascii').digest('base64url') };
}

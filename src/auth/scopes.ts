/**
 * @module
 * OAuth scopes: read from a token's claims (`scope`, space-separated, RFC 9068 / RFC 7662; or
 * `scp`, an array or a string, as some identity providers write it) and checked against the scopes
 * a request needs.
 */

/** Splits a space-separated scope string (RFC 6749 §3.3) into its scopes, in order, without repeats. */
export function parseScopeString(scope: string): string[] {
  return [...new Set(scope.split(' ').filter((s) => s !== ''))];
}

/**
 * The scopes a token's claims grant: `scope` (a space-separated string) when present, else `scp`
 * (an array of strings, or a space-separated string); anything else grants none.
 */
export function scopesFromClaims(claims: Readonly<Record<string, unknown>>): string[] {
  const { scope, scp } = claims;
  if (typeof scope === 'string') return parseScopeString(scope);
  if (typeof scp === 'string') return parseScopeString(scp);
  if (Array.isArray(scp)) return [...new Set(scp.filter((s): s is string => typeof s === 'string' && s !== ''))];
  return [];
}

/** The required scopes that `granted` lacks, in the order required (empty when all are there). */
export function missingScopes(granted: readonly string[], required: readonly string[]): string[] {
  const have = new Set(granted);
  return required.filter((s) => !have.has(s));
}

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** The tokens of one login, as the token store file keeps them. */
export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: number;
}

/** One login in the token store file. */
export interface StoredLogin {
  tokens: StoredTokens;
  clientId: string;
}

/** Every login the token store file holds (all servers, all principals). */
export function storedLogins(file: string): StoredLogin[] {
  const store = JSON.parse(readFileSync(file, 'utf8')) as { logins: Record<string, Record<string, StoredLogin>> };
  return Object.values(store.logins).flatMap((byPrincipal) => Object.values(byPrincipal));
}

/** The tokens of the one login the token store file holds (asserting there is exactly one). */
export function storedTokens(file: string): StoredTokens {
  const logins = storedLogins(file);
  assert.equal(logins.length, 1, 'one login kept');
  const [login] = logins;
  assert.ok(login);
  return login.tokens;
}

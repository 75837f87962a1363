/**
 * A URL as it may appear in logs and error messages: without credentials and without the query
 * string (either may hold a secret).
 */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

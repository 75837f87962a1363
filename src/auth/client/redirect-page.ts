/**
 * @module
 * What the browser sees at the end of a login, wherever the redirect comes (the loopback listener
 * of `redirect-listener.ts`, or the gateway's HTTP front through `redirect-router.ts`): a small
 * HTML page, its text HTML-escaped, never echoing the code; and the rules both apply to the
 * redirect's query (the `state` compared in constant time, a code or an error needed).
 */
import { timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** An answer to the browser: an HTTP status and a whole HTML page. */
export interface RedirectPage {
  readonly status: number;
  readonly html: string;
}

/** A page with `title` and one paragraph of `text`, both HTML-escaped. */
export function redirectPage(status: number, title: string, text: string): RedirectPage {
  return { status, html: `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n` };
}

/** Writes `page` with headers that keep it out of caches, frames and referrers, and closes the connection. */
export function writeRedirectPage(response: ServerResponse, page: RedirectPage): void {
  response.writeHead(page.status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(page.html),
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
    connection: 'close',
  });
  response.end(page.html);
}

/** Whether the redirect's `state` is `expected` (compared in constant time). */
export function stateMatches(params: URLSearchParams, expected: string): boolean {
  const state = Buffer.from(params.get('state') ?? '', 'utf8');
  const wanted = Buffer.from(expected, 'utf8');
  return state.length === wanted.length && timingSafeEqual(state, wanted);
}

/** The page for a redirect whose state matched no login waiting: 400, nothing settles. */
export const UNKNOWN_LOGIN_PAGE: RedirectPage = redirectPage(400, 'Unknown login', 'This redirect does not belong to the login in progress (its state does not match). The login goes on waiting.');

/**
 * The answer to a redirect whose state matched: `settles` when it ends the login (a code, or an
 * error such as `access_denied`); a redirect with neither is 400 and the login goes on waiting.
 */
export function redirectOutcome(params: URLSearchParams): { page: RedirectPage; settles: boolean } {
  const error = params.get('error');
  if (error === null && params.get('code') === null) {
    return { page: redirectPage(400, 'Incomplete redirect', 'The redirect has neither a code nor an error. The login goes on waiting.'), settles: false };
  }
  if (error !== null) {
    const description = params.get('error_description');
    return { page: redirectPage(200, 'Login failed', `The authorization server answered ${error}${description === null ? '' : `: ${description}`}. You can close this window.`), settles: true };
  }
  return { page: redirectPage(200, 'Logged in', 'mcp-chain has what it needs. You can close this window.'), settles: true };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

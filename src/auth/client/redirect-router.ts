/**
 * @module
 * Login redirects that come to the gateway's own HTTP front: on a team gateway, each user logs in
 * to a remote server from their own browser, which cannot reach a loopback listener on the
 * gateway's host, so the redirect URI is an address of the front (`https://mcp.example.com/oauth/callback`).
 * A process-wide registry: a login waits on its path with {@link expectRedirect}, the front hands
 * every GET it does not serve otherwise to {@link deliverRedirect}. The rules are those of the
 * loopback listener: only the expected `state` (the redirect's credential: the browser has no
 * token for the front) settles a login, once; anything else is 400 and the login goes on waiting.
 */
import { ChainError } from '../../errors/chain-error.js';
import type { RedirectListener } from './redirect-listener.js';
import { redirectOutcome, stateMatches, UNKNOWN_LOGIN_PAGE, type RedirectPage } from './redirect-page.js';

/** Options of {@link expectRedirect}. */
export interface ExpectRedirectOptions {
  /** The redirect URI: https (or http to loopback), an address of this process's HTTP front; its path is what is waited on. */
  redirectUri: string;
  /** The `state` of the authorization request: a redirect without it is not this login's. */
  expectedState: string;
  /** How long to wait for the redirect (ms, default 300 000). */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

interface Waiter {
  readonly state: string;
  settle(outcome: { params: URLSearchParams } | { error: unknown }): void;
}

/** Logins waiting, by the path of their redirect URI. */
const waiting = new Map<string, Set<Waiter>>();
/** The ports of the HTTP fronts of this process that answer on loopback, each with how many fronts serve it. */
const frontPorts = new Map<number, number>();
let fronts = 0;

const LOOPBACK_NAMES = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Called by an HTTP front while it listens (it then hands redirects to {@link deliverRedirect});
 * `loopbackPort` is its port when it answers on a loopback address. Returns the call that says it
 * stopped.
 */
export function serveRedirects(loopbackPort?: number): () => void {
  fronts += 1;
  if (loopbackPort !== undefined) frontPorts.set(loopbackPort, (frontPorts.get(loopbackPort) ?? 0) + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fronts -= 1;
    if (loopbackPort === undefined) return;
    const count = (frontPorts.get(loopbackPort) ?? 1) - 1;
    if (count === 0) frontPorts.delete(loopbackPort);
    else frontPorts.set(loopbackPort, count);
  };
}

/**
 * Whether a login redirecting to `redirectUri` waits through this registry rather than on a
 * loopback listener of its own: a URI that is not loopback (the front, behind its public
 * address), or a loopback one on the port of an HTTP front of this process.
 */
export function routesRedirect(redirectUri: string): boolean {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return false; // the loopback listener refuses it, with its reason
  }
  if (url.protocol !== 'http:' || !LOOPBACK_NAMES.has(url.hostname)) return true;
  return frontPorts.has(url.port === '' ? 80 : Number(url.port));
}

/**
 * Waits for the redirect of one login on the path of `redirectUri`, as `listenForRedirect` does on
 * a loopback listener (same result). Throws a `ChainError` at once for a URI that is neither https
 * nor loopback http, or has a user, query or fragment, when no HTTP front of this process could
 * receive it, or when a login with the same state already waits there.
 */
export function expectRedirect(options: ExpectRedirectOptions): RedirectListener {
  const path = redirectPath(options.redirectUri);
  if (fronts === 0) {
    throw new ChainError('CONFIG', `redirect URI ${JSON.stringify(options.redirectUri)} is an address of the gateway's HTTP front, and this process serves none: log in through the gateway (mcp-chain serve with "http"), or use a loopback redirect URI`);
  }
  options.signal?.throwIfAborted();
  const waiters = waiting.get(path) ?? new Set<Waiter>();
  for (const other of waiters) {
    if (other.state === options.expectedState) throw new Error('a login with this state already waits for its redirect');
  }
  const timeoutMs = options.timeoutMs ?? 300_000;
  let waiter!: Waiter;
  const callback = new Promise<URLSearchParams>((resolve, reject) => {
    let settled = false;
    waiter = {
      state: options.expectedState,
      settle(outcome) {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        waiters.delete(waiter);
        if (waiters.size === 0 && waiting.get(path) === waiters) waiting.delete(path);
        if ('params' in outcome) resolve(outcome.params);
        else reject(outcome.error);
      },
    };
  });
  callback.catch(() => undefined); // a caller that closes without awaiting it has no unhandled rejection
  const onAbort = (): void => waiter.settle({ error: options.signal?.reason ?? new Error('the login was aborted') });
  const timer = setTimeout(() => waiter.settle({ error: new Error(`no login redirect within ${Math.round(timeoutMs / 1000)} s; the login was abandoned`) }), timeoutMs);
  waiters.add(waiter);
  waiting.set(path, waiters);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    redirectUri: options.redirectUri,
    callback,
    close: () => {
      waiter.settle({ error: new Error('the login redirect listener was closed') });
      return Promise.resolve();
    },
  };
}

/**
 * The answer to a GET of `url` that came to an HTTP front: undefined when no login waits on its
 * path (the front answers as it would without logins); else the page for the browser, after
 * settling the login whose state it carries (400, settling nothing, for a wrong or missing state,
 * or neither a code nor an error).
 */
export function deliverRedirect(url: URL): RedirectPage | undefined {
  const waiters = waiting.get(url.pathname);
  if (waiters === undefined || waiters.size === 0) return undefined;
  const params = new URLSearchParams(url.searchParams);
  let waiter: Waiter | undefined;
  for (const candidate of waiters) if (stateMatches(params, candidate.state)) waiter = candidate;
  if (waiter === undefined) return UNKNOWN_LOGIN_PAGE;
  const { page, settles } = redirectOutcome(params);
  if (settles) waiter.settle({ params });
  return page;
}

/** The path a redirect URI waits on; throws a `ChainError` for one the front cannot be. */
function redirectPath(text: string): string {
  const refuse = (why: string): ChainError =>
    new ChainError('CONFIG', `redirect URI ${JSON.stringify(text)} ${why}: a login redirecting to the gateway's HTTP front needs https://<its public host>/<a path> (or http to loopback)`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('is not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_NAMES.has(url.hostname))) throw refuse('is neither https nor http to loopback');
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') throw refuse('has a user, a query or a fragment');
  return url.pathname;
}

/**
 * @module
 * The browser step of a login (OAuth 2.0 for native apps, RFC 8252 §7.3): an HTTP server on a
 * loopback address waits for the authorization server's redirect. Only a request on the redirect
 * path carrying the expected `state` (and a `code` or an `error`) settles it: anything else, a
 * stray request or a forged one (CSRF), is answered 400 and the login goes on waiting. It waits
 * a bounded time, and leaves no socket behind.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ChainError } from '../../errors/chain-error.js';
import { redirectOutcome, redirectPage, stateMatches, UNKNOWN_LOGIN_PAGE, writeRedirectPage } from './redirect-page.js';

/** A listener waiting for one login's redirect. */
export interface RedirectListener {
  /** The redirect URI to send in the authorization request (the port chosen when it was 0). */
  readonly redirectUri: string;
  /**
   * The query parameters of the redirect (`code` and `state`, or `error`, `error_description`,
   * `iss`…): the caller checks them (`error=access_denied` is the person saying no). Rejects when
   * the time is up, the signal aborts, or `close()` comes first.
   */
  readonly callback: Promise<URLSearchParams>;
  /** Stops listening and closes every connection (keep-alive ones too); rejects `callback` if it is pending. */
  close(): Promise<void>;
}

/** Options of `listenForRedirect`. */
export interface ListenForRedirectOptions {
  /** `http://127.0.0.1:<port>/<path>` (or `[::1]`, `localhost`). Port 0: any free port. Default `http://127.0.0.1:0/callback`. */
  redirectUri?: string | undefined;
  /** The `state` of the authorization request: a redirect without it is not this login's. */
  expectedState: string;
  /** How long to wait for the redirect (ms, default 300 000). */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

const LOOPBACK_HOSTS: ReadonlyMap<string, string> = new Map([
  ['127.0.0.1', '127.0.0.1'],
  ['[::1]', '::1'],
  ['localhost', '127.0.0.1'],
]);

/**
 * Listens on the loopback address and port of `redirectUri` for the redirect of one login. Throws
 * a `ChainError` at once for a redirect URI that is not loopback `http:`, or a port that is taken.
 */
export async function listenForRedirect(options: ListenForRedirectOptions): Promise<RedirectListener> {
  const uri = parseRedirectUri(options.redirectUri ?? 'http://127.0.0.1:0/callback');
  options.signal?.throwIfAborted();
  const wait = new RedirectWait(uri, options);
  const port = await wait.listen();
  wait.arm(options.timeoutMs ?? 300_000);
  return {
    redirectUri: `http://${uri.hostname}:${port}${uri.pathname}`,
    callback: wait.callback,
    close: () => wait.close(),
  };
}

/** One login's wait for its redirect: the servers and their sockets, and the outcome (`callback`), settled once. */
class RedirectWait {
  readonly callback: Promise<URLSearchParams>;
  readonly #uri: LoopbackUri;
  readonly #options: ListenForRedirectOptions;
  readonly #sockets = new Set<Socket>();
  readonly #servers: Server[] = [];
  #settled = false;
  #resolveCallback!: (params: URLSearchParams) => void;
  #rejectCallback!: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;
  readonly #onAbort = (): void => {
    this.#settle({ error: this.#options.signal?.reason ?? new Error('the login was aborted') });
    void this.#shutdown();
  };

  constructor(uri: LoopbackUri, options: ListenForRedirectOptions) {
    this.#uri = uri;
    this.#options = options;
    this.callback = new Promise<URLSearchParams>((resolve, reject) => {
      this.#resolveCallback = resolve;
      this.#rejectCallback = reject;
    });
    this.callback.catch(() => undefined); // a caller that closes without awaiting it has no unhandled rejection
  }

  /** Listens on the redirect URI's address and port (for localhost, on ::1 too when it can be had); resolves with the port. */
  async listen(): Promise<number> {
    const uri = this.#uri;
    let port: number;
    try {
      const first = await this.#listenOn(uri.host, uri.port);
      this.#servers.push(first);
      port = (first.address() as AddressInfo).port;
    } catch (error) {
      throw new ChainError('CONFIG', `cannot listen on ${uri.hostname}:${uri.port} for the login redirect (${describe(error)}); choose another port in redirectUri, or 0`, { cause: error });
    }
    // localhost may be resolved to ::1 by the browser: listen there too when it can be had.
    if (uri.hostname === 'localhost') {
      await this.#listenOn('::1', port).then((server) => this.#servers.push(server), () => undefined);
    }
    return port;
  }

  /** From now on, the time is up after `timeoutMs` and the signal aborts the wait. */
  arm(timeoutMs: number): void {
    if (this.#settled) return;
    this.#timer = setTimeout(() => {
      this.#settle({ error: new Error(`no login redirect within ${Math.round(timeoutMs / 1000)} s; the login was abandoned`) });
      void this.#shutdown();
    }, timeoutMs);
    this.#options.signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (this.#options.signal?.aborted === true) this.#onAbort();
  }

  async close(): Promise<void> {
    this.#settle({ error: new Error('the login redirect listener was closed') });
    await this.#shutdown();
  }

  #listenOn(host: string, port: number): Promise<Server> {
    return new Promise<Server>((resolve, reject) => {
      const server = createServer((request, response) => this.#handle(request, response));
      server.on('connection', (socket: Socket) => {
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
        if (this.#closing !== undefined) socket.destroy();
      });
      server.once('error', reject);
      server.listen({ host, port, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', () => undefined); // after listening, errors are of single connections
        resolve(server);
      });
    });
  }

  /** A request to a server: the redirect of this login settles the wait; anything else is answered 400 and it goes on. */
  #handle(request: IncomingMessage, response: ServerResponse): void {
    let url: URL | undefined;
    try {
      url = new URL(request.url ?? '/', 'http://loopback');
    } catch {
      url = undefined; // an absolute-form target that is not a URL
    }
    if (url === undefined || request.method !== 'GET' || url.pathname !== this.#uri.pathname) {
      return answer(response, 400, 'Not found', 'This is not the address a login redirects to.');
    }
    const params = url.searchParams;
    if (this.#settled) return answer(response, 400, 'No login in progress', 'This login is already finished. You can close this window.');
    if (!stateMatches(params, this.#options.expectedState)) return writeRedirectPage(response, UNKNOWN_LOGIN_PAGE);
    const { page, settles } = redirectOutcome(params);
    if (settles) response.once('finish', () => void this.#shutdown());
    writeRedirectPage(response, page);
    if (!settles) return;
    this.#settle({ params });
  }

  #settle(outcome: { params: URLSearchParams } | { error: unknown }): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
    if ('params' in outcome) this.#resolveCallback(outcome.params);
    else this.#rejectCallback(outcome.error);
  }

  /** Closes the servers and destroys every socket (keep-alive ones too); the same promise each time. */
  #shutdown(): Promise<void> {
    this.#closing ??= Promise.all(
      this.#servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            if (!server.listening) return resolve();
            server.close(() => resolve());
          }),
      ),
    ).then(() => undefined);
    for (const socket of this.#sockets) socket.destroy();
    return this.#closing;
  }
}

interface LoopbackUri {
  hostname: string;
  host: string;
  port: number;
  pathname: string;
}

function parseRedirectUri(text: string): LoopbackUri {
  const refuse = (why: string): ChainError =>
    new ChainError('CONFIG', `redirect URI ${JSON.stringify(text)} ${why}: a login redirects to a loopback address, http://127.0.0.1:<port>/callback (or [::1], localhost)`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('is not a URL');
  }
  if (url.protocol !== 'http:') throw refuse('is not http:');
  const host = LOOPBACK_HOSTS.get(url.hostname);
  if (host === undefined) throw refuse('is not on a loopback address');
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') throw refuse('has a user, a query or a fragment');
  return { hostname: url.hostname, host, port: url.port === '' ? 80 : Number(url.port), pathname: url.pathname };
}

function answer(response: ServerResponse, status: number, title: string, text: string): void {
  writeRedirectPage(response, redirectPage(status, title, text));
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

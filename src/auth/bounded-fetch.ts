/**
 * @module
 * The one way the gateway fetches OAuth URLs: through the fetch policy (`fetch-policy.ts`), to the
 * addresses the policy checked (the connection is pinned to them, so a name cannot resolve to a
 * safe address for the check and a forbidden one for the connection), bounded in time and size,
 * following no redirect. Built on `node:http`/`node:https` so the pinning is exact.
 */
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupAddress } from 'node:dns';
import { checkFetchUrl, describeUrl, type FetchPolicyOptions, type ResolvedAddress } from './fetch-policy.js';

/** The request: method, headers, body (a string), and what a redirect does. */
export interface BoundedFetchInit {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * A `3xx` answer: `'error'` (default) rejects; `'manual'` resolves with it (status and
   * `location` header) for the caller to decide. Never followed here.
   */
  readonly redirect?: 'error' | 'manual';
  /** Aborts the request (the deadline still applies). */
  readonly signal?: AbortSignal;
}

/** The bounds of one fetch, and the policy options. */
export interface BoundedFetchLimits extends FetchPolicyOptions {
  /** The whole fetch (resolution, connection, answer), in ms. */
  readonly timeoutMs: number;
  /** The most bytes of body read; a longer body rejects. */
  readonly maxBytes: number;
}

/** An answer, whole. */
export interface BoundedResponse {
  readonly status: number;
  /** Header names lowercased; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** Why a bounded fetch failed (a `FetchPolicyError` is thrown as it is). */
export type BoundedFetchFailure = 'timeout' | 'too-large' | 'redirect' | 'network' | 'status' | 'json' | 'aborted';

/** A bounded fetch that failed; the message names the URL's origin and path, never its query, headers or body. */
export class BoundedFetchError extends Error {
  override name = 'BoundedFetchError';
  readonly reason: BoundedFetchFailure;
  /** The HTTP status, when an answer came. */
  readonly status: number | undefined;

  constructor(reason: BoundedFetchFailure, message: string, status?: number) {
    super(message);
    this.reason = reason;
    this.status = status;
  }
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for `http.request` that answers with the checked addresses only. */
function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: { readonly all?: boolean }, callback: LookupCallback): void => {
    const first = addresses[0];
    if (options.all === true) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    else if (first !== undefined) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
  };
}

/**
 * Fetches a URL under the policy and the bounds: resolves with the whole answer (any status),
 * rejects with a `FetchPolicyError` (URL refused), or a `BoundedFetchError` (timeout, body too
 * large, redirect, network failure, aborted).
 */
export async function fetchBounded(
  input: string | URL,
  init: BoundedFetchInit,
  limits: BoundedFetchLimits,
): Promise<BoundedResponse> {
  const where = placeOf(input);
  let timer: NodeJS.Timeout | undefined;
  let cancel: (error: Error) => void = () => undefined;
  const deadline = new Promise<never>((_, reject) => {
    cancel = reject;
    timer = setTimeout(
      () => reject(new BoundedFetchError('timeout', `${where}: no answer within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
  });
  const onAbort = (): void => cancel(new BoundedFetchError('aborted', `${where}: aborted`));
  if (init.signal?.aborted === true) onAbort();
  init.signal?.addEventListener('abort', onAbort, { once: true });
  let destroy: (error: Error) => void = () => undefined;
  let settled = false;
  const work = (async (): Promise<BoundedResponse> => {
    const { url, addresses } = await checkFetchUrl(input, limits);
    if (settled) throw new BoundedFetchError('aborted', `${where}: given up before connecting`);
    return await new Promise<BoundedResponse>((resolve, reject) => {
      const req = send(url, addresses, init, (res) => readAnswer(res, where, init, limits.maxBytes, resolve, reject));
      destroy = (error) => req.destroy(error);
      req.on('error', (error) => {
        reject(error instanceof BoundedFetchError ? error : new BoundedFetchError('network', `${where}: ${error.message}`));
      });
      req.end(init.body);
    });
  })();
  try {
    return await Promise.race([work, deadline]);
  } catch (error) {
    destroy(error instanceof Error ? error : new Error(String(error)));
    work.catch(() => undefined);
    throw error;
  } finally {
    settled = true;
    clearTimeout(timer);
    init.signal?.removeEventListener('abort', onAbort);
  }
}

/** `input` in a message: its origin and path (see `describeUrl`), or "the URL" when it is none. */
function placeOf(input: string | URL): string {
  try {
    return describeUrl(new URL(input));
  } catch {
    return 'the URL';
  }
}

/** Starts the request, its connection pinned to the addresses the policy checked (no second lookup). */
function send(url: URL, addresses: readonly ResolvedAddress[], init: BoundedFetchInit, onAnswer: (res: IncomingMessage) => void): ClientRequest {
  const options: RequestOptions = {
    method: init.method ?? 'GET',
    headers: { ...init.headers, ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}) },
    lookup: pinnedLookup(addresses) as unknown as RequestOptions['lookup'],
  };
  return (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, onAnswer);
}

/** Reads an answer whole into `resolve`; a redirect (unless `init.redirect` is `manual`) or more than `maxBytes` goes to `reject`. */
function readAnswer(
  res: IncomingMessage,
  where: string,
  init: BoundedFetchInit,
  maxBytes: number,
  resolve: (answer: BoundedResponse) => void,
  reject: (error: BoundedFetchError) => void,
): void {
  const status = res.statusCode ?? 0;
  const headers = flattenHeaders(res.headers);
  if (status >= 300 && status < 400 && init.redirect !== 'manual') {
    res.destroy();
    reject(new BoundedFetchError('redirect', `${where}: answered with a redirect (${status}), not followed`, status));
    return;
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    reject(new BoundedFetchError('too-large', `${where}: the answer is larger than ${maxBytes} bytes`, status));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      reject(new BoundedFetchError('too-large', `${where}: the answer is larger than ${maxBytes} bytes`, status));
      return;
    }
    chunks.push(chunk);
  });
  res.on('end', () => resolve({ status, headers, body: Buffer.concat(chunks) }));
  res.on('error', (error) => reject(new BoundedFetchError('network', `${where}: ${error.message}`, status)));
}

/** The parsed JSON answer of a `fetchJson`. */
export interface JsonResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * `fetchBounded`, then the body parsed as JSON: a non-2xx status rejects (`reason: 'status'`),
 * as does a body that is not JSON (`reason: 'json'`), with a message that says which.
 */
export async function fetchJson(input: string | URL, init: BoundedFetchInit, limits: BoundedFetchLimits): Promise<JsonResponse> {
  const response = await fetchBounded(input, { ...init, headers: { accept: 'application/json', ...init.headers } }, limits);
  const where = describeUrl(new URL(input));
  if (response.status < 200 || response.status >= 300) {
    throw new BoundedFetchError('status', `${where}: answered HTTP ${response.status}`, response.status);
  }
  try {
    return { status: response.status, headers: response.headers, body: JSON.parse(response.body.toString('utf8')) as unknown };
  } catch {
    throw new BoundedFetchError('json', `${where}: the answer is not JSON`, response.status);
  }
}

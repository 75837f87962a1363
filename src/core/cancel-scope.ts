/**
 * The cancellation of one request, made cheap for the common case where nothing ever looks at
 * it: callbacks live in a plain array, and a real AbortSignal (an EventTarget, costly to create
 * and to listen to) is only made when someone asks for `signal`.
 */
export class CancelScope {
  #controller: AbortController | undefined;
  #callbacks: Array<(reason: unknown) => void> | undefined;
  #aborted = false;
  #reason: unknown;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** A standard AbortSignal for this request (made on first use). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Calls `callback` once when the request is aborted (at once if it already is); returns an unsubscribe. */
  onAbort(callback: (reason: unknown) => void): () => void {
    if (this.#aborted) {
      callback(this.#reason);
      return noop;
    }
    (this.#callbacks ??= []).push(callback);
    return () => {
      const callbacks = this.#callbacks;
      const i = callbacks ? callbacks.indexOf(callback) : -1;
      if (callbacks && i !== -1) callbacks.splice(i, 1);
    };
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const callbacks = this.#callbacks;
    this.#callbacks = undefined;
    if (callbacks) for (const callback of callbacks) callback(reason);
    this.#controller?.abort(reason);
  }
}

function noop(): void {}

function isCancelScope(source: Abortable): source is CancelScope {
  return typeof (source as Partial<CancelScope>).onAbort === 'function';
}

/** Something that can be aborted: a CancelScope, or a standard AbortSignal. */
export type Abortable = CancelScope | AbortSignal;

/**
 * Subscribes to an abort, cheaply for a CancelScope; returns an unsubscribe. A CancelScope is told
 * by its `onAbort` method, not by `instanceof`: a scope made by a second copy of this module (a
 * chain file importing mcp-chain's sources while the bundled CLI runs it) is one too.
 */
export function onAbort(source: Abortable, callback: (reason: unknown) => void): () => void {
  if (isCancelScope(source)) return source.onAbort(callback);
  if (source.aborted) {
    callback(source.reason);
    return noop;
  }
  const listener = (): void => callback(source.reason);
  source.addEventListener('abort', listener, { once: true });
  return () => source.removeEventListener('abort', listener);
}

import type { CancelScope } from './cancel-scope.js';
import type { Downstream } from './downstream.js';

/** What travels with one request besides its message. */
export interface RequestScope {
  /** Aborted when the request is cancelled, times out, or its session ends. */
  readonly signal: AbortSignal;
  /**
   * Where messages *related* to this request go, such as its `notifications/progress` (with the
   * progress token of the request as the receiver of `related` knows it).
   */
  readonly related?: Downstream | undefined;
  /**
   * The same cancellation as `signal`, without the cost of an AbortSignal: scopes made by
   * mcp-chain have it (and make `signal` only when it is read). Scopes made by hand may omit it.
   */
  readonly cancel?: CancelScope;
}

/** A RequestScope over a CancelScope, whose `signal` is made only when read. */
class LazyScope implements RequestScope {
  readonly cancel: CancelScope;
  readonly related: Downstream | undefined;

  constructor(cancel: CancelScope, related: Downstream | undefined) {
    this.cancel = cancel;
    this.related = related;
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }
}

export function requestScope(cancel: CancelScope, related: Downstream | undefined): RequestScope {
  return new LazyScope(cancel, related);
}

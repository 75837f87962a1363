/** When a member's breaker opens, and how it is tried again. */
export interface BreakerPolicy {
  /** Consecutive failures that open it. */
  readonly failureThreshold: number;
  /** How long it stays open the first time (ms); each failed probe multiplies it by `factor`, up to `maxOpenMs`. */
  readonly openMs: number;
  readonly factor: number;
  readonly maxOpenMs: number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

/** What `admit` decides for one call. */
export type Admission =
  | { readonly admitted: true; /** This call is the half-open probe. */ readonly probe: boolean }
  | { readonly admitted: false; readonly failures: number; readonly lastFailure: string; readonly retryInMs: number };

/**
 * A circuit breaker, pure (no timers; `now` is injected): closed, it lets every call through and
 * counts consecutive failures; at `failureThreshold` it opens, and calls are refused until
 * `openMs` has passed; then one call (the probe) goes through, half-open: its success closes it,
 * its failure opens it again for longer (`factor`, up to `maxOpenMs`). Calls that end while it is
 * open (they were sent before it opened) do not change it.
 */
export class CircuitBreaker {
  readonly #policy: BreakerPolicy;
  readonly #now: () => number;
  #state: BreakerState = 'closed';
  #failures = 0;
  #lastFailure = '';
  #openUntil = 0;
  #opens = 0;
  #probeOut = false;

  constructor(policy: BreakerPolicy, now: () => number = Date.now) {
    this.#policy = policy;
    this.#now = now;
  }

  get state(): BreakerState {
    if (this.#state === 'open' && this.#now() >= this.#openUntil) return 'half-open';
    return this.#state;
  }

  /** Consecutive failures counted (those that opened it, and failed probes). */
  get failures(): number {
    return this.#failures;
  }

  /** Whether a call may go now; a call admitted as the probe must be settled with `succeeded` or `failed`. */
  admit(): Admission {
    const state = this.state;
    if (state === 'closed') return { admitted: true, probe: false };
    if (state === 'half-open' && !this.#probeOut) {
      this.#state = 'half-open';
      this.#probeOut = true;
      return { admitted: true, probe: true };
    }
    const retryInMs = Math.max(0, this.#openUntil - this.#now());
    return { admitted: false, failures: this.#failures, lastFailure: this.#lastFailure, retryInMs };
  }

  /** A call ended well (`probe`: it was the one `admit` let through half-open). */
  succeeded(probe = false): void {
    if (this.#state === 'closed' || probe) this.reset();
  }

  /** A call failed for a reason of the member's (`cause`, in a few words). */
  failed(cause: string, probe = false): void {
    if (this.#state === 'closed') {
      this.#failures++;
      this.#lastFailure = cause;
      if (this.#failures >= this.#policy.failureThreshold) this.#open();
    } else if (probe) {
      this.#failures++;
      this.#lastFailure = cause;
      this.#open();
    }
  }

  /** A probe that ended neither way (cancelled by its client): the next call probes instead. */
  released(probe: boolean): void {
    if (probe) this.#probeOut = false;
  }

  /** Closed again, counts cleared (the member came back up, or restarted). */
  reset(): void {
    this.#state = 'closed';
    this.#failures = 0;
    this.#opens = 0;
    this.#probeOut = false;
  }

  #open(): void {
    const { openMs, factor, maxOpenMs } = this.#policy;
    this.#state = 'open';
    this.#probeOut = false;
    this.#openUntil = this.#now() + Math.min(openMs * factor ** this.#opens, maxOpenMs);
    this.#opens++;
  }
}

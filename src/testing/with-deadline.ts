/** How long a test peer waits for a message by default: generous, a safety net, never a timing. */
export const DEFAULT_WAIT_MS = 10_000;

export interface WaitOptions {
  /** What is awaited, in words, for the error when it does not come (e.g. "the response to id 3"); a function is called only then. */
  what?: string | (() => string);
  /** How long to wait before failing. Default {@link DEFAULT_WAIT_MS}. */
  timeoutMs?: number | undefined;
}

export interface DeadlineHooks {
  /** Called when the deadline passes, before the rejection: the waiter forgets itself. */
  onTimeout?: () => void;
  /**
   * Aborted when the waiter's owner closes: a wait still pending then may be one nobody awaits (a
   * request the test fired and forgot), so its timer stops keeping the process alive.
   */
  release?: AbortSignal | undefined;
}

/**
 * `promise`, or a rejection naming what it waited for once `timeoutMs` pass first: a test that
 * misses an event fails with a message instead of hanging.
 *
 * The timer is cleared as soon as the promise settles. It keeps the process alive until then, on
 * purpose: with in-memory streams nothing else may, and an unref'd timer would let the test
 * runner cancel the test with a generic "event loop has already resolved" instead of this message
 * (`release` lifts that once the owner is closed). A rejection nobody awaits is not reported as
 * unhandled: a wait that was never awaited is not a failure.
 */
export function withDeadline<T>(promise: Promise<T>, options: WaitOptions, hooks: DeadlineHooks = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      hooks.onTimeout?.();
      const what = typeof options.what === 'function' ? options.what() : (options.what ?? 'an event');
      reject(new Error(`waited ${timeoutMs} ms for ${what}, and it did not come`));
    }, timeoutMs);
  });
  const release = (): void => void timer?.unref();
  if (hooks.release?.aborted) release();
  else hooks.release?.addEventListener('abort', release, { once: true });
  const settled = Promise.race([promise, expired]).finally(() => {
    clearTimeout(timer);
    hooks.release?.removeEventListener('abort', release);
  });
  settled.catch(() => undefined);
  return settled;
}

/** Exponential backoff: first delay, factor, ceiling (ms). */
export interface Backoff {
  readonly initialDelayMs: number;
  readonly factor: number;
  readonly maxDelayMs: number;
}

/**
 * The delay before attempt `attempt` (0 for the first retry) with "full jitter": a uniform draw in
 * [0, min(maxDelayMs, initialDelayMs × factor^attempt)], so that many sessions whose servers crash
 * together do not restart them together, and no delay exceeds the ceiling. `random` (default
 * `Math.random`) returns a number in [0, 1).
 */
export function jitteredDelay(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.max(0, Math.min(backoff.initialDelayMs * backoff.factor ** Math.max(0, attempt), backoff.maxDelayMs));
  const draw = Math.min(Math.max(random(), 0), 1);
  return Math.floor(draw * ceiling);
}

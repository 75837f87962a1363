/** Small statistics for the soak report: least-squares slopes and percentiles. */

/** A value at a time (ms since the epoch). */
export interface Sample {
  readonly t: number;
  readonly value: number;
}

/**
 * The least-squares slope of `samples` in value units per minute (undefined with fewer than 3
 * samples or no spread in time).
 */
export function slopePerMinute(samples: readonly Sample[]): number | undefined {
  if (samples.length < 3) return undefined;
  const t0 = (samples[0] as Sample).t;
  let sx = 0;
  let sy = 0;
  for (const s of samples) {
    sx += (s.t - t0) / 60_000;
    sy += s.value;
  }
  const mx = sx / samples.length;
  const my = sy / samples.length;
  let sxx = 0;
  let sxy = 0;
  for (const s of samples) {
    const dx = (s.t - t0) / 60_000 - mx;
    sxx += dx * dx;
    sxy += dx * (s.value - my);
  }
  return sxx === 0 ? undefined : sxy / sxx;
}

/** The p-th percentile (0..100, nearest rank) of `values`, sorted here; undefined when empty. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Bytes in MiB. */
export function mib(bytes: number): number {
  return bytes / (1024 * 1024);
}

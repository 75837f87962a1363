/**
 * @module
 * A token bucket: holds up to `capacity` tokens, refilled continuously at `rate` tokens per
 * `perMs` milliseconds; a call takes one token. Pure arithmetic on a small record, so a bucket
 * costs one object and nothing runs between calls (no timers).
 */

/** How fast a bucket refills and how much it holds. */
export interface BucketShape {
  /** Tokens added per `perMs` milliseconds. */
  readonly rate: number;
  readonly perMs: number;
  /** The most tokens a bucket holds (the burst). */
  readonly capacity: number;
}

/** One bucket's state: its tokens as of the time `at` (milliseconds). */
export interface TokenBucket {
  tokens: number;
  at: number;
}

/** A full bucket as of `now`. */
export function fullBucket(shape: BucketShape, now: number): TokenBucket {
  return { tokens: shape.capacity, at: now };
}

/** Brings `bucket` up to `now` (refilled, never above capacity; a clock that goes back adds nothing). */
export function refill(bucket: TokenBucket, shape: BucketShape, now: number): void {
  if (now > bucket.at) {
    bucket.tokens = Math.min(shape.capacity, bucket.tokens + ((now - bucket.at) * shape.rate) / shape.perMs);
    bucket.at = now;
  }
}

/** Milliseconds until a refilled bucket holds one token: 0 when it holds one now. */
export function waitMs(bucket: TokenBucket, shape: BucketShape): number {
  if (bucket.tokens >= 1) return 0;
  return Math.ceil(((1 - bucket.tokens) * shape.perMs) / shape.rate);
}

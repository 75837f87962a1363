/** How long calls in flight may take to finish on SIGINT or SIGTERM, by default, ms. A module of its own: the serve plan reads it without loading a front. */
export const DEFAULT_DRAIN_MS = 10_000;

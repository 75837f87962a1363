/** Every scenario the benchmark records, in report order (HTTP-only ones included). */
export const SCENARIOS = [
  'cold_start',
  'rss_idle',
  'idle_sessions',
  'echo_seq',
  'throughput_1',
  'throughput_16',
  'throughput_64',
  'rss_load',
  'payload_100k',
  'payload_1m',
  'tools_list_500',
] as const;

/**
 * The scenarios of the targets that merge several copies of the upstream (an aggregate of 3
 * members) in place of one of {@link SCENARIOS}: `tools_list_3x500` (the merged list of 3 × 500
 * tools) instead of `tools_list_500`, measured in the same slices.
 */
export const GATEWAY_SCENARIOS = ['tools_list_3x500'] as const;

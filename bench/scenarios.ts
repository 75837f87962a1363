/** Every scenario the benchmark records, in report order (HTTP-only ones included). */
export const SCENARIOS = [
  'cold_start',
  'rss_idle',
  'rss_warm',
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
 * The gateway's targets (issue 10) list more tools, so they record one of these instead of
 * `tools_list_500`, in the same slices: the aggregate of 3 members, their merged 3 × 500 tools;
 * its reference, one server's 1500.
 */
export const GATEWAY_SCENARIOS = ['tools_list_3x500', 'tools_list_1500'] as const;

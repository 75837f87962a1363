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

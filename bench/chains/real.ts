// The real built-in middleware, as a policy would use them, the upstream left open:
//   mcp-chain run bench/chains/real.ts -- node bench/upstream.mjs
// The load client calls the same tools (`echo`, `payload`) through every target, so the filter
// denies tools that do not exist and the renaming touches only a listed tool it never calls:
// both still do their full work on every message (glob match per call, rewrite of every list).
// The log goes to a file (BENCH_LOG_FILE, else one in the temp dir), not stderr, so its cost is
// measured without flooding the terminal.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chain } from 'mcp-chain';
import { filter } from 'mcp-chain/filter';
import { log } from 'mcp-chain/log';
import { rename } from 'mcp-chain/rename';

export default chain(
  log({ destination: process.env.BENCH_LOG_FILE ?? join(tmpdir(), 'mcp-chain-bench.log.jsonl') }),
  filter({ tools: { deny: ['nothing_*', 'drop_?able'] } }),
  rename({ tools: { list_issues_002: { name: 'acme_list_issues', description: 'Lists ACME issues.' } } }),
);

// The realistic policy stack of issue 11, the upstream left open:
//   mcp-chain run bench/chains/policy.ts -- node bench/upstream.mjs
// Every echo call is recorded by `audit` (arguments redacted, to a file: BENCH_LOG_FILE's
// directory, else the temp dir), its result scanned by `redact`, counted against a token bucket
// per session and per tool by `rateLimit` (limits high enough never to refuse), and its arguments
// checked against the tool's inputSchema by `validate` before it reaches the server. The audit
// file goes beside BENCH_LOG_FILE (the benchmark's work directory, removed after the run), else
// into a temporary directory of this process, removed when it exits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chain } from 'mcp-chain';
import { audit } from 'mcp-chain/audit';
import { rateLimit } from 'mcp-chain/rate-limit';
import { redact } from 'mcp-chain/redact';
import { validate } from 'mcp-chain/validate';

function ownDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-bench-policy-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const dir = process.env.BENCH_LOG_FILE === undefined ? ownDir() : dirname(process.env.BENCH_LOG_FILE);

export default chain(
  audit({ file: join(dir, 'mcp-chain-bench.audit.jsonl') }),
  redact(),
  rateLimit({ limits: [{ key: ['session', 'tool'], rate: 1_000_000, per: 'second' }] }),
  validate(),
);

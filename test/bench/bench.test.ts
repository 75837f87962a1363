// The benchmark never rots: its quick smoke mode runs here, against every target but the HTTP
// competitors (which --quick leaves out: nothing is downloaded here), and must produce a finite
// measurement for every target × scenario. No timing is ever asserted.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SCENARIOS } from '../../bench/scenarios.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STDIO_TARGETS = ['none', 'pipe', 'bare', 'mw-0', 'noop-1', 'noop-10', 'real', 'policy'];
const HTTP_TARGETS = ['sdk-http', 'chain-http'];

const out = mkdtempSync(join(tmpdir(), 'mcp-chain-bench-test-'));
after(() => rmSync(out, { recursive: true, force: true }));

interface Row {
  type: string;
  target?: string;
  scenario?: string;
  metrics?: Record<string, unknown>;
  targets?: string[];
  skipped?: Record<string, string>;
}

function runQuick(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // the bench is not a test file
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'run.ts'), '--quick', '--out', out], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  // A safety net against a hung run (the runner's own timeout would leave the child behind).
  const net = setTimeout(() => child.kill('SIGTERM'), 50_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(net);
      resolve({ code, stdout, stderr });
    });
  });
}

test('bench --quick measures every target and scenario', { timeout: 60_000 }, async () => {
  assert.ok(existsSync(join(root, 'dist', 'cli', 'main.js')), 'dist/ is missing: npm run build first');
  const { code, stdout, stderr } = await runQuick();
  assert.equal(code, 0, `bench exited with ${String(code)}:\n${stderr}`);

  const rows = readFileSync(join(out, 'latest.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Row);
  const meta = rows[0];
  assert.ok(meta?.type === 'meta', 'the first line is the meta line');
  assert.equal(rows.at(-1)?.type, 'done');
  assert.ok(!meta.targets?.includes('supergateway') && !meta.targets?.includes('mcp-proxy'), '--quick leaves the competitors out');
  assert.deepEqual(meta.skipped ?? {}, {}, 'no target is skipped');
  const targets = [...STDIO_TARGETS, ...HTTP_TARGETS];
  for (const target of targets) {
    for (const scenario of SCENARIOS) {
      if (scenario === 'idle_sessions' && STDIO_TARGETS.includes(target)) continue;
      const row = rows.find((r) => r.type === 'measurement' && r.target === target && r.scenario === scenario);
      assert.ok(row?.metrics, `no ${scenario} row for ${target}`);
      const entries = Object.entries(row.metrics);
      assert.ok(entries.length > 0, `${scenario} of ${target} has no metrics`);
      for (const [key, value] of entries) {
        // CPU is accounted for the proxy only: "no proxy" and "SDK direct" report null.
        if (key.startsWith('cpu_') && (target === 'none' || target === 'sdk-http')) assert.equal(value, null, `${target} ${scenario} ${key}`);
        else assert.ok(typeof value === 'number' && Number.isFinite(value), `${target} ${scenario} ${key} = ${String(value)}`);
      }
    }
  }

  const markdown = readFileSync(join(out, 'latest.md'), 'utf8');
  assert.equal(stdout, markdown);
  assert.match(markdown, /\| echo p50 \(µs\) \|/);
  assert.match(markdown, /\*\*Targets\*\*/);
  assert.match(markdown, /### Streamable HTTP front/);
});

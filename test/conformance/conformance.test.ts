// The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios), run
// by scripts/conformance.mjs against the conformance fixture directly and through mcp-chain's
// Streamable HTTP front (fixture on stdio behind it). The chain must pass every scenario the
// fixture passes on its own. The script installs Node 22 and the suite into .cache/ on first use.
// The 0.2.0 alpha adds scenarios of the 2026-07-28 revision (stateless HTTP, tasks, input-required
// results) that neither the fixture nor the chain implement yet; there the rule is the same: the
// chain loses nothing the fixture passes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { repoRoot } from '../helpers/targets.js';

interface Summary {
  target: string;
  passed: number;
  failed: number;
  unexpectedFailures: string[];
  scenarios: Record<string, { passed: boolean; failures: string[] }>;
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-conformance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, 'scripts', 'conformance.mjs'), ...args, '--out', out], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function passing(summary: Summary): string[] {
  return Object.entries(summary.scenarios).filter(([, s]) => s.passed).map(([name]) => name).sort();
}

describe('official conformance suite (server scenarios)', { timeout: 300_000 }, () => {
  let direct: Summary | undefined;

  test('the fixture passes every scenario on its own', async () => {
    const out = join(dir, 'direct.json');
    const { code, output } = await run([], out);
    assert.equal(code, 0, output);
    direct = JSON.parse(readFileSync(out, 'utf8')) as Summary;
    assert.ok(direct.passed >= 30, `only ${direct.passed} scenarios ran:\n${output}`);
    assert.deepEqual(direct.unexpectedFailures, []);
  });

  test('through mcp-chain on Streamable HTTP, every scenario the fixture passes passes too', async () => {
    const out = join(dir, 'chain.json');
    const { code, output } = await run(['--via-chain'], out);
    const chain = JSON.parse(readFileSync(out, 'utf8')) as Summary;
    assert.equal(code, 0, output);
    const lost = passing(direct ?? chain).filter((name) => !chain.scenarios[name]?.passed);
    assert.deepEqual(lost, [], `scenarios lost through the chain: ${lost.join(', ')}\n${output}`);
    assert.equal(chain.failed, 0);
  });
});

describe('official conformance suite, 0.2.0 alpha (newer scenarios)', { timeout: 300_000 }, () => {
  let direct: Summary | undefined;

  test('the fixture alone: the scenarios of the revisions it implements pass', async () => {
    const out = join(dir, 'alpha-direct.json');
    const { output } = await run(['--alpha'], out);
    direct = JSON.parse(readFileSync(out, 'utf8')) as Summary;
    // 2025-11-25 and older scenarios; the rest are 2026-07-28 features (see the file comment).
    for (const name of ['server-initialize', 'tools-call-sampling', 'tools-call-elicitation', 'resources-subscribe', 'dns-rebinding-protection']) {
      assert.ok(direct.scenarios[name]?.passed, `${name} failed directly:\n${output}`);
    }
  });

  test('through mcp-chain on Streamable HTTP, every scenario the fixture passes passes too', async () => {
    const out = join(dir, 'alpha-chain.json');
    const { output } = await run(['--alpha', '--via-chain'], out);
    const chain = JSON.parse(readFileSync(out, 'utf8')) as Summary;
    const lost = passing(direct ?? chain).filter((name) => !chain.scenarios[name]?.passed);
    assert.deepEqual(lost, [], `scenarios lost through the chain: ${lost.join(', ')}\n${output}`);
    assert.ok(passing(chain).length >= 30, output);
  });
});

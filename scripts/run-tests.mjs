#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's own test runner, TypeScript loaded by tsx.
// Usage: node scripts/run-tests.mjs [filter-substring ...]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
/** @param {string} dir @returns {string[]} */
function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...find(path));
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}
const filters = process.argv.slice(2);
const files = [...find(join(root, 'src')), ...find(join(root, 'test'))]
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Every test and hook gets a timeout (test-timeout/register.mjs: 60 s unless it or its describe
// sets one), so a missed event fails its test with a message instead of hanging the run. Node 20's
// --test-timeout bounds a whole file instead: kept as the backstop for a file that never ends.
const timeouts = ['--import', pathToFileURL(join(root, 'scripts', 'test-timeout', 'register.mjs')).href, '--test-timeout=900000'];
// Chain files compiled by the CLIs the tests start are cached here, and nowhere else.
const cache = mkdtempSync(join(tmpdir(), 'mcp-chain-test-cache-'));
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', ...timeouts, '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, MCP_CHAIN_TEST: '1', MCP_CHAIN_CACHE_DIR: join(cache, 'compiled') } },
);
rmSync(cache, { recursive: true, force: true });
process.exit(result.status ?? 1);

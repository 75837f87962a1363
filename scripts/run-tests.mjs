#!/usr/bin/env node
// Runs the *.test.ts files with Node's own test runner, TypeScript loaded by tsx.
//
//   node scripts/run-tests.mjs                 every test under src/ and test/ (npm test runs this after build, lint, typecheck)
//   node scripts/run-tests.mjs <path part> ... the test files whose path contains one of the parts
//   node scripts/run-tests.mjs --unit          the fast lane (npm run test:unit): the unit tests, in one process
//   --spec                                     node's spec reporter (every test by name) instead of the summary
//
// The summary (scripts/test-reporter.mjs) shows a dot per file, every failure in full, the slowest
// files, and ends on `tests: N passed, N failed[, N skipped]`. The exit code is non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const started = Date.now();
const root = new URL('..', import.meta.url).pathname;

/**
 * The unit lane (`--unit`, `npm run test:unit`) is the colocated tests (src/**\/*.test.ts) and the
 * layer test, run in one process, but not these: they start processes or take seconds of CPU, and
 * run in the full suite only. A unit test that starts a process, needs dist/ or takes more than a
 * second or so goes here (the summary lists the slowest files: `MCP_CHAIN_TEST_SLOWEST=40`).
 */
const NOT_UNIT = [
  // take seconds: every split of long lines, many generated documents, 10 000 audited calls
  'src/transport/lazy-forwarding.test.ts',
  'src/message/json-scan.test.ts',
  'src/middleware/audit/index.test.ts',
  // start processes: commands as tools, servers of a config, `node -e`, processes racing for a file
  'src/upstream/commands/commands.test.ts',
  'src/upstream/commands/run-command.test.ts',
  'src/config/commands-config.test.ts',
  'src/config/build-gateway.test.ts',
  'src/session/deadline.test.ts',
  'src/fs/locked-json-file.test.ts',
  'src/auth/client/token-store.test.ts',
  'src/middleware/pin/pin-store.test.ts',
];
/** Tests outside src/ that are as fast as a unit test and need nothing built. */
const UNIT_EXTRA = ['test/architecture/layers.test.ts'];

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

const args = process.argv.slice(2);
const unit = args.includes('--unit');
const spec = args.includes('--spec');
const unknown = args.filter((arg) => arg.startsWith('--') && arg !== '--unit' && arg !== '--spec');
if (unknown.length > 0) {
  console.error(`unknown option ${unknown.join(', ')}: usage: node scripts/run-tests.mjs [--unit] [--spec] [<path part> ...]`);
  process.exit(2);
}
const filters = args.filter((arg) => !arg.startsWith('--'));
const lane = unit
  ? [...find(join(root, 'src')).filter((file) => !NOT_UNIT.includes(file)), ...UNIT_EXTRA]
  : [...find(join(root, 'src')), ...find(join(root, 'test'))];
const files = lane.filter((f) => filters.length === 0 || filters.some((s) => f.includes(s))).sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// Every test and hook gets a timeout (test-timeout/register.mjs: 60 s unless it or its describe
// sets one), so a missed event fails its test with a message instead of hanging the run. Node 20's
// --test-timeout bounds a whole file instead: kept as the backstop for a file that never ends.
const timeouts = ['--import', pathToFileURL(join(root, 'scripts', 'test-timeout', 'register.mjs')).href, '--test-timeout=900000'];
const reporter = spec ? 'spec' : pathToFileURL(join(root, 'scripts', 'test-reporter.mjs')).href;
// Chain files compiled by the CLIs the tests start are cached here, and nowhere else.
const cache = mkdtempSync(join(tmpdir(), 'mcp-chain-test-cache-'));
const env = { ...process.env, MCP_CHAIN_TEST: '1', MCP_CHAIN_CACHE_DIR: join(cache, 'compiled'), MCP_CHAIN_TEST_STARTED: String(started) };
delete env.MCP_CHAIN_TEST_LEFT_OPEN;

let command;
if (unit) {
  // One process for all: no process start and tsx warm-up per file, each module compiled once. A
  // test that leaves a handle open (a server, a socket) would keep that process alive and the
  // summary unwritten: 10 s after the last test the run fails, naming what is still open, and the
  // handles are unref'd so that the process ends.
  const entry = join(cache, 'unit-tests.mjs');
  const watchdog = [
    "import { after } from 'node:test';",
    'after(() => void setTimeout(() => {',
    // scripts/test-reporter.mjs counts it as a failure.
    "  process.env.MCP_CHAIN_TEST_LEFT_OPEN = process.getActiveResourcesInfo().join(', ');",
    '  process.exitCode = 1;',
    "  for (const handle of process._getActiveHandles()) if (handle !== process.stdout && handle !== process.stderr) handle.unref?.();",
    '}, 10_000).unref());',
  ];
  writeFileSync(entry, [...watchdog, ...files.map((file) => `import ${JSON.stringify(pathToFileURL(join(root, file)).href)};`)].join('\n') + '\n');
  // The tests' own output goes straight to the terminal here: node's notice that mock timers are
  // experimental is left out of it (Node >= 20.11 can).
  const quiet = process.allowedNodeEnvironmentFlags.has('--disable-warning') ? ['--disable-warning=ExperimentalWarning'] : [];
  command = ['--import', 'tsx', ...quiet, ...timeouts, `--test-reporter=${reporter}`, '--test-reporter-destination=stdout', entry];
} else {
  command = ['--import', 'tsx', ...timeouts, '--test', `--test-reporter=${reporter}`, '--test-reporter-destination=stdout', '--test-concurrency=2', ...files];
}
const result = spawnSync(process.execPath, command, { cwd: root, stdio: 'inherit', env });
rmSync(cache, { recursive: true, force: true });
process.exit(result.status ?? 1);

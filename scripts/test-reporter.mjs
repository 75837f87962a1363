// The node:test reporter of scripts/run-tests.mjs: a summary a person reads, details on failure.
//
// While the run goes: one character per test file as it ends ('.' passed, 'F' failed), sixty to a
// line with a count. At the end: every failing test in full (file, the names of its suites and
// itself, the error with its stack, then the last lines its file wrote to stderr/stdout), the ten
// slowest files, the wall time, and the closing line, alone on its line:
//
//   tests: 2615 passed, 0 failed, 3 skipped
//
// (`failed` counts cancelled tests too, `skipped` counts todo ones). A file's own output is shown
// only when it failed, except a line announcing a download into .cache/ (scripts/lib/cache-install.mjs),
// which is passed on to stderr at once. The exit code is not the reporter's: the runner's stays
// non-zero on any failure. Works on Node 20 (`--test-reporter=<module>`) and later.
import { relative } from 'node:path';
import process from 'node:process';
import { inspect } from 'node:util';

const DOTS_PER_LINE = 60;
/** How many lines of a failing file's own output are shown. */
const OUTPUT_TAIL = 60;
/** How many of the slowest files are listed (MCP_CHAIN_TEST_SLOWEST, default 10). */
const SLOWEST = Number(process.env.MCP_CHAIN_TEST_SLOWEST ?? 10);
/** A download announcement (scripts/lib/cache-install.mjs): shown at once, whoever prints it. */
const DOWNLOAD = /\bdownloading .* into \.cache\//;

const root = process.cwd();
/** When the run began: scripts/run-tests.mjs says (MCP_CHAIN_TEST_STARTED), else when this module loaded. */
const startedAt = Number(process.env.MCP_CHAIN_TEST_STARTED) || Date.now();

/** @param {string | undefined} file */
const rel = (file) => (file === undefined ? 'the run' : relative(root, file) || file);

/** @param {number} ms */
function seconds(ms) {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/**
 * @typedef {{ started: number, ended?: number, durationMs?: number, topLevelMs: number, failed: boolean, output: string[] }} FileState
 * @typedef {{ file: string | undefined, line: number | undefined, testFile?: string, path: string[], error: unknown, failureType: string | undefined }} Failure
 */

export default async function* summaryReporter(source) {
  /** @type {Map<string, FileState>} */
  const files = new Map();
  /** @type {Failure[]} */
  const failures = [];
  /** Counts from the runner's closing diagnostics ("pass 12", ...). */
  const diagnostics = new Map();
  /** Counts of our own, in case the runner sends no diagnostics. */
  const own = { pass: 0, fail: 0, skipped: 0 };
  let dots = 0;
  /**
   * The names of the test reported last and its suites, by nesting. node:test reports the tests of
   * one file after another (with two files running at once, the second's wait), so the last
   * top-level test started names the file: node:test gives each test the module that declared it,
   * which for a suite shared between files (test/e2e/_gateway-suite.ts) is not the test file.
   */
  const names = [];
  let topFile;
  /** Whether each file runs in a process of its own (node --test): Node 20 then reports each file as a test. */
  let ownProcesses = false;
  /** Files run in this one process (`--unit`): the file whose top-level tests came last. */
  let lastInProcess;

  /** @param {string | undefined} file @returns {FileState | undefined} */
  const stateOf = (file) => {
    if (file === undefined) return undefined;
    let state = files.get(file);
    if (!state) files.set(file, (state = { started: Date.now(), topLevelMs: 0, failed: false, output: [] }));
    return state;
  };

  /** The character for a file that ended, with the line's count at each line end. */
  const dot = (state) => {
    dots += 1;
    const char = state.failed ? 'F' : '.';
    return dots % DOTS_PER_LINE === 0 ? `${char} ${dots}\n` : char;
  };

  /** @param {string | undefined} file @param {string} message */
  const keepOutput = (file, message) => {
    const lines = message.replace(/\n$/, '').split('\n');
    for (const line of lines) {
      if (DOWNLOAD.test(line)) process.stderr.write(`${dots % DOTS_PER_LINE === 0 ? '' : '\n'}${line}\n`);
    }
    const state = stateOf(file);
    if (!state) return;
    state.output.push(...lines);
    if (state.output.length > OUTPUT_TAIL) state.output.splice(0, state.output.length - OUTPUT_TAIL);
  };

  /** Whether an event is the one for a whole test file (Node 20 reports each file as a test named by its path). */
  const isFileEvent = (data) => data.nesting === 0 && data.file !== undefined && data.name === data.file;

  for await (const { type, data } of source) {
    switch (type) {
      case 'test:enqueue':
      case 'test:dequeue':
        if (isFileEvent(data)) {
          ownProcesses = true;
          stateOf(data.file);
        }
        break;
      case 'test:start':
        if (isFileEvent(data)) break;
        names.splice(data.nesting, Infinity, data.name);
        if (data.nesting === 0) topFile = data.file;
        break;
      case 'test:stdout':
      case 'test:stderr':
        keepOutput(data.file, data.message);
        break;
      case 'test:pass':
      case 'test:fail': {
        // The file's own state: of its process, or (in one process) of the module that declared the test.
        const state = ownProcesses ? undefined : stateOf(data.file);
        const suite = data.details?.type === 'suite';
        const error = data.details?.error;
        const failureType = error?.failureType;
        if (type === 'test:fail') {
          if (state) state.failed = true;
          // A suite (or file) failing because its tests did is said by those tests.
          if (failureType !== 'subtestsFailed') {
            if (isFileEvent(data)) failures.push({ file: data.file, line: undefined, testFile: data.file, path: [], error, failureType });
            else failures.push({ file: data.file, line: data.line, testFile: topFile ?? data.file, path: [...names.slice(0, data.nesting), data.name], error, failureType });
          }
        }
        // Files run in one process (`--unit`) have no event of their own: a file's time is that of
        // its top-level tests, and it has ended when the next file's top-level tests report (they run in turn).
        if (state && data.nesting === 0) {
          state.topLevelMs += data.details?.duration_ms ?? 0;
          const previous = lastInProcess === undefined ? undefined : files.get(lastInProcess);
          if (lastInProcess !== data.file && previous && previous.ended === undefined) {
            previous.ended = Date.now();
            yield dot(previous);
          }
          lastInProcess = data.file;
        }
        if (!suite) {
          if (data.skip !== undefined || data.todo !== undefined) own.skipped += 1;
          else if (type === 'test:pass') own.pass += 1;
          else if (failureType !== 'subtestsFailed') own.fail += 1;
        }
        break;
      }
      case 'test:complete': {
        if (!isFileEvent(data)) break;
        const state = stateOf(data.file);
        if (!state || state.ended !== undefined) break;
        state.ended = Date.now();
        state.durationMs = data.details?.duration_ms;
        if (data.details?.passed === false) state.failed = true;
        yield dot(state);
        break;
      }
      case 'test:diagnostic': {
        if (data.nesting !== 0 || data.file !== undefined) break;
        const match = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/.exec(data.message);
        if (match) diagnostics.set(match[1], Number(match[2]));
        break;
      }
      default:
        break;
    }
  }

  // Files the runner never closed on its own (a later Node, a crash): closed here.
  let tail = '';
  for (const state of files.values()) {
    if (state.ended !== undefined) continue;
    state.ended = Date.now();
    tail += dot(state);
  }
  yield `${tail}${dots % DOTS_PER_LINE === 0 ? '' : ` ${dots}\n`}`;

  // The tests of one process (--unit) ended, and what they left open kept it alive (scripts/run-tests.mjs).
  const leftOpen = process.env.MCP_CHAIN_TEST_LEFT_OPEN;
  if (leftOpen !== undefined) {
    failures.push({ file: undefined, line: undefined, path: ['(after the last test)'], error: `the tests ended, and what they left open kept the process alive 10 s later: ${leftOpen}`, failureType: undefined });
  }
  if (failures.length > 0) yield `\n${failures.length === 1 ? 'one failure' : `${failures.length} failures`}:\n`;
  const shownOutput = new Set();
  for (const [index, failure] of failures.entries()) {
    const name = failure.path.length > 0 ? failure.path.join(' › ') : '(the file itself: it failed outside any test)';
    const testFile = failure.testFile ?? failure.file;
    const declared = failure.line === undefined ? '' : failure.file === testFile ? `:${failure.line}` : ` (declared at ${rel(failure.file)}:${failure.line})`;
    let text = `\n${index + 1}) ${rel(testFile)}${declared}\n   ${name}\n`;
    const cause = failure.error?.cause ?? failure.error;
    if (failure.failureType === 'cancelledByParent') text += '   cancelled: its suite or its file ended first\n';
    else if (failure.path.length === 0 && typeof cause === 'string') text += `   ${cause}: the file's process failed (a load error, an exit code): see its output below\n`;
    else text += `${indent(typeof cause === 'string' ? cause : inspect(cause, { depth: 6, colors: false }))}\n`;
    const state = testFile === undefined ? undefined : files.get(testFile);
    if (state && state.output.length > 0 && !shownOutput.has(testFile)) {
      shownOutput.add(testFile);
      text += `   --- the last ${state.output.length} lines of the file's output ---\n${indent(state.output.join('\n'))}\n`;
    }
    yield text;
  }

  const slowest = [...files.entries()]
    .map(([file, state]) => ({ file, ms: state.durationMs ?? (ownProcesses ? (state.ended ?? Date.now()) - state.started : state.topLevelMs) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, SLOWEST);
  if (slowest.length > 1) {
    yield `\nslowest files:\n${slowest.map(({ file, ms }) => `${seconds(ms).padStart(12)}  ${rel(file)}`).join('\n')}\n`;
  }

  const counted = diagnostics.has('pass');
  const passed = counted ? diagnostics.get('pass') : own.pass;
  const failed = (counted ? (diagnostics.get('fail') ?? 0) + (diagnostics.get('cancelled') ?? 0) : own.fail) + (leftOpen === undefined ? 0 : 1);
  const skipped = counted ? (diagnostics.get('skipped') ?? 0) + (diagnostics.get('todo') ?? 0) : own.skipped;
  const failedFiles = [...files.values()].filter((state) => state.failed).length;
  yield `\n${files.size} files${failedFiles > 0 ? ` (${failedFiles} failed)` : ''}, wall time ${seconds(Date.now() - startedAt)}\n`;
  yield `tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`;
}

/** @param {string} text */
function indent(text) {
  return text
    .split('\n')
    .map((line) => `   ${line}`)
    .join('\n');
}

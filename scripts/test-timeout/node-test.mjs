// 'node:test' as the test files see it under scripts/run-tests.mjs (see ./register.mjs): the same
// API, except that a test or hook given no `timeout` gets one, so a missed event fails that test
// with "test timed out after …ms" instead of hanging the run.
//
// The timeout is the one of the innermost `describe`/`suite` that set one (a block of slow
// end-to-end tests sets it once), else MCP_CHAIN_TEST_TIMEOUT_MS, else 60 s: generous, a safety
// net and never a timing. Subtests made with `t.test()` inherit their parent's, as node:test does.
import * as nodeTest from 'node:test';
import { fileURLToPath } from 'node:url';

const DEFAULT_TIMEOUT_MS = Number(process.env.MCP_CHAIN_TEST_TIMEOUT_MS ?? 60_000);
/** Timeouts of the suites whose bodies are running now (node:test runs a suite's body at once). */
const suiteTimeouts = [];
const current = () => suiteTimeouts.at(-1) ?? DEFAULT_TIMEOUT_MS;
/** @param {unknown} value @returns {value is { timeout?: number }} */
const isOptions = (value) => typeof value === 'object' && value !== null;

/**
 * node:test records where each test was declared (the file, line and column of its caller), and
 * reporters show it: called from here, every test would be declared in this file. So the real
 * function is called through a trampoline compiled with the caller's file as its source URL and
 * the call at the caller's line and column (a `new Function` body starts on line 3).
 */
const trampolines = new Map();
const here = import.meta.url;
const herePath = fileURLToPath(here);

/**
 * The first frame of the stack outside this file: the test file (or helper) that called us, at its
 * line and column in the source (the stack is source-mapped where tsx loaded TypeScript).
 */
function callerLocation() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 12;
  const stack = String(new Error().stack);
  Error.stackTraceLimit = limit;
  for (const line of stack.split('\n').slice(1)) {
    const match = /\(?((?:file:\/\/|\/)[^\s()]+):(\d+):(\d+)\)?$/.exec(line.trim());
    if (match && match[1] !== here && match[1] !== herePath) return { url: match[1], line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}

/** `real(...args)`, called as if from where our caller is. */
function fromCaller(real, args) {
  const at = callerLocation();
  if (!at || /[\n\r]/.test(at.url)) return real(...args);
  const key = `${at.url}:${at.line}:${at.column}`;
  let trampoline = trampolines.get(key);
  if (!trampoline) {
    const call = at.line >= 4 ? `${'\n'.repeat(at.line - 4)}return (\n${' '.repeat(at.column - 1)}real(...args));` : 'return real(...args);';
    const body = `${call}\n//# sourceURL=${at.url}`;
    trampoline = new Function('real', 'args', body);
    trampolines.set(key, trampoline);
  }
  return trampoline(real, args);
}

/** `test`'s arguments ([name], [options], [fn]) with a timeout added unless they have one. */
function withTimeout(args) {
  const at = args.findIndex(isOptions);
  if (at >= 0) return args[at].timeout === undefined ? args.with(at, { ...args[at], timeout: current() }) : args;
  const after = typeof args[0] === 'string' ? 1 : 0;
  return [...args.slice(0, after), { timeout: current() }, ...args.slice(after)];
}

/** A test function (`test`, `it`) and its `skip`/`todo`/`only`, adding the timeout. */
function wrapTest(real) {
  const wrapped = (...args) => fromCaller(real, withTimeout(args));
  for (const variant of ['skip', 'todo', 'only']) wrapped[variant] = (...args) => fromCaller(real[variant], withTimeout(args));
  return wrapped;
}

/** A suite function (`describe`, `suite`): its timeout becomes its tests' default. */
function wrapSuite(real) {
  const within = (call) => (...args) => {
    const timeout = args.find(isOptions)?.timeout;
    if (timeout === undefined) return fromCaller(call, args);
    suiteTimeouts.push(timeout);
    try {
      return fromCaller(call, args);
    } finally {
      suiteTimeouts.pop();
    }
  };
  const wrapped = within(real);
  for (const variant of ['skip', 'todo', 'only']) wrapped[variant] = within(real[variant]);
  return wrapped;
}

/** A hook (`before`, `after`, ...): `(fn, options)`. */
const wrapHook = (real) => (fn, options = {}) => real(fn, options.timeout === undefined ? { ...options, timeout: current() } : options);

export const test = wrapTest(nodeTest.test);
export const it = wrapTest(nodeTest.it);
export const describe = wrapSuite(nodeTest.describe);
export const suite = wrapSuite(nodeTest.suite);
export const before = wrapHook(nodeTest.before);
export const after = wrapHook(nodeTest.after);
export const beforeEach = wrapHook(nodeTest.beforeEach);
export const afterEach = wrapHook(nodeTest.afterEach);
export const skip = (...args) => fromCaller(nodeTest.skip, withTimeout(args));
export const todo = (...args) => fromCaller(nodeTest.todo, withTimeout(args));
export const only = (...args) => fromCaller(nodeTest.only, withTimeout(args));
export const { mock, run } = nodeTest;
export default Object.assign((...args) => test(...args), {
  ...nodeTest.default,
  skip: test.skip, todo: test.todo, only: test.only,
  test, it, describe, suite, before, after, beforeEach, afterEach, mock, run,
});

// 'node:test' as the test files see it under scripts/run-tests.mjs (see ./register.mjs): the same
// API, except that a test or hook given no `timeout` gets one, so a missed event fails that test
// with "test timed out after …ms" instead of hanging the run.
//
// The timeout is the one of the innermost `describe`/`suite` that set one (a block of slow
// end-to-end tests sets it once), else MCP_CHAIN_TEST_TIMEOUT_MS, else 60 s: generous, a safety
// net and never a timing. Subtests made with `t.test()` inherit their parent's, as node:test does.
import * as nodeTest from 'node:test';

const DEFAULT_TIMEOUT_MS = Number(process.env.MCP_CHAIN_TEST_TIMEOUT_MS ?? 60_000);
/** Timeouts of the suites whose bodies are running now (node:test runs a suite's body at once). */
const suiteTimeouts = [];
const current = () => suiteTimeouts.at(-1) ?? DEFAULT_TIMEOUT_MS;
/** @param {unknown} value @returns {value is { timeout?: number }} */
const isOptions = (value) => typeof value === 'object' && value !== null;

/** `test`'s arguments ([name], [options], [fn]) with a timeout added unless they have one. */
function withTimeout(args) {
  const at = args.findIndex(isOptions);
  if (at >= 0) return args[at].timeout === undefined ? args.with(at, { ...args[at], timeout: current() }) : args;
  const after = typeof args[0] === 'string' ? 1 : 0;
  return [...args.slice(0, after), { timeout: current() }, ...args.slice(after)];
}

/** A test function (`test`, `it`) and its `skip`/`todo`/`only`, adding the timeout. */
function wrapTest(real) {
  const wrapped = (...args) => real(...withTimeout(args));
  for (const variant of ['skip', 'todo', 'only']) wrapped[variant] = (...args) => real[variant](...withTimeout(args));
  return wrapped;
}

/** A suite function (`describe`, `suite`): its timeout becomes its tests' default. */
function wrapSuite(real) {
  const within = (call) => (...args) => {
    const timeout = args.find(isOptions)?.timeout;
    if (timeout === undefined) return call(...args);
    suiteTimeouts.push(timeout);
    try {
      return call(...args);
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
export const skip = (...args) => nodeTest.skip(...withTimeout(args));
export const todo = (...args) => nodeTest.todo(...withTimeout(args));
export const only = (...args) => nodeTest.only(...withTimeout(args));
export const { mock, run } = nodeTest;
export default Object.assign((...args) => test(...args), {
  ...nodeTest.default,
  skip: test.skip, todo: test.todo, only: test.only,
  test, it, describe, suite, before, after, beforeEach, afterEach, mock, run,
});

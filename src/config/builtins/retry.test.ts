import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { silentLogger } from '../../log/stderr-logger.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { retryBuiltin } from './retry.js';

const problemsOf = (options: unknown): string[] => optionProblems(retryBuiltin, options);

describe('retry in a config file', () => {
  test('options as a file writes them make a middleware', () => {
    assert.equal(typeof retryBuiltin.create({ tools: ['get_*'], on: ['connectionClosed'], maxAttempts: 2 }, { dir: '/', file: '/mcp-chain.json', log: silentLogger }), 'function');
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ maxAttempts: 0 }), ['maxAttempts: expected at least 1, found 0']);
    assert.deepEqual(problemsOf({ on: ['crash'] }), ['on[0]: expected one of "connectionClosed", "timeout", "isError", found "crash"']);
    assert.deepEqual(problemsOf({ tools: ['get_*'], idempotentHint: true, on: ['timeout', 'isError'], maxAttempts: 4, initialDelayMs: 100, maxDelayMs: 2000, multiplier: 3 }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ retry: { tools: ['a__get_*'] } }] });
    assert.deepEqual((await loadConfig(good)).middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['retry']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ retry: { tools: 'a__get_*' } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), ['middleware[0].retry.tools: expected a list, found a string']);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { timeoutBuiltin } from './timeout.js';

const problemsOf = (options: unknown): string[] => optionProblems(timeoutBuiltin, options);

describe('timeout in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    const mw = timeoutBuiltin.create({ servers: { a: 20 } }, { dir: '/', file: '/mcp-chain.json', log: silentLogger });
    const hang = local({ tools: [{ name: 'a__hang', handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ content: [] }))) }] });
    const h = await harness(chain(mw).to(hang));
    const response = await h.call('tools/call', { name: 'a__hang' });
    assert.equal((response.error as { code: number }).code, -32001);
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ ms: 0 }), ['ms: expected more than 0, found 0']);
    assert.deepEqual(problemsOf({ tools: { a: 'fast' } }), ['tools.a: expected a number, found a string']);
    assert.deepEqual(problemsOf({ ms: 1000, tools: { 'render_*': 120_000 }, servers: { github: 5000 }, separator: '.' }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ timeout: { ms: 5000 } }] });
    assert.deepEqual((await loadConfig(good)).middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['timeout']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ timeout: { ms: -5 } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), ['middleware[0].timeout.ms: expected more than 0, found -5']);
  });
});

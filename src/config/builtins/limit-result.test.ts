import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { limitResultBuiltin } from './limit-result.js';

const problemsOf = (options: unknown): string[] => optionProblems(limitResultBuiltin, options);

describe('limitResult in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    const mw = limitResultBuiltin.create({ tools: { 'big*': { maxTextChars: 3 } } }, { dir: '/', file: '/mcp-chain.json', log: silentLogger });
    const h = await harness(chain(mw).to(local({ tools: [{ name: 'big', handler: () => ({ content: [{ type: 'text', text: 'abcdef' }] }) }] })));
    const { content } = await h.request('tools/call', { name: 'big' });
    assert.deepEqual(content[0], { type: 'text', text: 'abc' });
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ maxBytes: 100 }), ['maxBytes: expected at least 1024, found 100']);
    assert.deepEqual(problemsOf({ onExceed: 'drop' }), ['onExceed: expected "truncate" or "error", found "drop"']);
    assert.deepEqual(problemsOf({ tools: { a: { onExceed: 'error' } } }), ['tools.a: set maxBytes or maxTextChars']);
    assert.deepEqual(problemsOf({ maxChars: 5 }), ['maxChars: unknown key: expected one of maxBytes, maxTextChars, onExceed']);
    assert.deepEqual(problemsOf({ maxBytes: 100_000, tools: { 'github__*': { maxTextChars: 20_000, onExceed: 'error' } } }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ limitResult: { maxBytes: 100_000 } }] });
    assert.deepEqual((await loadConfig(good)).middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['limitResult']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ limitResult: { maxTextChars: 0 } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), ['middleware[0].limitResult.maxTextChars: expected more than 0, found 0']);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { requireScopesBuiltin } from './require-scopes.js';

const problemsOf = (options: unknown): string[] => optionProblems(requireScopesBuiltin, options);
const context = { dir: '/', file: '/mcp-chain.json', log: silentLogger };

describe('requireScopes in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    const mw = requireScopesBuiltin.create({ tools: { 'admin_*': ['admin', 'write'] }, onMissing: 'refuse' }, context);
    const server = local({ tools: ['admin_reset', 'ls'].map((name) => ({ name, handler: () => ({ content: [{ type: 'text', text: name }] }) })) });
    const h = await harness(chain(mw).to(server), { identity: { id: 'alice', method: 'oauth', scopes: ['admin'] } });
    assert.equal((await h.request('tools/list')).tools.length, 2);
    assert.deepEqual((await h.call('tools/call', { name: 'admin_reset', arguments: {} })).error, {
      code: -32004,
      message: 'Insufficient scope: the tool "admin_reset" needs the scopes "admin" and "write"; the caller lacks "write"',
      data: { scopes: ['admin', 'write'], tool: 'admin_reset' },
    });
    assert.ok(await h.request('tools/call', { name: 'ls' }));
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({}), []);
    assert.deepEqual(
      problemsOf({ tools: { 'github__*': 'repo', '*': ['mcp:use', 'x'] }, prompts: { p: [] }, resources: { 'file:///*': 'files' }, default: 'a', onMissing: 'hide', unscoped: 'deny' }),
      [],
    );
    assert.deepEqual(problemsOf({ onMissing: 'drop' }), ['onMissing: expected "hide" or "refuse", found "drop"']);
    assert.deepEqual(problemsOf({ unscoped: 'maybe' }), ['unscoped: expected "allow" or "deny", found "maybe"']);
    assert.deepEqual(problemsOf({ scopes: {} }), ['scopes: unknown key: expected one of prompts, resources, default, onMissing, unscoped']);
    assert.deepEqual(problemsOf({ tools: { a: 'two words' }, default: ['ok', 7], prompts: { p: 5 } }), [
      'tools.a: a scope is printable characters without spaces, quotes or backslashes',
      'prompts.p: expected a string or a list, found a whole number',
      'default[1]: expected a string, found a whole number',
    ]);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ requireScopes: { tools: { 'a__*': 'a:use' } } }] });
    assert.deepEqual((await loadConfig(good)).middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['requireScopes']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ requireScopes: { onMissing: 'hidden' } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), ['middleware[0].requireScopes.onMissing: expected "hide" or "refuse", found "hidden"']);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { discoverBuiltin } from './discover.js';

const problemsOf = (options: unknown): string[] => optionProblems(discoverBuiltin, options);

describe('discover in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    const mw = discoverBuiltin.create({ names: { search: 'find_tools' }, alwaysShow: ['echo'] }, { dir: '/', file: '/mcp-chain.json', log: silentLogger });
    const tools = ['echo', 'add', 'ping'].map((name) => ({ name, description: `The ${name} tool`, handler: () => ({ content: [{ type: 'text' as const, text: name }] }) }));
    const h = await harness(chain(mw).to(local({ tools })));
    const listed = (await h.request('tools/list')).tools as unknown as JsonObject[];
    assert.deepEqual(listed.map((tool) => tool.name), ['find_tools', 'describe_tool', 'call_tool', 'echo']);
    const found = await h.request('tools/call', { name: 'find_tools', arguments: { query: 'add', limit: 1 } });
    assert.deepEqual(found.structuredContent, { tools: [{ name: 'add', description: 'The add tool', score: (found.structuredContent as { tools: Array<{ score: number }> }).tools[0]?.score }] });
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ minTools: -1 }), ['minTools: expected at least 0, found -1']);
    assert.deepEqual(problemsOf({ maxLimit: 0 }), ['maxLimit: expected at least 1, found 0']);
    assert.deepEqual(problemsOf({ names: { search: '' } }), ['names.search: expected a non-empty string, found an empty string']);
    assert.deepEqual(problemsOf({ names: { search: 'x', call: 'x' } }), ['names: the meta-tools need different names']);
    assert.deepEqual(problemsOf({ alwaysShow: 'memory__*' }), ['alwaysShow: expected a list, found a string']);
    assert.deepEqual(problemsOf({ names: { find: 'x' } }), ['names.find: unknown key: expected one of search, describe, call']);
    assert.deepEqual(problemsOf({ names: { search: 'find', describe: 'show', call: 'run' }, alwaysShow: ['memory__*'], minTools: 40, defaultLimit: 5, maxLimit: 20 }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ discover: { minTools: 40 } }] });
    assert.deepEqual((await loadConfig(good)).middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['discover']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ discover: { defaultLimit: 0 } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), ['middleware[0].discover.defaultLimit: expected at least 1, found 0']);
  });
});

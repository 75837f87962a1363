import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { cacheBuiltin } from './cache.js';

/** The problems a config file's `cache` options give, as `path: message`. */
const problemsOf = (options: unknown): string[] => optionProblems(cacheBuiltin, options);

describe('cache in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    let calls = 0;
    const server = local({ tools: [{ name: 'get', handler: () => ({ content: [{ type: 'text', text: String(++calls) }] }) }] });
    const mw = cacheBuiltin.create({ tools: ['g*'], ttlMs: { tools: 60_000, lists: 0 }, maxEntries: 10 }, { dir: '/', file: '/mcp-chain.json', log: silentLogger });
    const h = await harness(chain().use(mw).to(server));
    await h.request('tools/call', { name: 'get', arguments: { a: 1 } });
    const again = await h.request('tools/call', { name: 'get', arguments: { a: 1 } });
    assert.deepEqual(again.content, [{ type: 'text', text: '1' }]);
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ ttlMs: { tools: -5 } }), ['ttlMs.tools: expected at least 0, found -5']);
    assert.deepEqual(problemsOf({ ttlMs: { list: 1000 } }), ['ttlMs.list: unknown key; did you mean "lists"?']);
    assert.deepEqual(problemsOf({ maxEntries: 1.5 }), ['maxEntries: expected a whole number, found a number']);
    assert.deepEqual(problemsOf({ tools: 'search_*' }), ['tools: expected a list, found a string']);
    assert.deepEqual(problemsOf({ shared: 'yes' }), ['shared: expected true or false, found a string']);
    assert.deepEqual(problemsOf({ tools: ['a'], readOnly: true, shared: false, maxEntries: 0, maxBytes: 1024, singleFlight: false, ttlMs: { lists: 0, resources: 1, tools: 2 } }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a', middleware: [{ cache: { tools: ['get_*'] } }] } }, middleware: [{ cache: { shared: true } }] });
    const config = await loadConfig(good);
    assert.deepEqual(config.middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['cache']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ cache: { ttlMs: { resources: -1 } } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), ['middleware[0].cache.ttlMs.resources: expected at least 0, found -1']);
  });
});

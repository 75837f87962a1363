import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { rateLimitBuiltin } from './rate-limit.js';
import { silentLogger } from '../../log/stderr-logger.js';

/** The problems a config file's `rateLimit` options give, as `path: message`. */
const problemsOf = (options: unknown): string[] => optionProblems(rateLimitBuiltin, options);

describe('rateLimit in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    const mw = rateLimitBuiltin.create({ limits: [{ key: ['tool'], rate: 1, per: 'hour' }], concurrency: [{ maxConcurrent: 2 }] }, { dir: '/', file: '/mcp-chain.json', log: silentLogger });
    const server = local({ tools: [{ name: 'a', handler: () => ({ content: [] }) }] });
    const h = await harness(chain().use(mw).to(server));
    await h.request('tools/call', { name: 'a' });
    const refused = await h.call('tools/call', { name: 'a' });
    assert.equal((refused.error as { code: number }).code, -32029);
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ limits: [{ rate: 10, per: 'day' }] }), ['limits[0].per: expected one of "second", "minute", "hour" or a number, found a string']);
    assert.deepEqual(problemsOf({ limits: [{ rate: 0, per: 'second' }] }), ['limits[0].rate: expected more than 0, found 0']);
    assert.deepEqual(problemsOf({ limits: [{ rate: 1, per: 'second', key: ['user'] }] }), ['limits[0].key[0]: expected one of "identity", "session", "tool", "server", found "user"']);
    assert.deepEqual(problemsOf({ concurrency: [{ maxConcurent: 2 }] }), [
      'concurrency[0].maxConcurrent: missing: expected a number',
      'concurrency[0].maxConcurent: unknown key; did you mean "maxConcurrent"?',
    ]);
    assert.deepEqual(problemsOf({ limit: [] }), ['limit: unknown key; did you mean "limits"?']);
    assert.deepEqual(problemsOf({ limits: [{ rate: 5, per: 60_000, burst: 10 }], separator: '.', maxBuckets: 100 }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ rateLimit: { limits: [{ key: ['identity'], rate: 60, per: 'minute' }] } }] });
    const config = await loadConfig(good);
    assert.deepEqual(config.middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['rateLimit']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ rateLimit: { limits: [{ rate: -1, per: 'minute' }] } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), ['middleware[0].rateLimit.limits[0].rate: expected more than 0, found -1']);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { approveBuiltin } from './approve.js';

const problemsOf = (options: unknown): string[] => optionProblems(approveBuiltin, options);

describe('approve in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    const mw = approveBuiltin.create({ annotations: { destructiveHint: true }, onDeny: 'result' }, { dir: '/', file: '/mcp-chain.json', log: silentLogger });
    const h = await harness(chain(mw).to(local({ tools: [{ name: 'rm', handler: () => ({ content: [] }) }] })));
    const result = await h.request('tools/call', { name: 'rm' });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /cannot ask for it/);
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({}), [': set tools and/or annotations: which calls need approval']);
    assert.deepEqual(problemsOf({ annotations: {} }), [': set tools and/or annotations: which calls need approval']);
    assert.deepEqual(problemsOf({ tools: ['x'], fallback: 'ask' }), ['fallback: expected "deny" or "allow", found "ask"']);
    assert.deepEqual(problemsOf({ tools: ['x'], timeoutMs: 0 }), ['timeoutMs: expected more than 0, found 0']);
    assert.deepEqual(problemsOf({ tools: ['x'], annotations: { destructive: true } }), [
      'annotations.destructive: unknown key: expected one of destructiveHint, readOnlyHint, idempotentHint, openWorldHint',
    ]);
    assert.deepEqual(
      problemsOf({ tools: ['gh__delete_*'], annotations: { destructiveHint: true, openWorldHint: true }, fallback: 'allow', onDeny: 'error', timeoutMs: 30_000, message: 'Run {tool}?', rememberForSession: false }),
      [],
    );
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ approve: { tools: ['a__delete_*'] } }] });
    assert.deepEqual((await loadConfig(good)).middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['approve']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ approve: { tools: ['x'], onDeny: 'throw' } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), ['middleware[0].approve.onDeny: expected "result" or "error", found "throw"']);
  });
});

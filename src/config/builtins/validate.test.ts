import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { parseConfigText } from '../parse-config-text.js';
import { validateBuiltin } from './validate.js';

/** The problems a config file's `validate` options give, as `path: message`. */
const problemsOf = (options: unknown): string[] => optionProblems(validateBuiltin, options);

const count = {
  name: 'count',
  inputSchema: { type: 'object' as const, properties: { count: { type: 'integer', maximum: 10 } } },
  handler: () => ({ content: [] }),
};

describe('validate in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    const dir = tempDir();
    const file = write(dir, 'mcp-chain.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ validate: { tools: { deny: ['debug_*'] }, maxErrors: 1, invalidArguments: 'error' } }] });
    const data = parseConfigText(readFileSync(file, 'utf8'), 'json', file).data as { middleware: Array<{ validate: unknown }> };
    const options = validateBuiltin.options.parse(data.middleware[0]?.validate);
    const h = await harness(chain().use(validateBuiltin.create(options, { dir, file: 'mcp-chain.json', log: silentLogger })).to(local({ tools: [count] })));
    await assert.rejects(h.request('tools/call', { name: 'count', arguments: { count: 11 } }), {
      code: -32602,
      message: 'Invalid params: arguments/count must be <= 10 (maximum)',
    });
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ maxErrors: 0 }), ['maxErrors: expected more than 0, found 0']);
    assert.deepEqual(problemsOf({ invalidSchema: 'skip' }), ['invalidSchema: expected "allow" or "refuse", found "skip"']);
    assert.deepEqual(problemsOf({ tools: { alow: ['a'] } }), ['tools.alow: unknown key; did you mean "allow"?']);
    assert.deepEqual(problemsOf({ outputs: true }), ['outputs: unknown key; did you mean "output"?']);
    assert.deepEqual(problemsOf({ tools: { allow: ['db_*'], deny: ['db_drop'] }, output: false, strict: true, invalidArguments: 'result', maxErrors: 5 }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: ['validate', { validate: { output: false } }] });
    const config = await loadConfig(good);
    assert.deepEqual(config.middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['validate', 'validate']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ validate: { invalidArguments: 'warn' } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => `${problem.path}: ${problem.message}`), [
      'middleware[0].validate.invalidArguments: expected "error" or "result", found "warn"',
    ]);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { redactBuiltin } from './redact.js';

const problemsOf = (options: unknown): string[] => optionProblems(redactBuiltin, options);

describe('redact in a config file', () => {
  test('options as a file writes them make a working middleware', async () => {
    const mw = redactBuiltin.create(
      { detectors: ['email'], custom: [{ name: 'ticket', pattern: 'acme-\\d+', ignoreCase: true }], mask: '#{name}#' },
      { dir: '/', file: '/mcp-chain.json', log: silentLogger },
    );
    const server = local({ tools: [{ name: 'who', handler: () => ({ content: [{ type: 'text', text: 'bob@example.com ACME-42 4111111111111111' }] }) }] });
    const h = await harness(chain(mw).to(server));
    const { content } = await h.request('tools/call', { name: 'who' });
    assert.deepEqual(content[0], { type: 'text', text: '#email# #ticket# 4111111111111111' });
    await h.close();
  });

  test('wrong options are problems with their path', () => {
    const [unknown, ...more] = problemsOf({ detectors: ['emial'] });
    assert.match(unknown ?? '', /^detectors\[0\]: expected one of "private-key", "jwt", .*"credit-card", found "emial"$/);
    assert.deepEqual(more, []);
    assert.deepEqual(problemsOf({ custom: [{ name: 'x', pattern: '(' }] }), [
      'custom[0].pattern: invalid pattern: Invalid regular expression: /(/u: Unterminated group',
    ]);
    assert.deepEqual(problemsOf({ custom: [{ name: 'x', pattern: 'a*' }] }), ['custom[0].pattern: the pattern matches the empty string']);
    assert.deepEqual(problemsOf({ custom: [{ name: 'has space', pattern: 'a' }] }), [
      'custom[0].name: expected a name of letters, digits, ".", "_" and "-" (at most 64)',
    ]);
    assert.deepEqual(problemsOf({ arguments: 'yes' }), ['arguments: expected true or false, found a string']);
    assert.deepEqual(problemsOf({ masks: '*' }), ['masks: unknown key; did you mean "mask"?']);
    assert.deepEqual(problemsOf({ detectors: ['jwt', 'credit-card'], custom: [{ name: 'id', pattern: 'ID-\\d+' }], mask: '***', arguments: true }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a', middleware: [{ redact: { detectors: ['email'] } }] } }, middleware: ['redact'] });
    const config = await loadConfig(good);
    assert.deepEqual(config.middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['redact']);
    const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ redact: { custom: [{ name: 'x', pattern: '[' }] } }] });
    const error = await configErrorOf(loadConfig(bad));
    assert.deepEqual(error.problems.map((problem) => problem.path), ['middleware[0].redact.custom[0].pattern']);
  });
});

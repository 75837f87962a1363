import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { configErrorOf, optionProblems, tempDir, write } from '../_test/config-files.js';
import { loadConfig } from '../load-config.js';
import { auditBuiltin } from './audit.js';

const problemsOf = (options: unknown): string[] => optionProblems(auditBuiltin, options);

describe('audit in a config file', () => {
  test('options as a file writes them make a working middleware, its file relative to the config file', async () => {
    const dir = tempDir();
    try {
      const mw = auditBuiltin.create({ file: 'audit.jsonl', redact: { detectors: ['email'] } }, { dir, file: 'mcp-chain.json', log: silentLogger });
      const server = local({ tools: [{ name: 'a__echo', handler: () => ({ content: [] }) }] });
      const gateway = chain(mw).to(server);
      const h = await harness(gateway);
      await h.request('tools/call', { name: 'a__echo', arguments: { to: 'bob@example.com' } });
      await h.close();
      await gateway.close();
      const record = JSON.parse(readFileSync(join(dir, 'audit.jsonl'), 'utf8')) as Record<string, unknown>;
      assert.equal(record.server, 'a');
      assert.deepEqual(record.arguments, { to: '[REDACTED:email]' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('wrong options are problems with their path', () => {
    assert.deepEqual(problemsOf({ file: 'a.jsonl', maxBytes: 0 }), ['maxBytes: expected more than 0, found 0']);
    assert.deepEqual(problemsOf({ file: 'a.jsonl', scope: 'all' }).length, 1);
    assert.deepEqual(problemsOf({ file: 'a.jsonl', redact: { detectors: ['email'], mask: '*', arguments: true } }).length, 1);
    assert.deepEqual(problemsOf({ file: 'a.jsonl', redact: true, maxAgeMs: 86_400_000, keep: 0, maxQueue: 100, separator: '.', scope: 'requests' }), []);
  });

  test('a config file names it, and a wrong option is a problem at its place in the file', async () => {
    const dir = tempDir();
    try {
      const good = write(dir, 'good.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ audit: { file: 'audit.jsonl', maxBytes: 1_000_000 } }] });
      assert.deepEqual((await loadConfig(good)).middleware.map((entry) => ('name' in entry ? entry.name : undefined)), ['audit']);
      const bad = write(dir, 'bad.json', { mcpServers: { a: { command: 'a' } }, middleware: [{ audit: { file: 'audit.jsonl', keep: -1 } }] });
      const error = await configErrorOf(loadConfig(bad));
      assert.deepEqual(error.problems.map((problem) => problem.path), ['middleware[0].audit.keep']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

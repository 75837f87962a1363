// The config file's `drainMs`: how long a gateway lets calls in flight finish on SIGTERM or SIGINT.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { configErrorOf, tempDir, write } from './_test/config-files.js';
import { loadConfig } from './load-config.js';

const dir = tempDir();
let files = 0;
function file(text: object): string {
  return write(dir, join(`case-${++files}`, 'config.json'), text);
}

describe('config: drainMs', () => {
  test('is read as given (0 included); absent, it is left to the default', async () => {
    const servers = { mcpServers: { a: { command: 'a' } } };
    assert.equal((await loadConfig(file({ ...servers, drainMs: 2500 }))).drainMs, 2500);
    assert.equal((await loadConfig(file({ ...servers, drainMs: 0 }))).drainMs, 0);
    assert.equal(Object.hasOwn(await loadConfig(file(servers)), 'drainMs'), false);
  });

  test('a negative or fractional value is a problem naming the key', async () => {
    for (const drainMs of [-1, 1.5]) {
      const error = await configErrorOf(loadConfig(file({ mcpServers: { a: { command: 'a' } }, drainMs })));
      assert.deepEqual(error.problems.map((problem) => problem.path), ['drainMs']);
    }
  });
});

// The public surface is deliberate: api/<entry>.api.md lists every name each entry point of
// package.json exports, with its signature. An export added, removed or changed without updating
// the report (`npm run api:update`, then review the diff) fails here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';

const root = resolve(import.meta.dirname, '../..');

describe('API report', () => {
  test('every public entry point exports exactly what api/ says', () => {
    const run = spawnSync(process.execPath, ['scripts/api-report.mjs', '--check'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, `${run.stderr}\nRun \`npm run api:update\` if the change is deliberate, and review api/ in the diff.`);
  });
});

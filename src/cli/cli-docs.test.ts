import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { renderCliDocs } from './cli-docs.js';
import { COMMAND_TABLE } from './command-table.js';

test('docs/cli.md is what the command table generates (after changing a command: npm run gen:cli-docs)', () => {
  const checkedIn = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  assert.ok(checkedIn === renderCliDocs(COMMAND_TABLE), 'docs/cli.md is out of date: run `npm run gen:cli-docs` and commit it');
});

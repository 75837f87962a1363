import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { middlewareReference } from './middleware-reference.js';
import { BUILTIN_MIDDLEWARE } from './middleware-registry.js';

describe('docs/middleware.md', () => {
  test('is what the config schema generates (after changing a built-in: npm run gen:middleware-docs)', () => {
    const page = readFileSync(new URL('../../docs/middleware.md', import.meta.url), 'utf8');
    assert.ok(page === middlewareReference(), 'docs/middleware.md is out of date: run `npm run gen:middleware-docs` and commit it');
  });

  test('names every built-in and every one of its options', () => {
    const page = middlewareReference();
    for (const name of Object.keys(BUILTIN_MIDDLEWARE)) assert.ok(page.includes(`## \`${name}\``), name);
    for (const option of ['tools.allow', 'tools.deny', 'resources', 'destination', 'includeParams']) assert.ok(page.includes(`| \`${option}\``), option);
  });
});

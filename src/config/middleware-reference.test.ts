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

  test('every option of every built-in is described (the descriptions are this page and the JSON Schema)', () => {
    const undescribed: string[] = [];
    const visit = (schema: unknown, path: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as { properties?: Record<string, { description?: unknown }>; items?: unknown; additionalProperties?: unknown; anyOf?: unknown[] };
      for (const [name, property] of Object.entries(node.properties ?? {})) {
        if (typeof property.description !== 'string') undescribed.push(`${path}${name}`);
        visit(property, `${path}${name}.`);
      }
      visit(node.items, path);
      visit(node.additionalProperties, `${path}<key>.`);
      for (const alternative of node.anyOf ?? []) visit(alternative, path);
    };
    for (const [name, builtin] of Object.entries(BUILTIN_MIDDLEWARE)) visit(builtin.options.toJSONSchema(), `${name}: `);
    assert.deepEqual(undescribed, []);
  });
});

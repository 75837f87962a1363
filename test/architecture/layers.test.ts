// The layers of src/, lowest first: a module may import from its own folder and from any lower
// layer, never from a higher one nor from a sibling on its own level. Tests and `_test/` helpers
// are exempt (a unit test may use the harness). docs/architecture.md has the same table.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';

export const LAYERS: readonly (readonly string[])[] = [
  ['spec', 'errors', 'log', 'fs'],
  ['message'],
  ['core', 'transport'],
  // The two protocol eras: the versions served, the stateless era's envelope, headers, results and
  // requestState, the bridge that serves a stateless-era client from a session, the stdio gate and
  // the upstream connection that speaks either era. Above core/transport (the bridge and the gate
  // are Transports, the connection an Upstream), below session and everything that serves or calls.
  ['eras'],
  ['auth'],
  ['rpc'],
  ['session'],
  ['chain'],
  ['upstream'],
  ['middleware'],
  ['front', 'testing', 'config'],
  ['serve'],
  ['cli'],
  ['.'],
];

const src = resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== '_test') out.push(...sources(path));
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** The layer folder of a file under src/: its first path segment, or '.' for the root. */
function folderOf(file: string): string {
  const rel = relative(src, file);
  return rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : '.';
}

function rankOf(folder: string): number {
  const rank = LAYERS.findIndex((layer) => layer.includes(folder));
  assert.notEqual(rank, -1, `src/${folder}/ is in no layer: add it to LAYERS here and to docs/architecture.md`);
  return rank;
}

/** Relative imports and re-exports of a module (static and dynamic). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) found.push(match[1] as string);
  return found;
}

describe('layers', () => {
  test('every import in src/ runs downward: a layer never reaches up into a higher one or across to a sibling', () => {
    const violations: string[] = [];
    for (const file of sources(src)) {
      const from = folderOf(file);
      const fromRank = rankOf(from);
      for (const specifier of importsOf(file)) {
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(src)) continue;
        const to = folderOf(target);
        if (to === from) continue;
        if (rankOf(to) >= fromRank) violations.push(`${relative(src, file)} (${from}) imports ${specifier} (${to})`);
      }
    }
    assert.deepEqual(violations, [], `imports against the layer order:\n${violations.join('\n')}`);
  });

  test('every folder of src/ has a layer', () => {
    for (const name of readdirSync(src)) {
      if (statSync(join(src, name)).isDirectory()) rankOf(name);
    }
  });

  test('the architecture document lists every layer folder', () => {
    const doc = readFileSync(resolve(src, '../docs/architecture.md'), 'utf8');
    const missing = LAYERS.flat().filter((folder) => folder !== '.' && !doc.includes(`\`${folder}/\``));
    assert.deepEqual(missing, [], 'folders missing from the layer table of docs/architecture.md');
  });
});

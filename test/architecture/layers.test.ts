// The layers of src/, lowest first: a module may import from its own folder and from any lower
// layer, never from a higher one nor from a sibling on its own level. Inside a folder, its
// subfolders are peers too: one may use another only as SUBFOLDER_DEPENDENCIES below declares,
// and the declared dependencies form no cycle (a subfolder and the files directly in its parent
// folder use each other freely: those files are the folder's shared base and its registry).
// Tests and `_test/` helpers are exempt (a unit test may use the harness). docs/architecture.md
// has the same table.
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

/**
 * Subfolder → the sibling subfolders (same parent folder) it may import from, each with why. Any
 * other import between two subfolders of one folder fails the test; so does a cycle here.
 */
export const SUBFOLDER_DEPENDENCIES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'middleware/audit': { 'middleware/redact': 'an audit record is redacted by the redact middleware\'s own redactor' },
  'middleware/cache': { 'middleware/filter': 'cache keys use the URI normalization filter matches with' },
  'middleware/require-scopes': { 'middleware/filter': 'scope rules match URIs as filter does (normalize-uri)' },
  'middleware/pin': { 'middleware/cache': 'a pinned tool is hashed over the canonical JSON the cache keys on' },
  'upstream/aggregate': { 'upstream/http': 'a member on HTTP reports its authorization state (session-auth)' },
};

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

/**
 * A path under src/ as imported: `dist/bundle/` mirrors src/, so `../bundle/cli/serve.js` from
 * src/cli/ is src/cli/serve.ts.
 */
function underSrc(target: string): string {
  const rel = relative(src, target);
  return rel.startsWith('bundle/') ? rel.slice('bundle/'.length) : rel;
}

/** The layer folder of a path relative to src/: its first segment, or '.' for the root. */
function folderOf(rel: string): string {
  return rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : '.';
}

/** The subfolder unit of a path relative to src/: `middleware/pin` for `middleware/pin/x.ts`, else its layer folder. */
function unitOf(rel: string): string {
  const parts = rel.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : folderOf(rel);
}

function rankOf(folder: string): number {
  const rank = LAYERS.findIndex((layer) => layer.includes(folder));
  assert.notEqual(rank, -1, `src/${folder}/ is in no layer: add it to LAYERS here and to docs/architecture.md`);
  return rank;
}

/**
 * The relative specifiers a module imports, in every form: `import … from`, `import '…'`,
 * `export … from`, `import('…')`, `new URL('…', import.meta.url)`; single, double or back quotes
 * (a template literal without substitutions). Folders (`new URL('./', …)`) are left out.
 */
export function importsOf(text: string): string[] {
  const forms = [
    /\b(?:from|import)\s*\(?\s*(['"`])(\.[^'"`$]*)\1/g,
    /\bnew\s+URL\s*\(\s*(['"`])(\.[^'"`$]*)\1\s*,\s*import\.meta\.url\b/g,
  ];
  const found: string[] = [];
  for (const form of forms) for (const match of text.matchAll(form)) found.push(match[2] as string);
  return found.filter((specifier) => !specifier.endsWith('/'));
}

interface Edge {
  /** The importing file, relative to src/. */
  file: string;
  specifier: string;
  /** The imported file, relative to src/. */
  target: string;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of sources(src)) {
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(src + '/')) continue;
      out.push({ file: relative(src, file), specifier, target: underSrc(target) });
    }
  }
  return out;
}

/** A cycle in `graph` (unit → units), as a path that ends where it starts, or undefined. */
function cycleIn(graph: Readonly<Record<string, Readonly<Record<string, string>>>>): string[] | undefined {
  const done = new Set<string>();
  const visit = (node: string, path: string[]): string[] | undefined => {
    if (path.includes(node)) return [...path.slice(path.indexOf(node)), node];
    if (done.has(node)) return undefined;
    for (const next of Object.keys(graph[node] ?? {})) {
      const cycle = visit(next, [...path, node]);
      if (cycle) return cycle;
    }
    done.add(node);
    return undefined;
  };
  for (const node of Object.keys(graph)) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('layers', () => {
  test('every import form is read: both quote styles, import(), export … from, new URL(…, import.meta.url)', () => {
    const text = [
      "import { a } from './a.js';",
      'import type { B } from "../b/b.js";',
      'import {\n  c,\n} from \'./c.js\';',
      "import './side-effect.js';",
      "export { d } from './d.js';",
      'export * from "./e.js";',
      "const f = await import('./f.js');",
      'const g = await import("../g/g.js");',
      "const h = new URL('../bundle/h.js', import.meta.url);",
      'const i = await import(new URL("./i.js", import.meta.url).href);',
      "const here = new URL('./', import.meta.url);",
      "const pkg = await import('some-package');",
      'const built = `./${name}.js`;',
    ].join('\n');
    assert.deepEqual(importsOf(text).sort(), ['../b/b.js', '../bundle/h.js', '../g/g.js', './a.js', './c.js', './d.js', './e.js', './f.js', './i.js', './side-effect.js']);
  });

  test('every import in src/ runs downward: a layer never reaches up into a higher one or across to a sibling', () => {
    const violations: string[] = [];
    for (const { file, specifier, target } of edges()) {
      const from = folderOf(file);
      const to = folderOf(target);
      if (to === from) continue;
      if (rankOf(to) >= rankOf(from)) violations.push(`${file} (${from}) imports ${specifier} (${to})`);
    }
    assert.deepEqual(violations, [], `imports against the layer order:\n${violations.join('\n')}`);
  });

  test('a subfolder imports a sibling subfolder only as SUBFOLDER_DEPENDENCIES declares', () => {
    const violations = new Set<string>();
    const used = new Set<string>();
    for (const { file, specifier, target } of edges()) {
      const from = unitOf(file);
      const to = unitOf(target);
      // Different units of one folder, both subfolders (not the folder's own files).
      if (from === to || folderOf(file) !== folderOf(target) || !from.includes('/') || !to.includes('/')) continue;
      if (SUBFOLDER_DEPENDENCIES[from]?.[to] === undefined) violations.add(`${file} (${from}) imports ${specifier} (${to})`);
      else used.add(`${from} → ${to}`);
    }
    assert.deepEqual([...violations], [], `undeclared imports between subfolders (declare them in SUBFOLDER_DEPENDENCIES with why, or move the shared code down):\n${[...violations].join('\n')}`);
    const declared = Object.entries(SUBFOLDER_DEPENDENCIES).flatMap(([from, tos]) => Object.keys(tos).map((to) => `${from} → ${to}`));
    assert.deepEqual(declared.filter((edge) => !used.has(edge)), [], 'declared dependencies no import uses any more: remove them');
  });

  test('the declared subfolder dependencies form no cycle', () => {
    assert.deepEqual(cycleIn({ a: { b: '' }, b: { c: '' }, c: { a: '' } }), ['a', 'b', 'c', 'a'], 'the check finds a cycle');
    assert.equal(cycleIn(SUBFOLDER_DEPENDENCIES)?.join(' → '), undefined);
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

// Where each public name lives (docs/architecture.md, "The public surface"): the root has what a
// chain or middleware author needs, each built-in middleware its own subpath, the kernel the
// pieces under a chain, the harness `mcp-chain/testing`; no name has two homes. Read from the API
// reports in api/, which api-report.test.ts keeps equal to the code.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';

const root = resolve(import.meta.dirname, '../..');

interface Entry {
  types: string;
  default: string;
}
const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, Entry | string> };

/** The names of a public entry ('.', './kernel', './filter'), from its API report. */
function namesOf(entry: string): Set<string> {
  const file = join(root, 'api', `${entry === '.' ? 'mcp-chain' : `mcp-chain-${entry.slice(2).replaceAll('/', '-')}`}.api.md`);
  const names = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const name = /^- (?:[a-z]+ )?`([^`]+)`/.exec(line)?.[1];
    if (name !== undefined) names.add(name);
  }
  return names;
}

const codeEntries = Object.entries(exports).filter((pair): pair is [string, Entry] => typeof pair[1] === 'object');
const middlewareFolders = readdirSync(join(root, 'src', 'middleware'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('_'))
  .map((d) => d.name);

describe('the public surface', () => {
  test('no name is exported by two entry points', () => {
    const homes = new Map<string, string[]>();
    for (const [entry] of codeEntries) for (const name of namesOf(entry)) homes.set(name, [...(homes.get(name) ?? []), entry]);
    const twice = [...homes].filter(([, entries]) => entries.length > 1).map(([name, entries]) => `${name}: ${entries.join(', ')}`);
    assert.deepEqual(twice, []);
  });

  test('each built-in middleware is reachable one way: mcp-chain/<its folder>', () => {
    for (const name of middlewareFolders) {
      assert.deepEqual(exports[`./${name}`], { types: `./dist/middleware/${name}/index.d.ts`, default: `./dist/bundle/middleware/${name}/index.js` }, name);
    }
    for (const file of ['index.ts', 'kernel.ts', 'testing/index.ts']) {
      const source = readFileSync(join(root, 'src', file), 'utf8');
      assert.doesNotMatch(source, /from '\.\.?\/middleware\//, `src/${file} re-exports a middleware, whose one home is its subpath`);
    }
  });

  test('the subpaths are the root, the kernel, the harness, the middleware and the config schema, nothing else', () => {
    const expected = ['.', './kernel', './testing', ...middlewareFolders.map((name) => `./${name}`), './config.schema.json'].sort();
    assert.deepEqual(Object.keys(exports).sort(), expected);
  });

  test('the root reads in one sitting: a chain, its middleware sugar, the context, errors, upstreams, defineConfig', () => {
    const names = namesOf('.');
    for (const name of ['chain', 'Chain', 'Middleware', 'Context', 'on', 'mapList', 'when', 'McpError', 'ErrorCode', 'ChainError', 'stdio', 'http', 'local', 'defineConfig']) {
      assert.ok(names.has(name), `the root exports ${name}`);
    }
    for (const name of ['Session', 'Peer', 'compose', 'serveStdio', 'serveHttp', 'StreamTransport', 'filter', 'harness']) {
      assert.ok(!names.has(name), `${name} is not on the root`);
    }
  });
});

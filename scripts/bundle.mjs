#!/usr/bin/env node
// Bundles what tsc wrote to dist/ into dist/bundle/: the library (every public entry of
// package.json but the harness: "mcp-chain", "mcp-chain/kernel", "mcp-chain/filter", ...), the
// harness ("mcp-chain/testing") and the CLI's serving code, with the modules they share split into
// common chunks, so that each module exists once whichever entry is imported first. The library is
// one bundled entry that is no public entry of its own (dist/bundle/library.js): each public entry
// becomes a one-line re-export of exactly its own names from it, so each entry exports what its
// module does (the API report in api/ lists it) without a chunk of its own: every bundled entry
// splits the shared code further, and two dozen chunks cost ~4 MiB more RSS at start than four.
// Loading a few files instead of ~70 modules is most of what mcp-chain adds to a server's cold
// start, and a chain file's `import 'mcp-chain'` shares the CLI's modules.
// Run after tsc (npm run build does both).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const dist = `${root}dist`;
const out = `${dist}/bundle`;
/** Public entries bundled on their own; the rest re-export from the library. */
const BUNDLED = ['./testing'];

const { exports } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
// Entries that are files, not code (the config file's JSON Schema), are neither bundled nor re-exported.
const entries = Object.entries(exports).filter(([, entry]) => typeof entry === 'object').map(([name, entry]) => {
  const source = `${root}${entry.types.slice(2).replace(/\.d\.ts$/, '.js')}`;
  const bundle = `${out}/${source.slice(`${dist}/`.length)}`;
  if (`${root}${entry.default.slice(2)}` !== bundle) {
    throw new Error(`package.json exports["${name}"].default must be ./${bundle.slice(root.length)} (the bundle of its types' module)`);
  }
  return { name, source, bundle };
});

rmSync(out, { recursive: true, force: true });
// The library's entry module: everything the other public entries export (each name has one
// entry, so no two of these modules export the same name).
const library = { source: `${dist}/library.js`, file: `${out}/library.js` };
const reexported = entries.filter((e) => !BUNDLED.includes(e.name));
writeFileSync(library.source, reexported.map((e) => `export * from './${relative(dist, e.source)}';\n`).join(''));
await build({
  // The serving code: serve(plan) for the one-liners (serve/serve.js), and config files (served or validated),
  // an entry of their own so that the config formats' libraries stay out of the one-liners' chunks.
  entryPoints: [`${dist}/serve/serve.js`, `${dist}/cli/config-commands.js`, library.source, ...entries.filter((e) => BUNDLED.includes(e.name)).map((e) => e.source)],
  outdir: out,
  outbase: dist,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Chain files are loaded (esbuild, tsx) on demand: those stay imports.
  external: ['tsx', 'tsx/*', 'esbuild', 'open'],
  // jsonc-parser's `main` is a UMD build whose require('./impl/...') calls esbuild cannot follow:
  // its ES module build instead (what its `module` field names).
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // CommonJS dependencies (pino) call require(): give every output file one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'error',
});

rmSync(library.source);

// The root, the kernel and the middleware subpaths: their own names, from the library bundle.
const offered = new Set(Object.keys(await import(library.file)));
for (const { name, source, bundle } of reexported) {
  const names = Object.keys(await import(source));
  const missing = names.filter((n) => !offered.has(n));
  if (missing.length > 0) throw new Error(`${name} exports ${missing.join(', ')}, which the library bundle does not (is the name exported by two entries?)`);
  mkdirSync(dirname(bundle), { recursive: true });
  writeFileSync(bundle, `export { ${names.join(', ')} } from './${relative(dirname(bundle), library.file)}';\n`);
}

// The command itself (package.json `bin`): main.js and the light modules it loads before the
// server starts (the command table, one file per command, the parser) become one file in its
// place, so that a command added to the table costs no module load at start. The serving code
// stays an import (the bundle above, or ../serve/serve.js and ./config-commands.js when it was not built).
await build({
  entryPoints: [`${root}dist/cli/main.js`],
  outfile: `${root}dist/cli/main.js`,
  allowOverwrite: true,
  bundle: true,
  sourcemap: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['../serve/serve.js', './config-commands.js'],
  logLevel: 'error',
});

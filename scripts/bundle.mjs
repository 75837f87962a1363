#!/usr/bin/env node
// Bundles what tsc wrote to dist/ into dist/bundle/: the library ("mcp-chain"), the kernel
// ("mcp-chain/kernel"), the harness ("mcp-chain/testing") and the CLI's serving code, with the
// modules they share split into common chunks, so that each module exists once whichever entry is
// imported first. Every other entry point of package.json ("mcp-chain/filter", ...) becomes a
// one-line re-export of exactly its own names from the library or kernel bundle, so each entry
// exports what its module does (the API report in api/ lists it) without a chunk of its own:
// every bundled entry splits the shared code further, and two dozen chunks cost ~4 MiB more RSS
// at start than four. Loading a few files instead of ~70 modules is most of what mcp-chain adds
// to a server's cold start, and a chain file's `import 'mcp-chain'` shares the CLI's modules.
// Run after tsc (npm run build does both).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const dist = `${root}dist`;
const out = `${dist}/bundle`;
/** Entries bundled on their own (the rest re-export from these). */
const BUNDLED = ['.', './kernel', './testing'];

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
await build({
  // The serving code: serve(plan) for the one-liners (serve/serve.js), and config files (served or validated),
  // an entry of their own so that the config formats' libraries stay out of the one-liners' chunks.
  entryPoints: [`${dist}/serve/serve.js`, `${dist}/cli/config-commands.js`, ...entries.filter((e) => BUNDLED.includes(e.name)).map((e) => e.source)],
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

// The other entries: their own names, from the library or the kernel bundle.
const library = { file: `${out}/index.js`, names: new Set(Object.keys(await import(`${dist}/index.js`))) };
const kernel = { file: `${out}/kernel.js`, names: new Set(Object.keys(await import(`${dist}/kernel.js`))) };
for (const { name, source, bundle } of entries.filter((e) => !BUNDLED.includes(e.name))) {
  const lines = [];
  for (const from of [library, kernel]) {
    const own = Object.keys(await import(source)).filter((n) => from.names.has(n) && !lines.some((l) => l.names.includes(n)));
    if (own.length > 0) lines.push({ names: own, file: from.file });
  }
  const missing = Object.keys(await import(source)).filter((n) => !lines.some((l) => l.names.includes(n)));
  if (missing.length > 0) throw new Error(`${name} exports ${missing.join(', ')}, which neither mcp-chain nor mcp-chain/kernel exports`);
  mkdirSync(dirname(bundle), { recursive: true });
  writeFileSync(bundle, lines.map((l) => `export { ${l.names.join(', ')} } from './${relative(dirname(bundle), l.file)}';\n`).join(''));
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

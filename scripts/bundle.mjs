#!/usr/bin/env node
// Bundles what tsc wrote to dist/ into dist/bundle/: every entry point of package.json's
// `exports` ("mcp-chain", "mcp-chain/kernel", "mcp-chain/filter", ...) and the CLI's serving code,
// with the modules they share split into common chunks, so that each module exists once whichever
// entry is imported first, and each entry exports exactly what its module does (the API report in
// api/ lists it). Loading a few files instead of ~70 modules is most of what mcp-chain adds to a
// server's cold start, and a chain file's `import 'mcp-chain'` shares the CLI's modules. Run after
// tsc (npm run build does both).
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = `${root}dist/bundle`;

const { exports } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const entryPoints = [`${root}dist/cli/serve.js`];
for (const [name, entry] of Object.entries(exports)) {
  const source = `${root}${entry.types.slice(2).replace(/\.d\.ts$/, '.js')}`;
  const expected = `${out}/${source.slice(`${root}dist/`.length)}`;
  if (`${root}${entry.default.slice(2)}` !== expected) {
    throw new Error(`package.json exports["${name}"].default must be ./${expected.slice(root.length)} (the bundle of its types' module)`);
  }
  entryPoints.push(source);
}

await build({
  entryPoints,
  outdir: out,
  outbase: `${root}dist`,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Chain files are loaded (esbuild, tsx) on demand: those stay imports.
  external: ['tsx', 'tsx/*', 'esbuild'],
  // CommonJS dependencies (pino) call require(): give every output file one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'error',
});

// The command itself (package.json `bin`): main.js and the light modules it loads before the
// server starts (the command table, one file per command, the parser) become one file in its
// place, so that a command added to the table costs no module load at start. The serving code
// stays an import (the bundle above, or ./serve.js when it was not built).
await build({
  entryPoints: [`${root}dist/cli/main.js`],
  outfile: `${root}dist/cli/main.js`,
  allowOverwrite: true,
  bundle: true,
  sourcemap: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['./serve.js'],
  logLevel: 'error',
});

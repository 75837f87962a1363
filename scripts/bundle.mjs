#!/usr/bin/env node
// Bundles what tsc wrote to dist/ into dist/bundle/: the library (dist/index.js, which exports
// everything public) and the CLI's serving code, with the modules they share split into a common
// chunk, so that each module exists once whichever is imported first. Every other entry point of
// package.json ("mcp-chain/filter", ...) becomes a one-line re-export of the library bundle.
// Loading three files instead of ~70 modules takes a fraction of the time, which is most of what
// mcp-chain adds to a server's cold start; and a chain file's `import 'mcp-chain'` shares the
// CLI's modules. Run after tsc (npm run build does both).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = `${root}dist/bundle`;
const library = `${out}/index.js`;

await build({
  entryPoints: [`${root}dist/index.js`, `${root}dist/cli/serve.js`],
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

const { exports } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
for (const entry of Object.values(exports)) {
  const file = `${root}${entry.default.slice(2)}`;
  if (file === library) continue;
  if (!file.startsWith(`${out}/`)) throw new Error(`package.json exports ${entry.default}, outside dist/bundle/`);
  mkdirSync(dirname(file), { recursive: true });
  // The library exports every public name; the entry's own types (its .d.ts) say which it offers.
  writeFileSync(file, `export * from './${relative(dirname(file), library)}';\n`);
}

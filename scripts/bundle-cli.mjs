#!/usr/bin/env node
// Bundles the CLI's serving code (dist/cli/serve.js and everything it imports, pino included) into
// one file, dist/cli/serve.bundle.mjs. Loading one file instead of ~70 modules takes a third of
// the time, which is most of what mcp-chain adds to a server's cold start. The CLI uses it when
// no chain file is given (a chain file imports 'mcp-chain' and must share our modules, so that
// path keeps the unbundled dist/). Run after tsc (npm run build does both).
import { build } from 'esbuild';

await build({
  entryPoints: [new URL('../dist/cli/serve.js', import.meta.url).pathname],
  outfile: new URL('../dist/cli/serve.bundle.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Chain files are loaded (esbuild, tsx) by the unbundled modules, never from the bundle.
  external: ['tsx', 'tsx/*', 'esbuild'],
  // CommonJS dependencies (pino) call require(): give the bundle one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'error',
});

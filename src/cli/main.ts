#!/usr/bin/env node
// The `mcp-chain` command. This file stays light: it parses the command line and starts the
// server given after `--` *before* loading the rest of mcp-chain, so that the server boots while
// we do (cold start is the slower of the two, not their sum).
import { existsSync } from 'node:fs';
import { ChainError } from '../errors/chain-error.js';
import { spawnServer, type SpawnedServer } from '../upstream/spawn-server.js';
import { parseCli, USAGE, version } from './args.js';
// A type only (erased): the serving code itself is loaded after the server has started.
import type { serve as Serve } from './serve.js';

async function main(argv: string[]): Promise<number> {
  const request = parseCli(argv);
  switch (request.kind) {
    case 'help':
      process.stderr.write(USAGE);
      return 0;
    case 'version':
      process.stderr.write(`${version()}\n`);
      return 0;
    case 'usage':
      process.stderr.write(USAGE);
      return 2;
    case 'serve':
      break;
  }
  let prestarted: SpawnedServer | undefined;
  // On HTTP, servers start per session, when clients come.
  if (request.server && !request.http) {
    prestarted = spawnServer(request.server);
  }
  try {
    const { serve } = await loadServe();
    return await serve(request, prestarted);
  } catch (error) {
    if (prestarted?.child.pid !== undefined) {
      try {
        process.kill(-prestarted.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    throw error;
  }
}

/**
 * The serving code, from the bundle (dist/bundle/, faster to load), whose modules a chain file's
 * `import 'mcp-chain'` shares; from the unbundled modules when the bundle was not built.
 */
async function loadServe(): Promise<{ serve: typeof Serve }> {
  const bundle = new URL('../bundle/cli/serve.js', import.meta.url);
  if (existsSync(bundle)) return (await import(bundle.href)) as { serve: typeof Serve };
  return import('./serve.js');
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ChainError || (error instanceof Error && error.name === 'TypeError' && 'code' in error)) {
      process.stderr.write(`mcp-chain: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`mcp-chain: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

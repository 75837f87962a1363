import { existsSync } from 'node:fs';
// Types only (erased): the serving code itself is loaded after the server has started.
import type { serve as Serve } from '../serve/serve.js';
import type { ServePlan } from '../serve/serve-plan.js';
import { spawnServer, type SpawnedServer } from '../upstream/spawn-server.js';

/**
 * Serves a plan of `proxy` or `run`; resolves with the exit code. A server given after `--` is
 * started *before* the rest of mcp-chain is loaded, so that it boots while we do (cold start is the
 * slower of the two, not their sum); on HTTP, servers start per session, when clients come.
 */
export async function startServing(plan: ServePlan): Promise<number> {
  const server = plan.upstream.kind === 'chain' ? plan.upstream.server : undefined;
  const prestarted: SpawnedServer | undefined = server?.kind === 'stdio' && plan.front.kind === 'stdio' ? spawnServer(server.command) : undefined;
  try {
    const { serve } = await loadServe();
    return await serve(plan, { prestarted });
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
  const bundle = new URL('../bundle/serve/serve.js', import.meta.url);
  if (existsSync(bundle)) return (await import(bundle.href)) as { serve: typeof Serve };
  return import('../serve/serve.js');
}

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChainError } from '../errors/chain-error.js';
import type { SessionOptions } from '../session/session.js';
import type { Upstream } from '../upstream/upstream.js';

export interface ChainFile {
  upstream: Upstream;
  options: SessionOptions;
}

function isUpstream(value: unknown): value is Upstream {
  return typeof value === 'object' && value !== null && typeof (value as { connect?: unknown }).connect === 'function';
}

/**
 * Loads a chain from a `.ts`, `.mts`, `.js` or `.mjs` file: its default export (or an export named
 * `chain`) is the Upstream to serve, and an optional export `options` holds session options
 * (`serverInfo`, `timeouts`). TypeScript is compiled on the fly by tsx, with no build step.
 */
export async function loadChainFile(path: string): Promise<ChainFile> {
  const url = pathToFileURL(resolve(path)).href;
  let mod: Record<string, unknown>;
  try {
    if (/\.[cm]?tsx?$/.test(path)) {
      const { tsImport } = await import('tsx/esm/api');
      mod = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    } else {
      mod = (await import(url)) as Record<string, unknown>;
    }
  } catch (error) {
    throw new ChainError('LOAD', `cannot load ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const upstream = mod.default ?? mod.chain;
  if (!isUpstream(upstream)) {
    throw new ChainError('LOAD', `${path} must export a chain: \`export default chain().use(...).to(...)\``);
  }
  const options = typeof mod.options === 'object' && mod.options !== null ? (mod.options as SessionOptions) : {};
  return { upstream, options };
}

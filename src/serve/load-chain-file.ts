import { isChain } from '../chain/chain.js';
import { ChainError } from '../errors/chain-error.js';
import type { SessionOptions } from '../session/session.js';
import type { Upstream } from '../core/upstream.js';
import { importModule } from '../config/import-module.js';

export interface ChainFile {
  /**
   * The upstream to serve. `command` is the upstream given on the command line after `--`, if any:
   * a file may export a chain without a terminal, or a function of the upstream, to be put in
   * front of any server.
   */
  build(command: Upstream | undefined): Upstream;
  options: SessionOptions;
}

function isUpstream(value: unknown): value is Upstream {
  return typeof value === 'object' && value !== null && typeof (value as { connect?: unknown }).connect === 'function';
}

/**
 * Loads a chain from a `.ts`, `.mts`, `.js` or `.mjs` file. Its default export (or an export named
 * `chain`) is one of:
 * - an Upstream (usually a Chain ending in `.to(...)`): served as it is;
 * - a Chain without a terminal: put in front of the command given after `--`;
 * - a function `(upstream) => Upstream`: called with the command given after `--`.
 * An optional export `options` holds session options (`serverInfo`, `timeouts`). TypeScript is
 * compiled on the fly (esbuild, or tsx as a fallback), with no build step.
 */
export async function loadChainFile(path: string): Promise<ChainFile> {
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(path);
  } catch (error) {
    throw new ChainError('LOAD', `cannot load ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const exported = mod.default ?? mod.chain;
  const options = typeof mod.options === 'object' && mod.options !== null ? (mod.options as SessionOptions) : {};
  const needCommand = (what: string): never => {
    throw new ChainError('USAGE', `${path} exports ${what}: give the server to put behind it, as in \`mcp-chain run ${path} -- <command>\``);
  };
  if (typeof exported === 'function') {
    const factory = exported as (upstream: Upstream) => unknown;
    return {
      options,
      build: (command) => {
        const built = factory(command ?? needCommand('a function of the upstream'));
        if (!isUpstream(built)) throw new ChainError('LOAD', `the function exported by ${path} must return a chain`);
        return built;
      },
    };
  }
  if (isChain(exported) && exported.upstream === undefined) {
    return { options, build: (command) => exported.to(command ?? needCommand('a chain without an upstream')) };
  }
  if (isUpstream(exported)) {
    return {
      options,
      build: (command) => {
        if (command) throw new ChainError('USAGE', `${path} already names its upstream; drop the command after --`);
        return exported;
      },
    };
  }
  throw new ChainError('LOAD', `${path} must export a chain: \`export default chain().use(...).to(...)\``);
}

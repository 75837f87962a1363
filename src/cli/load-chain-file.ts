import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isChain } from '../chain/chain.js';
import { ChainError } from '../errors/chain-error.js';
import type { SessionOptions } from '../session/session.js';
import type { Upstream } from '../core/upstream.js';
import { CompileCache } from '../config/compile-cache.js';

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
  const url = pathToFileURL(resolve(path)).href;
  let mod: Record<string, unknown>;
  try {
    mod = /\.[cm]?tsx?$/.test(path) ? await importTypeScript(resolve(path)) : ((await import(url)) as Record<string, unknown>);
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

/**
 * Imports a TypeScript chain file. Fast path: esbuild compiles it (with the local files it imports;
 * packages stay imports) into a hidden file beside it, so that every import resolves exactly as
 * from the original and the file shares our copy of mcp-chain's modules; the file is removed at
 * once. That takes about half of what tsx's loader costs at startup, and nothing when the
 * {@link CompileCache} has the file compiled from the same sources. Where that is not possible (a
 * read-only directory, esbuild missing), tsx's loader is registered globally instead.
 */
async function importTypeScript(file: string): Promise<Record<string, unknown>> {
  const cache = new CompileCache(`${esbuildVersion()} ${JSON.stringify(BUILD_OPTIONS)}`);
  let code = cache.get(file);
  if (code === undefined) code = await compile(file, cache);
  if (code !== undefined) {
    const compiled = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.mcp-chain.mjs`);
    let written = false;
    try {
      writeFileSync(compiled, code, { flag: 'wx' });
      written = true;
    } catch {
      // A directory we cannot write to: tsx below.
    }
    if (written) {
      try {
        return (await import(pathToFileURL(compiled).href)) as Record<string, unknown>;
      } finally {
        rmSync(compiled, { force: true });
      }
    }
  }
  // Registered globally (not tsImport's private namespace), so the file shares our copy of
  // mcp-chain's modules.
  const { register } = await import('tsx/esm/api');
  register();
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/** How chain files are compiled: local imports bundled in, packages left as imports. */
const BUILD_OPTIONS = { bundle: true, packages: 'external', format: 'esm', platform: 'node', target: 'node20' } as const;

/**
 * Compiles `file` with esbuild and keeps the result in `cache`. A compile error is thrown (its
 * first error, one line); undefined when esbuild cannot run here (then tsx takes over).
 */
async function compile(file: string, cache: CompileCache): Promise<string | undefined> {
  try {
    const { build } = await import('esbuild');
    const result = await build({ ...BUILD_OPTIONS, entryPoints: [file], write: false, metafile: true, logLevel: 'silent', absWorkingDir: dirname(file) });
    const code = result.outputFiles[0]?.text;
    if (code !== undefined) cache.set(file, code, Object.keys(result.metafile.inputs).map((input) => resolve(dirname(file), input)));
    return code;
  } catch (error) {
    // A compile error is the user's to see (first error, one line); anything else: tsx below.
    const first = (error as { errors?: Array<{ text: string; location: { file: string; line: number; column: number } | null }> }).errors?.[0];
    if (first) {
      const where = first.location ? `${resolve(dirname(file), first.location.file)}:${first.location.line}:${first.location.column}: ` : '';
      throw new Error(`${where}${first.text}`);
    }
    return undefined;
  }
}

/** The installed esbuild's version, read without loading esbuild. */
function esbuildVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8')) as { version?: unknown };
    return String(version);
  } catch {
    return 'unknown';
  }
}

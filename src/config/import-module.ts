import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CompileCache } from './compile-cache.js';

let loads = 0;

/**
 * Imports a config file or a middleware module: `.js`/`.mjs` as they are, `.ts`/`.mts` compiled
 * on the fly. Every call loads the file afresh (for `--watch`): a JavaScript file under a new URL,
 * a TypeScript file compiled (or taken from the {@link CompileCache} when its sources did not
 * change) into a hidden file beside it, which is removed at once, so that its imports resolve as
 * from the original and it shares our copy of mcp-chain's modules. Where that is not possible (a
 * read-only directory, esbuild missing), tsx's loader is registered instead. A compile error is
 * thrown with its place (`file:line:column: message`).
 */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  const path = resolve(file);
  if (!/\.[cm]?tsx?$/.test(path)) return (await import(`${pathToFileURL(path).href}?load=${++loads}`)) as Record<string, unknown>;
  const cache = new CompileCache(`${esbuildVersion()} ${JSON.stringify(BUILD_OPTIONS)}`);
  const code = cache.get(path) ?? (await compile(path, cache));
  if (code !== undefined) {
    const compiled = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.mcp-chain.mjs`);
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
  return (await import(`${pathToFileURL(path).href}?load=${++loads}`)) as Record<string, unknown>;
}

/** Local imports bundled in, packages left as imports (as chain files are compiled). */
const BUILD_OPTIONS = { bundle: true, packages: 'external', format: 'esm', platform: 'node', target: 'node20' } as const;

/** Compiles `file` with esbuild into `cache`; undefined when esbuild cannot run here. */
async function compile(file: string, cache: CompileCache): Promise<string | undefined> {
  try {
    const { build } = await import('esbuild');
    const result = await build({ ...BUILD_OPTIONS, entryPoints: [file], write: false, metafile: true, logLevel: 'silent', absWorkingDir: dirname(file) });
    const code = result.outputFiles[0]?.text;
    if (code !== undefined) cache.set(file, code, Object.keys(result.metafile.inputs).map((input) => resolve(dirname(file), input)));
    return code;
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location: { file: string; line: number; column: number } | null }> }).errors?.[0];
    if (first) {
      const where = first.location ? `${resolve(dirname(file), first.location.file)}:${first.location.line}:${first.location.column + 1}: ` : '';
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

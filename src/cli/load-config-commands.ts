import { existsSync } from 'node:fs';
// Types only (erased): the modules themselves are loaded when a config file is served or validated,
// so that the one-liners never load the config formats' libraries (yaml, smol-toml, jsonc-parser, zod).
import type { serveConfig as ServeConfig } from './serve-config.js';
import type { validateConfig as ValidateConfig } from './validate-config.js';

/**
 * The code of `mcp-chain serve`, from the bundle (dist/bundle/, which a TypeScript config's
 * `import 'mcp-chain'` shares), or from the unbundled modules when the bundle was not built.
 */
export async function loadServeConfig(): Promise<{ serveConfig: typeof ServeConfig }> {
  const bundle = new URL('../bundle/cli/serve-config.js', import.meta.url);
  if (existsSync(bundle)) return (await import(bundle.href)) as { serveConfig: typeof ServeConfig };
  return import('./serve-config.js');
}

/** The code of `mcp-chain validate`, like {@link loadServeConfig}. */
export async function loadValidateConfig(): Promise<{ validateConfig: typeof ValidateConfig }> {
  const bundle = new URL('../bundle/cli/validate-config.js', import.meta.url);
  if (existsSync(bundle)) return (await import(bundle.href)) as { validateConfig: typeof ValidateConfig };
  return import('./validate-config.js');
}

import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * mcp-chain's version, from its package.json. Found by walking up from this module rather than at
 * a fixed relative path, because this code runs both unbundled (dist/cli/) and from the bundle
 * (dist/bundle/cli/ or a chunk), at different depths.
 */
export function version(): string {
  if (cached !== undefined) return cached;
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'mcp-chain' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // none here (or unreadable): one level up
    }
    if (new URL('../', dir).href === dir.href) throw new Error('mcp-chain: package.json not found above ' + import.meta.url);
  }
}

// Targets for the end-to-end suites: how to start an MCP server over stdio.
//
// Every e2e describe block is parameterised over a list of targets. Today each list
// holds only the server started directly ("direct"); once the proxy is built, add an
// entry produced by `viaProxy(...)` (or anything else that speaks MCP on stdio) and
// the same assertions run through it.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Target {
  /** Shown in test names, e.g. "direct" or "proxy". */
  name: string;
  command: string;
  args: string[];
  /** Extra environment for the spawned process (merged over the SDK's minimal default environment). */
  env?: Record<string, string>;
  /**
   * The process serves Streamable HTTP instead of stdio and logs `"msg":"listening"` with its
   * `"url"` on stderr; the client connects there.
   */
  http?: boolean;
  /** Working directory of the spawned process; default ours. */
  cwd?: string;
}

const require = createRequire(import.meta.url);

/** Repository root (this file lives in test/helpers/). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Absolute path of server-everything's entry point (its `mcp-server-everything` bin). */
export function everythingEntry(): string {
  const pkgJson = require.resolve('@modelcontextprotocol/server-everything/package.json');
  // package.json: "bin": { "mcp-server-everything": "dist/index.js" }; first argv selects the
  // transport (stdio | sse | streamableHttp), default stdio.
  return join(dirname(pkgJson), 'dist', 'index.js');
}

/** Absolute path of a fixture server in test/fixtures/servers/, e.g. fixturePath('crashy'). */
export function fixturePath(name: string): string {
  return join(repoRoot, 'test', 'fixtures', 'servers', `${name}.ts`);
}

/** tsx's ESM loader as a file: URL, so fixtures start regardless of the child's cwd. */
function tsxLoader(): string {
  return import.meta.resolve('tsx');
}

/** Command line (without a name) running a TypeScript fixture server under tsx. */
export function fixtureCommand(name: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', tsxLoader(), fixturePath(name)] };
}

/** A target starting fixture `name` directly. */
export function fixtureTarget(name: string, env?: Record<string, string>): Target {
  return { name: 'direct', ...fixtureCommand(name), ...(env ? { env } : {}) };
}

/** The proxy's CLI entry once built (`npm run build`). */
export const proxyMain = join(repoRoot, 'dist', 'cli', 'main.js');

/** True once `dist/cli/main.js` exists. */
export function proxyBuilt(): boolean {
  return existsSync(proxyMain);
}

/**
 * Wrap a target so it runs behind the proxy:
 *   node dist/cli/main.js [...proxyArgs] --env K=V... -- <target.command> <...target.args>
 * The proxy gives servers a minimal environment, so the target's env is passed with --env.
 */
export function viaProxy(target: Target, proxyArgs: string[] = [], name = `proxy(${target.name})`): Target {
  const env = Object.entries(target.env ?? {}).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
  return {
    name,
    command: process.execPath,
    args: [proxyMain, ...proxyArgs, ...env, '--', target.command, ...target.args],
    env: proxyEnv(),
  };
}

/**
 * What a proxy started with a minimal environment must still get from ours: the compile cache of
 * the test run (scripts/run-tests.mjs), so that no test leaves compiled chain files behind.
 */
export function proxyEnv(): Record<string, string> {
  const dir = process.env.MCP_CHAIN_CACHE_DIR;
  return dir === undefined ? {} : { MCP_CHAIN_CACHE_DIR: dir };
}

/** Like {@link viaProxy}, served on the proxy's Streamable HTTP front (`--http 127.0.0.1:0`). */
export function viaHttpProxy(target: Target, proxyArgs: string[] = [], name = `proxy-http(${target.name})`): Target {
  return { ...viaProxy(target, ['--http', '127.0.0.1:0', ...proxyArgs], name), http: true };
}

/** A chain file of test/fixtures/chains/, e.g. chainFile('nested'). */
export function chainFile(name: string): string {
  return join(repoRoot, 'test', 'fixtures', 'chains', `${name}.ts`);
}

/** A value the e2e suite expects to find in server-everything's environment (see get-env). */
export const ENV_MARKER = `marker-${process.pid}`;

/** server-everything, started directly, with MCP_CHAIN_E2E_MARKER in its environment. */
export function everythingDirect(): Target {
  return { name: 'direct', command: process.execPath, args: [everythingEntry(), 'stdio'], env: { MCP_CHAIN_E2E_MARKER: ENV_MARKER } };
}

/**
 * stdio front → mcp-chain → HTTP upstream: server-everything over HTTP (`streamableHttp` or `sse`)
 * with mcp-chain in front of it (`--url`), both started by the launcher fixture everything-http.
 */
export function everythingOverHttp(mode: 'streamableHttp' | 'sse' = 'streamableHttp', proxyArgs: string[] = []): Target {
  const { command, args } = fixtureCommand('everything-http');
  return {
    name: `mcp-chain → HTTP upstream (server-everything ${mode})`,
    command,
    args: [...args, mode, proxyMain, ...proxyArgs],
    env: { MCP_CHAIN_E2E_MARKER: ENV_MARKER },
  };
}

/** Targets for test/e2e/everything.test.ts. Add proxy targets here, e.g. viaProxy(everythingDirect()). */
export function everythingTargets(): Target[] {
  const direct = everythingDirect();
  return [
    direct,
    viaProxy(direct, [], 'mcp-chain'),
    viaProxy(direct, ['run', chainFile('two-middleware')], 'mcp-chain with lint and log'),
    viaProxy(direct, ['run', chainFile('nested')], 'mcp-chain nested in mcp-chain'),
    viaHttpProxy(direct, [], 'mcp-chain on Streamable HTTP'),
    everythingOverHttp('streamableHttp'),
    everythingOverHttp('sse'),
    {
      ...everythingOverHttp('streamableHttp', ['--http', '127.0.0.1:0']),
      name: 'mcp-chain on Streamable HTTP → HTTP upstream (server-everything streamableHttp)',
      http: true,
    },
  ];
}

/** Targets for the list_changed fixture (test/fixtures/servers/notifier.ts). */
export function notifierTargets(): Target[] {
  const direct = fixtureTarget('notifier');
  return [direct, viaProxy(direct, [], 'mcp-chain'), viaProxy(direct, ['run', chainFile('nested')], 'mcp-chain nested in mcp-chain')];
}

export { connectClient } from './client.js';
export type { CloseReport, Connection, ConnectOptions } from './client.js';

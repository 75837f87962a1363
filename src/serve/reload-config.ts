import { isDeepStrictEqual } from 'node:util';
import { rebuildMembers, type BuiltGateway } from '../config/build-gateway.js';
import { ConfigError } from '../config/config-error.js';
import type { GatewayConfig, MiddlewareConfig } from '../config/gateway-config.js';
import { loadConfig } from '../config/load-config.js';
import type { Logger } from '../log/logger.js';
import type { AggregateMember } from '../upstream/aggregate/aggregate-options.js';

/** What `--watch` does when the config file changes: {@link reloadConfig}. */
export interface ConfigReloader {
  /** Reads the file again and applies it; a reload asked for while one runs follows it. */
  reload(): void;
  /** No reload is applied after this (one in progress is dropped before it changes anything). */
  close(): void;
  /** Resolves once no reload is running (for tests and orderly shutdown). */
  idle(): Promise<void>;
}

export interface ReloadConfigOptions {
  readonly log: Logger;
  /**
   * What the command line said of the front (`--http` and its options): sections the command line
   * overrides are not reported as changed.
   */
  readonly overrides?: { readonly listen?: unknown } | undefined;
}

/**
 * Applies a changed config file to a running gateway. A valid new config rebuilds the members
 * (reusing the upstream of every server whose config did not change) and hands them to the
 * aggregate: running sessions start, stop or restart only the servers that changed (their clients
 * hear `list_changed`), new sessions get the new members. One info line says what changed. A file
 * with problems is logged, problem by problem, and the running config kept. What cannot change
 * while serving — the front, the gateway's own middleware, serverInfo, its timeouts and naming —
 * is compared with what was started, and a warning says that a restart is needed to apply it.
 */
export function reloadConfig(started: GatewayConfig, built: BuiltGateway, options: ReloadConfigOptions): ConfigReloader {
  const { log } = options;
  const file = started.file;
  let current: BuiltGateway = built;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const apply = async (): Promise<void> => {
    let next: GatewayConfig;
    let members: readonly AggregateMember[];
    try {
      next = await loadConfig(file, { log });
      if (closed) return;
      members = await rebuildMembers(next, current, log);
    } catch (error) {
      if (error instanceof ConfigError) {
        log.error('the config file has problems: kept the running config', { file, problems: error.message.split('\n') });
      } else {
        log.error('reloading the config file failed: kept the running config', { file, error: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    if (closed) {
      // Built for nothing: close what the new members hold that the running ones do not.
      for (const member of members) if (!current.members.some((m) => m.upstream === member.upstream)) await member.upstream.close?.();
      return;
    }
    const change = memberChanges(current.members, members);
    await current.aggregate.update(members);
    current = { ...current, members };
    log.info(changeText(change), { file, ...change });
    const restart = restartOnly(started, next, options.overrides?.listen !== undefined);
    if (restart.length > 0) {
      log.warn(`the config file changes ${restart.join(', ')}: restart mcp-chain to apply that (the rest was applied)`, { file, sections: restart });
    }
  };

  const run = (): void => {
    running = apply()
      .catch((error: unknown) => log.error('reloading the config file failed', { file, error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running = undefined;
        if (again && !closed) {
          again = false;
          run();
        }
      });
  };

  return {
    reload() {
      if (closed) return;
      if (running) again = true;
      else run();
    },
    close() {
      closed = true;
    },
    async idle() {
      while (running) await running;
    },
  };
}

/** Which servers a reload adds, removes, and restarts (same name, another upstream or other settings). */
export interface MemberChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly restarted: readonly string[];
}

function memberChanges(before: readonly AggregateMember[], after: readonly AggregateMember[]): MemberChanges {
  const old = new Map(before.map((m) => [m.name, m]));
  const now = new Set(after.map((m) => m.name));
  return {
    added: after.filter((m) => !old.has(m.name)).map((m) => m.name),
    removed: before.filter((m) => !now.has(m.name)).map((m) => m.name),
    restarted: after
      .filter((m) => {
        const was = old.get(m.name);
        return was !== undefined && (was.upstream !== m.upstream || was.prefix !== m.prefix || was.startupTimeoutMs !== m.startupTimeoutMs || was.timeoutMs !== m.timeoutMs);
      })
      .map((m) => m.name),
  };
}

function changeText({ added, removed, restarted }: MemberChanges): string {
  const parts = [
    added.length > 0 ? `added ${added.join(', ')}` : '',
    removed.length > 0 ? `removed ${removed.join(', ')}` : '',
    restarted.length > 0 ? `restarted ${restarted.join(', ')}` : '',
  ].filter((p) => p !== '');
  return parts.length === 0 ? 'config reloaded: no server changed' : `config reloaded: ${parts.join('; ')}`;
}

/** The sections of `next` that differ from what was started and cannot be applied while serving. */
function restartOnly(started: GatewayConfig, next: GatewayConfig, frontFromCommandLine: boolean): string[] {
  const sections: string[] = [];
  if (!frontFromCommandLine && !isDeepStrictEqual(started.front, next.front)) sections.push('the front (http)');
  if (!sameMiddleware(started.middleware, next.middleware)) sections.push('the middleware of the whole gateway');
  if (!isDeepStrictEqual(started.serverInfo, next.serverInfo)) sections.push('serverInfo');
  if (!isDeepStrictEqual(started.timeouts, next.timeouts)) sections.push('timeouts');
  if (!isDeepStrictEqual(started.naming, next.naming)) sections.push('naming');
  return sections;
}

/** Functions (of a TypeScript config, loaded anew on each change) compare by their source text. */
function sameMiddleware(a: readonly MiddlewareConfig[], b: readonly MiddlewareConfig[]): boolean {
  return a.length === b.length && a.every((m, i) => {
    const other = b[i];
    if (other === undefined) return false;
    if (m.kind === 'function' || other.kind === 'function') {
      return m.kind === 'function' && other.kind === 'function' && String(m.middleware) === String(other.middleware);
    }
    return isDeepStrictEqual(m, other);
  });
}

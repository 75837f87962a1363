import { spawn, type ChildProcess } from 'node:child_process';
import { defaultEnvironment } from './default-environment.js';

/** How to start a stdio server (the process part of `StdioOptions`). */
export interface ServerCommand {
  command: string;
  args?: readonly string[] | undefined;
  /** Added to a safe default environment (PATH, HOME, USER, …), or to the whole of ours with `inheritEnv`. */
  env?: Record<string, string> | undefined;
  inheritEnv?: boolean | undefined;
  cwd?: string | undefined;
}

/** A server process that has been asked to start. */
export interface SpawnedServer {
  readonly child: ChildProcess;
  /** Resolves once the process runs; rejects with the spawn error (a missing command, …). */
  readonly started: Promise<void>;
}

/**
 * Starts a server in its own process group (so it can be stopped with everything it starts), with
 * a safe default environment unless told to inherit ours. Light on purpose: the CLI calls it
 * before loading the rest of mcp-chain, so the server boots while we do.
 */
export function spawnServer(server: ServerCommand): SpawnedServer {
  const child = spawn(server.command, server.args ?? [], {
    cwd: server.cwd,
    env: { ...(server.inheritEnv ? process.env : defaultEnvironment()), ...server.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
  const started = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => resolve());
  });
  started.catch(() => undefined); // reported to whoever awaits it
  return { child, started };
}

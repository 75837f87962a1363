import { spawn } from 'node:child_process';
import { withTimeout } from './client.js';
import { proxyEnv, proxyMain } from './targets.js';

/** How long the CLI gets to listen, and to exit after SIGTERM. */
const CLI_WAIT_MS = 15_000;

/** How a CLI process ended. */
export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A CLI serving HTTP: its stderr so far, and `stop()` (SIGTERM, then its exit). */
export interface ServedHttpCli {
  stderr(): string;
  stop(): Promise<CliExit>;
}

/**
 * `mcp-chain serve <file> --http 127.0.0.1:<port>` (a real `node dist/cli/main.js`; build first),
 * in a minimal environment plus `env`, once it logs that it listens (bounded; killed if it does not).
 */
export async function serveHttpCli(file: string, port: number, env: Record<string, string> = {}): Promise<ServedHttpCli> {
  const child = spawn(process.execPath, [proxyMain, 'serve', file, '--http', `127.0.0.1:${port}`], {
    env: { PATH: process.env.PATH ?? '', ...proxyEnv(), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  const exited = new Promise<CliExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const listening = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (/"msg":"listening"/.test(text)) resolve();
    });
    void exited.then(() => reject(new Error(`the CLI exited before listening: ${text}`)));
  });
  const stop = async (): Promise<CliExit> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return withTimeout(exited, CLI_WAIT_MS, () => `the CLI to exit after SIGTERM: ${text}`);
  };
  try {
    await withTimeout(listening, CLI_WAIT_MS, () => `the CLI to listen: ${text}`);
    return { stderr: () => text, stop };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

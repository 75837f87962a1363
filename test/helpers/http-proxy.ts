// mcp-chain started as a process on its Streamable HTTP front (`--http`), for process-level tests.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { proxyEnv, proxyMain } from './targets.js';

export interface HttpProxy {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `mcp-chain <args>` (with --http) and waits for the URL it announces. */
export async function startHttpProxy(args: string[], env: Record<string, string> = {}): Promise<HttpProxy> {
  const child = spawn(process.execPath, [proxyMain, ...args], { env: { PATH: process.env.PATH ?? '', ...proxyEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A safety net, not a timing: a proxy that never says where it listens fails the test.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "listening" line within 30 s (is --log-level above info?): ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /^(?=.*"msg":"listening").*?"url":"([^"]+)"/m.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited early (${code}): ${stderr}`));
    });
  });
  return {
    child,
    url,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      assert.equal(stdout, '', 'nothing is written to stdout');
      return code;
    },
  };
}


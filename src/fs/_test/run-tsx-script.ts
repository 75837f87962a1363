// Test helper: runs a TypeScript script as another process would (node --import tsx), for the tests
// of files shared by processes.
import { spawn } from 'node:child_process';

/**
 * Runs `script` with `args` under `node --import tsx` (stdout ignored, stderr passed through);
 * resolves with its exit code, or rejects if it cannot be started. The caller's test timeout bounds it.
 */
export function runTsxScript(script: string, args: readonly string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', resolve);
  });
}

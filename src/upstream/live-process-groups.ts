import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let hooked = false;

/**
 * Remembers a child whose process group we own until it has exited. If our process exits first
 * (an error, a second signal, `process.exit`), every such group is killed with SIGKILL on the
 * way out, so no server outlives its chain.
 */
export function trackProcessGroup(child: ChildProcess): void {
  live.add(child);
  child.once('close', () => live.delete(child));
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const member of live) {
        if (member.pid === undefined) continue;
        try {
          process.kill(-member.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    });
  }
}

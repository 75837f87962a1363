import { readdirSync, readFileSync } from 'node:fs';

/** True while a process exists and is not a zombie (a zombie has exited; only its entry is left). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Resolves once the process is gone; rejects after `safetyMs` (a net, not a timing assertion). */
export async function processGone(pid: number, safetyMs = 15_000): Promise<void> {
  const deadline = Date.now() + safetyMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Pids of processes whose command line contains `needle`. */
export function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(needle) && processAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The parent pid of a process, or undefined once it is gone. */
export function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "<pid> (<comm>) <state> <ppid> ..." — comm may hold spaces and parentheses.
    const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    return ppid === undefined ? undefined : Number(ppid);
  } catch {
    return undefined;
  }
}

/** Pids of the live (non-zombie) children of `pid`. */
export function childrenOf(pid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && parentPid(Number(entry)) === pid && processAlive(Number(entry))) pids.push(Number(entry));
  }
  return pids;
}

import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Stops a child started with `detached: true` and everything in its process group (so servers
 * launched through `npx`, `uvx` or a shell die with their wrapper): waits `graceMs` for it to exit
 * on its own (stdin was closed), then SIGTERM to the group, then SIGKILL after another `graceMs`.
 */
export async function killProcessGroup(child: ChildProcess, exited: Promise<void>, graceMs: number): Promise<void> {
  if (!(await settlesWithin(exited, graceMs))) {
    killProcessGroup.now(child, 'SIGTERM');
    if (!(await settlesWithin(exited, graceMs))) {
      killProcessGroup.now(child, 'SIGKILL');
      await exited;
    }
  }
  // The leader is gone; give what is left of its group the same two steps.
  if (groupAlive(child)) {
    killProcessGroup.now(child, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (groupAlive(child) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    killProcessGroup.now(child, 'SIGKILL');
  }
}

/** Sends `signal` to the child's whole process group, ignoring a group that is already gone. */
killProcessGroup.now = function now(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
};

/** Whether any process of the group still runs (zombies, already dead, do not count). */
function groupAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
  } catch {
    return false;
  }
  return process.platform !== 'linux' || liveMembers(child.pid);
}

/** Linux: looks for a member of process group `pgid` that is not a zombie, in /proc. */
function liveMembers(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after "(comm)": state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
    } catch {
      // The process went away meanwhile.
    }
  }
  return false;
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

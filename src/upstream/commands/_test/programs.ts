// Test helpers for `commands`: the fixture programs, and the process table.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const programs = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/programs');

/** test/fixtures/programs/argv.mjs: prints its arguments as a JSON array. */
export const ARGV_PROGRAM = join(programs, 'argv.mjs');
/** test/fixtures/programs/behave.mjs: exits, hangs, writes, as its first argument says. */
export const BEHAVE_PROGRAM = join(programs, 'behave.mjs');

/** Live (not zombie) processes whose process group is `pgid`, from /proc. */
export function groupMembers(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Whether a process is alive (not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The `{ pid, child }` line a hanging or orphaning fixture printed first. */
export function pidsOf(stdout: string): { pid: number; child: number } {
  const line = stdout.split('\n')[0] ?? '';
  return JSON.parse(line) as { pid: number; child: number };
}

/**
 * The members of the process group of a fixture child of ours (its group is its pid) once it has
 * at least `size` members; polled through /proc, failing after `safetyMs` (a net, not a timing).
 */
export async function hangingGroup(size = 2, safetyMs = 10_000): Promise<number[]> {
  const deadline = Date.now() + safetyMs;
  for (;;) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[1]) !== process.pid || !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(BEHAVE_PROGRAM)) continue;
        const members = groupMembers(Number(entry));
        if (members.length >= size) return members;
      } catch {
        // Gone meanwhile.
      }
    }
    if (Date.now() > deadline) throw new Error(`no fixture child of ours with ${size} processes in its group`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Our children running a fixture program, from /proc. */
export function fixtureChildren(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z' && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(BEHAVE_PROGRAM)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { killProcessGroup } from '../kill-process-group.js';
import { trackProcessGroup } from '../live-process-groups.js';
import { CappedOutput } from './capped-output.js';

/** One run of a program. */
export interface RunCommandOptions {
  /** The program: looked up on `env.PATH` unless it contains a `/`. */
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string | undefined;
  /** Its whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Kept of stdout and of stderr each. */
  readonly maxOutputBytes: number;
  /** After SIGTERM, how long before SIGKILL. */
  readonly killGraceMs: number;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  readonly stdin?: string | undefined;
  /** Aborting it kills the process group, as a timeout does. */
  readonly signal?: AbortSignal | undefined;
}

/** How a run ended. */
export interface CommandOutcome {
  /** Null when it was killed by a signal or did not start. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Bytes written to each, kept or not. */
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** Why it did not start (a message naming the program; no environment values). */
  readonly spawnError?: string | undefined;
}

/**
 * Runs a program without a shell, in a process group of its own (`detached`), and resolves once it
 * and everything it started in its group are gone. At the deadline, or when `signal` aborts, the
 * group gets SIGTERM, then SIGKILL after `killGraceMs`; when the program exits by itself, what it
 * left running in its group is stopped the same way. Output beyond the cap is read and dropped.
 * Never rejects.
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandOutcome> {
  const stdout = new CappedOutput(options.maxOutputBytes);
  const stderr = new CappedOutput(options.maxOutputBytes);
  const outcome = (fields: Partial<CommandOutcome>): CommandOutcome => ({
    exitCode: null,
    signal: null,
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutBytes: stdout.totalBytes,
    stderrBytes: stderr.totalBytes,
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    timedOut: false,
    cancelled: false,
    ...fields,
  });
  if (options.signal?.aborted) return outcome({ cancelled: true });

  let child: ChildProcess;
  try {
    child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
      shell: false,
      windowsHide: true,
    });
  } catch (error) {
    return outcome({ spawnError: spawnErrorMessage(options, error) });
  }

  let spawnError: string | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      // Before 'spawn' it did not start; later errors (a failed kill) leave 'exit' to come.
      if (child.pid === undefined) {
        spawnError = spawnErrorMessage(options, error);
        resolve({ code: null, signal: null });
      }
    });
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  if (child.pid !== undefined) trackProcessGroup(child);
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  if (options.stdin !== undefined && child.stdin) {
    // A program that exits without reading its input closes the pipe under us: not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin);
  }

  const exit = exited.then(() => undefined);
  let timedOut = false;
  let cancelled = false;
  let stopping: Promise<void> | undefined;
  const stop = (): void => {
    if (stopping !== undefined || child.pid === undefined) return;
    killProcessGroup.now(child, 'SIGTERM');
    stopping = killProcessGroup(child, exit, options.killGraceMs);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = (): void => {
    cancelled = true;
    stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const { code, signal } = await exited;
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  if (child.pid !== undefined) {
    // What it left behind in its group goes too: SIGTERM, then SIGKILL after the grace.
    await (stopping ?? killProcessGroup(child, exit, options.killGraceMs));
    // Its pipes close once nothing holds them; a process that left the group may: do not wait forever.
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, options.killGraceMs).unref())]);
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  return outcome({ exitCode: code, signal, timedOut, cancelled, ...(spawnError === undefined ? {} : { spawnError }) });
}

/** "cannot run "foo": not found on PATH", and the like; never the environment. */
function spawnErrorMessage(options: RunCommandOptions, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const program = JSON.stringify(options.command);
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    if (options.cwd !== undefined && !isDirectory(options.cwd)) return `cannot run ${program}: its working directory ${options.cwd} does not exist`;
    return `cannot run ${program}: ${options.command.includes('/') ? 'no such file' : 'not found on PATH'}`;
  }
  if (code === 'EACCES') return `cannot run ${program}: permission denied`;
  return `cannot run ${program}: ${error instanceof Error ? error.message : String(error)}`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

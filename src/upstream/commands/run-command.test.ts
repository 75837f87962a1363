import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { defaultEnvironment } from '../default-environment.js';
import { alive, BEHAVE_PROGRAM, groupMembers, hangingGroup, pidsOf } from './_test/programs.js';
import { runCommand, type RunCommandOptions } from './run-command.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-run-command-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], options: Partial<RunCommandOptions> = {}): ReturnType<typeof runCommand> {
  return runCommand({
    command: process.execPath,
    args: [BEHAVE_PROGRAM, ...args],
    env: defaultEnvironment(),
    timeoutMs: 20_000,
    maxOutputBytes: 1 << 20,
    killGraceMs: 500,
    ...options,
  });
}

describe('runCommand', () => {
  test('exit code 0 with stdout and empty stderr', async () => {
    const outcome = await run(['exit', '0']);
    assert.deepEqual(
      { exitCode: outcome.exitCode, signal: outcome.signal, stdout: outcome.stdout, stderr: outcome.stderr, timedOut: outcome.timedOut },
      { exitCode: 0, signal: null, stdout: 'out', stderr: '', timedOut: false },
    );
  });

  test('a non-zero exit code and stderr', async () => {
    const outcome = await run(['exit', '3', 'bad things']);
    assert.equal(outcome.exitCode, 3);
    assert.equal(outcome.stderr, 'bad things');
  });

  test('a program not on PATH: a spawn error naming it', async () => {
    const outcome = await runCommand({ command: 'no-such-program-mcp-chain', args: [], env: defaultEnvironment(), timeoutMs: 1000, maxOutputBytes: 100, killGraceMs: 100 });
    assert.equal(outcome.spawnError, 'cannot run "no-such-program-mcp-chain": not found on PATH');
    assert.equal(outcome.exitCode, null);
  });

  test('a missing working directory is said to be missing, not the program', async () => {
    const outcome = await run(['cwd'], { cwd: join(dir, 'nope') });
    assert.equal(outcome.spawnError, `cannot run ${JSON.stringify(process.execPath)}: its working directory ${join(dir, 'nope')} does not exist`);
  });

  test('the working directory', async () => {
    assert.equal((await run(['cwd'], { cwd: dir })).stdout, realpathSync(dir));
  });

  test('the environment is exactly what it is given', async () => {
    const outcome = await run(['env', 'ONLY_THIS', 'HOME'], { env: { ONLY_THIS: 'yes' } });
    assert.deepEqual(JSON.parse(outcome.stdout), { ONLY_THIS: 'yes', HOME: null });
  });

  test('stdin is written and closed; without it stdin is empty', async () => {
    assert.equal((await run(['stdin'], { stdin: 'hello\nworld' })).stdout, 'hello\nworld');
    assert.equal((await run(['stdin'])).stdout, '');
  });

  test('output beyond the cap is counted and dropped, per stream, not inside a character', async () => {
    const outcome = await run(['bytes', '100000', 'é'], { maxOutputBytes: 1001 });
    assert.equal(outcome.exitCode, 0);
    assert.equal(outcome.stdout, 'é'.repeat(500));
    assert.equal(outcome.stdoutBytes, 100_000);
    assert.equal(outcome.stdoutTruncated, true);
    assert.equal(outcome.stderr, 'e'.repeat(1001));
    assert.equal(outcome.stderrTruncated, true);
  });

  test('at the timeout the process group is killed, grandchild included; the output so far is kept', async () => {
    const running = run(['hang'], { timeoutMs: 1500 });
    const members = await hangingGroup();
    const outcome = await running;
    assert.equal(outcome.timedOut, true);
    assert.equal(outcome.signal, 'SIGTERM');
    assert.deepEqual(members.filter(alive), []);
    assert.match(outcome.stdout, /^\{"pid":\d+,"child":\d+\}\n$/);
  });

  test('a program that ignores SIGTERM gets SIGKILL after the grace', async () => {
    const running = run(['hang', 'ignore-term'], { timeoutMs: 1500, killGraceMs: 200 });
    const members = await hangingGroup();
    const outcome = await running;
    assert.equal(outcome.timedOut, true);
    assert.equal(outcome.signal, 'SIGKILL');
    assert.deepEqual(members.filter(alive), []);
  });

  test('cancelling kills the process group', async () => {
    const controller = new AbortController();
    const running = run(['hang'], { signal: controller.signal });
    // Cancel once it runs with its grandchild: two members in the group of a child of ours.
    const members = await hangingGroup();
    controller.abort();
    const outcome = await running;
    assert.equal(outcome.cancelled, true);
    assert.equal(outcome.timedOut, false);
    assert.deepEqual(members.filter(alive), []);
  });

  test('an already aborted signal runs nothing', async () => {
    const outcome = await run(['exit', '0'], { signal: AbortSignal.abort() });
    assert.equal(outcome.cancelled, true);
    assert.equal(outcome.stdout, '');
  });

  test('what a program leaves running in its group when it exits is stopped too', async () => {
    const outcome = await run(['orphan']);
    assert.equal(outcome.exitCode, 0);
    const { pid, child } = pidsOf(outcome.stdout);
    assert.deepEqual(groupMembers(pid), []);
    assert.equal(alive(child), false);
  });
});

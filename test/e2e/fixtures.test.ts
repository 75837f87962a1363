// Smoke tests for the fault-injection fixture servers in test/fixtures/servers/, started
// directly (no proxy), so proxy tests built on them can trust their behaviour.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { withTimeout } from '../helpers/client.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, fixtureCommand, fixtureTarget } from '../helpers/targets.js';
import type { Connection } from '../helpers/targets.js';

const T = { timeout: 30_000 };
const EVENT_TIMEOUT = 20_000;

/** A promise resolved by the first call of the returned trigger. */
function signalOnce<V = void>(): { promise: Promise<V>; fire: (v: V) => void } {
  let fire!: (v: V) => void;
  const promise = new Promise<V>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

/** Whether `pid` is a live (non-zombie) process. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // "<pid> (<comm>) <state> ..." — a zombie (Z) has exited but is not yet reaped.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no procfs: trust kill(0)
  }
}

/** Wait (polling, bounded) until a process that is not our child is gone. */
async function waitGone(pid: number, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('fixture: crashy (direct)', () => {
  let dir: string;
  let stateFile: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-chain-crashy-'));
    stateFile = join(dir, 'starts');
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('echo answers with its text and the start count; crash fails the pending call; a restart counts 2', T, async () => {
    const first = await connectClient(fixtureTarget('crashy', { CRASHY_STATE_FILE: stateFile }));
    try {
      const echo = await callTool(first.client, { name: 'echo', arguments: { text: 'hi' } });
      assert.deepEqual(echo.content, [
        { type: 'text', text: 'hi' },
        { type: 'text', text: 'start=1' },
        { type: 'text', text: `pid=${first.pid}` },
      ]);

      const closed = signalOnce();
      first.client.onclose = () => closed.fire();
      await assert.rejects(callTool(first.client, { name: 'crash', arguments: {} }), (e: unknown) => {
        assert.ok(e instanceof McpError, String(e));
        assert.equal(e.code, ErrorCode.ConnectionClosed);
        return true;
      });
      assert.deepEqual(await first.exited, { exitCode: 3, signal: null });
      await withTimeout(closed.promise, EVENT_TIMEOUT, () => 'client onclose after crash');
      assert.match(first.stderrTail(), /crashy: crashing in 0 ms/);
    } finally {
      await first.close();
    }

    const second = await connectClient(fixtureTarget('crashy', { CRASHY_STATE_FILE: stateFile }));
    try {
      const echo = await callTool(second.client, { name: 'echo', arguments: { text: 'again' } });
      assert.equal(textOf(echo), `again\nstart=2\npid=${second.pid}`);
    } finally {
      assert.equal((await second.close()).escalation, 'none');
    }
    assert.equal(readFileSync(stateFile, 'utf8').trim().split('\n').length, 2);
  });

  it('without CRASHY_STATE_FILE the start count is 1', T, async () => {
    const conn = await connectClient(fixtureTarget('crashy'));
    try {
      const echo = await callTool(conn.client, { name: 'echo', arguments: { text: 'x' } });
      assert.equal(textOf(echo), `x\nstart=1\npid=${conn.pid}`);
    } finally {
      await conn.close();
    }
  });
});

describe('fixture: hang (direct)', () => {
  let conn: Connection;
  before(async () => {
    conn = await connectClient(fixtureTarget('hang'));
  });
  after(async () => {
    await conn?.close();
  });

  it('echo answers', T, async () => {
    const result = await callTool(conn.client, { name: 'echo', arguments: { text: 'pong' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'pong' }]);
  });

  it('hang never answers; aborting sends notifications/cancelled, logged as "cancelled <id>"', T, async () => {
    const controller = new AbortController();
    const call = callTool(conn.client, { name: 'hang', arguments: {} }, { signal: controller.signal });
    call.catch(() => undefined);
    const [, id] = await conn.waitForStderr(/^request tools\/call (\S+) hang$/, EVENT_TIMEOUT);
    controller.abort(new Error('stop hanging'));
    await assert.rejects(call, /stop hanging/);
    await conn.waitForStderr(new RegExp(`^cancelled ${id}$`), EVENT_TIMEOUT);
    const after = await callTool(conn.client, { name: 'echo', arguments: { text: 'after hang' } });
    assert.equal(textOf(after), 'after hang');
  });

  it('slow-progress streams progress until cancelled', T, async () => {
    const controller = new AbortController();
    const progress: Progress[] = [];
    const third = signalOnce();
    const call = callTool(
      conn.client,
      { name: 'slow-progress', arguments: {} },
      {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p);
          if (progress.length === 3) third.fire();
        },
      },
    );
    call.catch(() => undefined);
    await withTimeout(third.promise, EVENT_TIMEOUT, () => 'three progress notifications');
    const [, id] = await conn.waitForStderr(/^request tools\/call (\S+) slow-progress$/, EVENT_TIMEOUT);
    controller.abort(new Error('enough progress'));
    await assert.rejects(call, /enough progress/);
    assert.deepEqual(
      progress.slice(0, 3).map((p) => p.progress),
      [1, 2, 3],
    );
    await conn.waitForStderr(new RegExp(`^cancelled ${id}$`), EVENT_TIMEOUT);
    await conn.waitForStderr(new RegExp(`^progress stopped ${id}$`), EVENT_TIMEOUT);
    assert.equal(textOf(await callTool(conn.client, { name: 'echo', arguments: { text: 'ok' } })), 'ok');
  });

  it('HANG_IGNORE_EOF + HANG_IGNORE_SIGTERM: close() escalates to SIGKILL and the process is gone', T, async () => {
    const stubborn = await connectClient(fixtureTarget('hang', { HANG_IGNORE_EOF: '1', HANG_IGNORE_SIGTERM: '1' }), {
      closeGraceMs: 300,
      killGraceMs: 300,
    });
    assert.equal(textOf(await callTool(stubborn.client, { name: 'echo', arguments: { text: 'hi' } })), 'hi');
    const report = await stubborn.close();
    assert.deepEqual(report, { exitCode: null, signal: 'SIGKILL', escalation: 'SIGKILL' });
    assert.match(stubborn.stderrTail(), /ignoring SIGTERM/);
    assert.equal(processAlive(stubborn.pid), false);
  });
});

describe('fixture: noisy (direct)', () => {
  it('the SDK client skips the garbage lines; echo works; stderr flood is drained', T, async () => {
    const conn = await connectClient(fixtureTarget('noisy'));
    try {
      assert.equal(conn.client.getServerVersion()?.name, 'noisy');
      const { tools } = await conn.client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['echo'],
      );
      for (const text of ['one', 'two', 'three']) {
        const result = await callTool(conn.client, { name: 'echo', arguments: { text } });
        assert.deepEqual(result.content, [{ type: 'text', text }]);
      }
      assert.deepEqual(await conn.client.ping(), {});
      // the SDK reports each unparsable stdout line through onerror and carries on
      assert.ok(conn.errors.length >= 3, `expected parse errors, got ${conn.errors.length}`);
    } finally {
      assert.equal((await conn.close()).escalation, 'none');
    }
    // startup flood + one per call (3), ~1 MiB each; stderr is a separate pipe, so count
    // only once the process is gone and the pipe drained.
    assert.ok(conn.stderrBytes() >= 4 * 1024 * 1024, `stderr bytes ${conn.stderrBytes()}`);
  });

  it('raw stdout really interleaves non-JSON-RPC lines with the responses', T, async () => {
    const { command, args } = fixtureCommand('noisy');
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const lines: string[] = [];
      const gotResponse = signalOnce();
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (line.startsWith('{"jsonrpc":"2.0","id":1,"result"')) gotResponse.fire();
      });
      child.stdin.write(
        `${JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        })}\n`,
      );
      await withTimeout(gotResponse.promise, EVENT_TIMEOUT, () => `initialize response; lines: ${lines.join(' | ')}`);
      assert.equal(lines[0], '*** noisy MCP server v1.0.0 starting ***');
      const responseIndex = lines.findIndex((l) => l.startsWith('{"jsonrpc":"2.0","id":1,'));
      assert.ok(responseIndex >= 3, `garbage precedes the response: ${lines.join(' | ')}`);
      const parsed: unknown = JSON.parse(lines[responseIndex] ?? '');
      assert.deepEqual(parsed, {
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'noisy', version: '1.0.0' },
        },
      });
      child.stdin.end();
      assert.equal(await withTimeout(exited, EVENT_TIMEOUT, () => 'noisy exit on EOF'), 0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }
  });
});

describe('fixture: spawner (direct)', () => {
  it('reports its grandchild on stderr, echoes, and leaves the grandchild behind when it exits', T, async () => {
    const conn = await connectClient(fixtureTarget('spawner'));
    let grandchild: number | undefined;
    try {
      const [, pidText] = await conn.waitForStderr(/^grandchild (\d+)$/, EVENT_TIMEOUT);
      grandchild = Number(pidText);
      assert.ok(Number.isInteger(grandchild) && grandchild > 0);
      assert.ok(processAlive(grandchild), 'grandchild running');
      assert.equal(textOf(await callTool(conn.client, { name: 'echo', arguments: { text: 'hey' } })), 'hey');
      assert.equal(textOf(await callTool(conn.client, { name: 'grandchild', arguments: {} })), String(grandchild));
      const report = await conn.close();
      assert.equal(report.escalation, 'none');
      // Started directly, nobody kills the process group: the grandchild survives.
      assert.ok(processAlive(grandchild), 'grandchild outlives the spawner');
    } finally {
      await conn.close();
      if (grandchild !== undefined && processAlive(grandchild)) {
        process.kill(grandchild, 'SIGKILL');
        assert.ok(await waitGone(grandchild), `grandchild ${grandchild} still alive`);
      }
    }
  });
});

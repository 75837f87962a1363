import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import { harness } from '../../src/testing/harness.js';
import { stdio, type StdioOptions } from '../../src/upstream/stdio.js';
import { everythingEntry, fixtureCommand } from '../helpers/targets.js';
import { CaptureLogger } from './_capture-logger.js';
import { processAlive, processGone } from './_process.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-stdio-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function fixture(name: string, extra: Partial<StdioOptions> = {}): StdioOptions {
  return { ...fixtureCommand(name), name, restart: { initialDelayMs: 10 }, shutdownGraceMs: 500, ...extra };
}

function texts(result: Record<string, unknown>): string[] {
  return (result.content as Array<{ text: string }>).map((c) => c.text);
}

describe('stdio upstream: a server that crashes mid-call', () => {
  test('the call in flight fails at once with -32000 naming the exit code, and the next call restarts the server', async () => {
    const state = join(dir, 'crashy-state');
    const log = new CaptureLogger();
    const h = await harness(chain().to(stdio(fixture('crashy', { env: { CRASHY_STATE_FILE: state } }))), { log });
    assert.ok(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'one' } })).includes('start=1'));

    const crashed = await h.call('tools/call', { name: 'crash', arguments: {} });
    assert.deepEqual(crashed.error, { code: -32000, message: 'Upstream crashy exited (code 3) before answering' });

    const after = texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'two' } }));
    assert.deepEqual(after.slice(0, 2), ['two', 'start=2']);
    assert.equal(readFileSync(state, 'utf8').trim().split('\n').length, 2);
    assert.ok(log.lines.some((l) => l.message === 'upstream exited (code 3)'));
    // The restarted server was re-initialized with the client's own parameters.
    assert.ok(log.lines.some((l) => l.message === 'restarting upstream'));
    await h.close();
  });
});

describe('stdio upstream: a server that hangs', () => {
  test('a timed-out call gets -32001 and the server receives notifications/cancelled for it', async () => {
    const log = new CaptureLogger();
    const h = await harness(chain().to(stdio(fixture('hang'))), { log, timeouts: { tools: { hang: 300 } } });
    const reply = await h.call('tools/call', { name: 'hang', arguments: {} });
    assert.equal((reply.error as { code: number }).code, -32001);
    const request = await log.waitFor(/^request tools\/call \S+ hang$/);
    const upstreamId = request.message.split(' ')[2];
    await log.waitFor(new RegExp(`^cancelled ${upstreamId}$`));
    assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'alive' } })), ['alive']);
    await h.close();
  });

  test('a client cancel reaches the server under the id the server knows, and progress stops', async () => {
    const log = new CaptureLogger();
    const h = await harness(chain().to(stdio(fixture('hang'))), { log });
    const firstProgress = h.notification('notifications/progress');
    h.send({ jsonrpc: '2.0', id: 'mine', method: 'tools/call', params: { name: 'slow-progress', arguments: {}, _meta: { progressToken: 'p-1' } } });
    assert.equal(((await firstProgress).params as { progressToken: string }).progressToken, 'p-1');
    h.notify('notifications/cancelled', { requestId: 'mine' });
    const stopped = await log.waitFor(/^progress stopped /);
    const upstreamId = stopped.message.split(' ')[2];
    assert.notEqual(upstreamId, 'mine');
    await log.waitFor(new RegExp(`^cancelled ${upstreamId}$`));
    assert.ok('result' in (await h.call('tools/list')));
    assert.ok(!h.received.some((m) => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === 'mine'));
    await h.close();
  });
});

describe('stdio upstream: a noisy server', () => {
  test('garbage on its stdout is logged and dropped, its stderr flood is relayed, and calls still work', async () => {
    const log = new CaptureLogger();
    const h = await harness(chain().to(stdio(fixture('noisy'))), { log });
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(texts(await h.request('tools/call', { name: 'echo', arguments: { text: `n${i}` } })), [`n${i}`]);
    }
    assert.ok(log.lines.some((l) => l.message === 'dropped a line that is not JSON-RPC'));
    assert.ok(log.lines.filter((l) => l.fields.stream === 'stderr').length > 1000);
    assert.ok(log.lines.every((l) => l.fields.stream !== 'stderr' || l.fields.upstream === 'noisy'));
    await h.close();
  });
});

describe('stdio upstream: shutdown', () => {
  test('closing the session kills the whole process group, grandchildren included', async () => {
    const log = new CaptureLogger();
    const h = await harness(chain().to(stdio(fixture('spawner'))), { log });
    const grandchild = Number(texts(await h.request('tools/call', { name: 'grandchild', arguments: {} }))[0]);
    assert.ok(processAlive(grandchild));
    await h.close();
    await processGone(grandchild);
  });

  test('a server that ignores stdin EOF and SIGTERM is killed with SIGKILL', async () => {
    const log = new CaptureLogger();
    const h = await harness(chain().to(stdio(fixture('hang', { env: { HANG_IGNORE_EOF: '1', HANG_IGNORE_SIGTERM: '1' }, shutdownGraceMs: 200 }))), { log });
    const ready = await log.waitFor(/^hang: ready pid=\d+$/);
    const pid = Number(ready.message.split('pid=')[1]);
    await h.close();
    assert.equal(processAlive(pid), false);
    assert.ok(log.lines.some((l) => l.message === 'ignoring SIGTERM'));
  });

  test('a command that does not exist gives the client a clear -32000 error', async () => {
    const h = await harness(chain().to(stdio({ command: '/nonexistent/mcp-server' })), { initialize: false });
    const reply = await h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    assert.equal((reply.error as { code: number }).code, -32000);
    assert.match((reply.error as { message: string }).message, /could not start: spawn \/nonexistent\/mcp-server ENOENT/);
    await h.close();
  });
});

describe('stdio upstream: flow control', () => {
  test('a server that stops reading its stdin holds the client back, and everything is answered once it reads again', { timeout: 30_000 }, async () => {
    const log = new CaptureLogger();
    const h = await harness(chain().to(stdio(fixture('deaf'))), { log });
    const pid = Number(texts(await h.request('tools/call', { name: 'stop-reading', arguments: {} }))[0]);
    await log.waitFor(/^deaf: not reading$/);
    const text = 'x'.repeat(256 * 1024);
    const held = h.flowChange();
    const answers = Array.from({ length: 64 }, (_, i) => h.call('tools/call', { name: 'echo', arguments: { text: `${i}:${text}` } }));
    assert.equal(await held, 'paused');
    assert.equal(h.heldBack, true);
    const released = h.flowChange();
    process.kill(pid, 'SIGUSR2');
    assert.equal(await released, 'resumed');
    const replies = await Promise.all(answers);
    replies.forEach((reply, i) => {
      assert.equal(((reply.result as { content: Array<{ text: string }> }).content[0]?.text ?? '').slice(0, String(i).length + 1), `${i}:`);
    });
    assert.equal(h.heldBack, false);
    await h.close();
  });
});

describe('stdio upstream: a restarted server gets the session back', () => {
  test('the log level and the resource subscriptions (not the unsubscribed ones) are set again after a crash', async () => {
    const log = new CaptureLogger();
    const state = join(dir, 'crashy-replay-state');
    const h = await harness(chain().to(stdio(fixture('crashy', { env: { CRASHY_STATE_FILE: state } }))), { log });
    await h.request('logging/setLevel', { level: 'debug' });
    await h.request('resources/subscribe', { uri: 'test://kept' });
    await h.request('resources/subscribe', { uri: 'test://dropped' });
    await h.request('resources/unsubscribe', { uri: 'test://dropped' });
    assert.equal(((await h.call('tools/call', { name: 'crash', arguments: {} })).error as { code: number }).code, -32000);
    assert.ok(texts(await h.request('tools/call', { name: 'echo', arguments: { text: 'back' } })).includes('start=2'));
    await log.waitFor(/^start=2 setLevel debug$/);
    await log.waitFor(/^start=2 subscribe test:\/\/kept$/);
    assert.ok(!log.lines.some((l) => l.message === 'start=2 subscribe test://dropped'));
    await h.close();
  });
});

describe('stdio upstream: requests during a restart', () => {
  test('a request that arrives while the restarted server is being re-initialized waits for it', async () => {
    const log = new CaptureLogger();
    const state = join(dir, 'crashy-slow-init-state');
    const h = await harness(chain().to(stdio(fixture('crashy', { env: { CRASHY_STATE_FILE: state, CRASHY_SLOW_INIT_MS: '300' } }))), { log });
    assert.equal(((await h.call('tools/call', { name: 'crash', arguments: {} })).error as { code: number }).code, -32000);
    // The first call restarts the server; the replayed initialize is held back by the server...
    const first = h.request('tools/call', { name: 'echo', arguments: { text: 'first' } });
    await log.waitFor(/^start=2 got initialize$/);
    // ...and a call made meanwhile must not overtake it.
    const second = h.request('tools/call', { name: 'echo', arguments: { text: 'second' } });
    assert.ok(texts(await first).includes('start=2'));
    assert.ok(texts(await second).includes('start=2'));
    const received = log.lines.map((l) => l.message).filter((m) => m.startsWith('start=2 got '));
    assert.deepEqual(received.slice(0, 2), ['start=2 got initialize', 'start=2 got notifications/initialized'], received.join('\n'));
    await h.close();
  });
});

describe('stdio upstream: environment', () => {
  async function serverEnv(options: Partial<StdioOptions>): Promise<Record<string, string>> {
    const h = await harness(chain().to(stdio({ command: process.execPath, args: [everythingEntry(), 'stdio'], name: 'everything', ...options })), {
      log: new CaptureLogger(),
    });
    const env = JSON.parse(texts(await h.request('tools/call', { name: 'get-env', arguments: {} }))[0] ?? '{}') as Record<string, string>;
    await h.close();
    return env;
  }

  test('a server gets a safe minimum plus what is configured, never our other variables (secrets)', async () => {
    process.env.MCP_CHAIN_SECRET_PROBE = 'must-not-leak';
    try {
      const env = await serverEnv({ env: { CONFIGURED: 'yes' } });
      assert.equal(env.CONFIGURED, 'yes');
      assert.equal(env.PATH, process.env.PATH);
      assert.equal(env.MCP_CHAIN_SECRET_PROBE, undefined);
      const inherited = await serverEnv({ inheritEnv: true });
      assert.equal(inherited.MCP_CHAIN_SECRET_PROBE, 'must-not-leak');
    } finally {
      delete process.env.MCP_CHAIN_SECRET_PROBE;
    }
  });
});

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { Middleware } from '../../chain/middleware.js';
import { captureLogger } from '../../config/_test/config-files.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { audit, type AuditRecord } from './index.js';

const server = local({
  tools: [
    { name: 'gh__search', handler: (args) => ({ content: [{ type: 'text', text: `found ${String(args.q)}` }] }) },
    { name: 'gh__fail', handler: () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }) },
    { name: 'plain', handler: () => ({ content: [] }) },
    {
      name: 'gh__wait',
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
    },
  ],
});

const EMAIL = 'alice@example.com';
const START = Date.parse('2026-01-01T00:00:00.000Z');

async function recordsOf(file: string): Promise<AuditRecord[]> {
  const text = await readFile(file, 'utf8');
  return text.trimEnd().split('\n').map((line) => JSON.parse(line) as AuditRecord);
}

/** The records without the duration (checked to be a number). */
function stable(records: readonly AuditRecord[]): Omit<AuditRecord, 'durationMs'>[] {
  return records.map(({ durationMs, ...rest }) => {
    assert.equal(typeof durationMs, 'number');
    return rest;
  });
}

describe('audit', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-chain-audit-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('one record per tools/call: time, session, identity, server, tool, redacted arguments, outcome, error', async () => {
    const file = join(dir, 'fields.jsonl');
    const mw = audit({ file, now: () => START, logger: silentLogger });
    const h = await harness(chain().use(mw).to(server), { identity: { id: 'alice', method: 'bearer' } });
    await h.request('tools/call', { name: 'gh__search', arguments: { q: `mail ${EMAIL}`, n: 3 } });
    await h.request('tools/call', { name: 'gh__fail' });
    await h.request('tools/call', { name: 'plain' });
    await h.call('tools/call', { name: 'nope' });
    await h.request('tools/list');
    await h.close();
    await mw.close();

    const session = h.session.info.id;
    const base = { time: '2026-01-01T00:00:00.000Z', session, identity: { id: 'alice', method: 'bearer' }, method: 'tools/call' };
    assert.deepEqual(stable(await recordsOf(file)), [
      { ...base, server: 'gh', tool: 'gh__search', arguments: { q: 'mail [REDACTED:email]', n: 3 }, outcome: 'ok' },
      { ...base, server: 'gh', tool: 'gh__fail', outcome: 'isError' },
      { ...base, tool: 'plain', outcome: 'ok' },
      { ...base, tool: 'nope', outcome: 'error', error: { code: -32602, message: 'Unknown tool: nope' } },
    ]);
  });

  test('a cancelled call is "cancelled"; a timeout is an error -32001', async () => {
    const file = join(dir, 'cancel.jsonl');
    const mw = audit({ file, logger: silentLogger });
    const h = await harness(chain().use(mw).to(server), { timeouts: { tools: { gh__wait: 50 } } });
    const cancelled = h.call('tools/call', { name: 'gh__wait' }, 'slow-1');
    h.notify('notifications/cancelled', { requestId: 'slow-1', reason: 'user pressed stop' });
    const timedOut = await h.call('tools/call', { name: 'gh__wait' });
    assert.equal((timedOut.error as { code: number }).code, -32001);
    void cancelled.catch(() => undefined);
    await h.close();
    await mw.close();
    const records = await recordsOf(file);
    assert.deepEqual(
      records.map((record) => [record.outcome, record.error?.code]),
      [
        ['cancelled', undefined],
        ['error', -32001],
      ],
    );
    assert.equal(records[0]?.identity, undefined);
  });

  test('redact: false records arguments as sent; a redactor\'s options pick the detectors; a separator of your own', async () => {
    const raw = join(dir, 'raw.jsonl');
    const custom = join(dir, 'custom.jsonl');
    const rawMw = audit({ file: raw, redact: false, logger: silentLogger });
    const customMw = audit({ file: custom, redact: { detectors: [], custom: [{ name: 'ticket', pattern: 'T-\\d+' }] }, separator: '_', logger: silentLogger });
    const h = await harness(chain().use(rawMw, customMw).to(server));
    await h.request('tools/call', { name: 'gh__search', arguments: { q: `${EMAIL} T-42` } });
    await h.close();
    await chain().use(rawMw, customMw).close();
    assert.deepEqual((await recordsOf(raw))[0]?.arguments, { q: `${EMAIL} T-42` });
    const [record] = await recordsOf(custom);
    assert.deepEqual(record?.arguments, { q: `${EMAIL} [REDACTED:ticket]` });
    assert.equal(record?.server, 'gh');
  });

  test("scope 'requests' records every request from the client but initialize", async () => {
    const file = join(dir, 'requests.jsonl');
    const mw = audit({ file, scope: 'requests', logger: silentLogger });
    const h = await harness(chain().use(mw).to(server));
    await h.request('tools/list');
    await h.request('tools/call', { name: 'plain' });
    await h.close();
    await mw.close();
    assert.deepEqual(
      (await recordsOf(file)).map((record) => record.method),
      ['tools/list', 'tools/call'],
    );
  });

  test('middleware behind it adds fields through ctx.state.auditExtra; the record\'s own fields win', async () => {
    const file = join(dir, 'extra.jsonl');
    const mw = audit({ file, logger: silentLogger });
    const decide: Middleware = (ctx, next) => {
      ctx.state.auditExtra = { ...ctx.state.auditExtra, decision: 'approved', approver: EMAIL, outcome: 'forged' };
      return next();
    };
    const h = await harness(chain().use(mw, decide).to(server));
    await h.request('tools/call', { name: 'plain' });
    await h.close();
    await mw.close();
    const [record] = await recordsOf(file);
    assert.equal(record?.decision, 'approved');
    assert.equal(record?.approver, '[REDACTED:email]');
    assert.equal(record?.outcome, 'ok');
  });

  test('10 000 calls through the harness: not one record lost, each in the file after close()', async () => {
    const file = join(dir, 'load.jsonl');
    const mw = audit({ file, logger: silentLogger });
    const h = await harness(chain().use(mw).to(server));
    const total = 10_000;
    for (let start = 0; start < total; start += 1000) {
      await Promise.all(Array.from({ length: 1000 }, (_, i) => h.request('tools/call', { name: 'gh__search', arguments: { q: String(start + i) } })));
    }
    await h.close();
    await mw.close();
    const records = await recordsOf(file);
    assert.equal(records.length, total);
    assert.equal(records.filter((record) => 'dropped' in record).length, 0);
    assert.equal(new Set(records.map((record) => (record.arguments as { q: string }).q)).size, total);
  });

  test('close() flushes what waits for a slow disk; the chain\'s close() calls it', async () => {
    const written: string[] = [];
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const mw = audit({
      file: join(dir, 'unused.jsonl'),
      logger: silentLogger,
      append: async (_file, text) => {
        await slow;
        written.push(text);
      },
    });
    const gateway = chain().use(mw).to(server);
    const h = await harness(gateway);
    for (let n = 0; n < 5; n++) await h.request('tools/call', { name: 'plain' });
    await h.close();
    assert.equal(written.length, 0);
    const closed = gateway.close();
    release();
    await closed;
    assert.equal(written.join('').trimEnd().split('\n').length, 5);
  });

  test('a stalled disk never holds up a call: records past maxQueue are dropped and the count recorded when it catches up', async () => {
    const written: string[] = [];
    let release: () => void = () => undefined;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    const logger = captureLogger();
    const mw = audit({
      file: join(dir, 'unused.jsonl'),
      maxQueue: 3,
      flushIntervalMs: 0, // the first record goes to the (stalled) disk at once
      now: () => START,
      logger,
      append: async (_file, text) => {
        await stalled;
        written.push(text);
      },
    });
    const h = await harness(chain().use(mw).to(server));
    // Every call is answered while the disk is stalled: 1 held by the writer, 3 queued, 6 dropped.
    for (let n = 0; n < 10; n++) await h.request('tools/call', { name: 'plain' });
    await h.close();
    assert.equal(logger.lines.length, 1);
    assert.match(logger.lines[0]?.message ?? '', /^audit: 1 record\(s\) dropped/);
    release();
    await mw.close();
    const lines = written.join('').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(lines.length, 5);
    assert.deepEqual(lines[1], { time: '2026-01-01T00:00:00.000Z', dropped: 6 });
    assert.equal(lines.filter((line) => line.outcome === 'ok').length, 4);
    assert.match(logger.lines[1]?.message ?? '', /^audit: 5 record\(s\) dropped/);
  });

  test('rotation settings reach the file: maxBytes rotates', async () => {
    const sub = await mkdtemp(join(dir, 'rotate-'));
    const file = join(sub, 'a.jsonl');
    const mw = audit({ file, maxBytes: 10, keep: 100, logger: silentLogger });
    const h = await harness(chain().use(mw).to(server));
    for (let n = 0; n < 3; n++) await h.request('tools/call', { name: 'plain' });
    await h.close();
    await mw.close();
    assert.equal((await readdir(sub)).length, 3);
  });
});

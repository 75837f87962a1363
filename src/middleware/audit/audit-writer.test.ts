import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { captureLogger } from '../../config/_test/config-files.js';
import { silentLogger } from '../../log/stderr-logger.js';
import { AuditWriter } from './audit-writer.js';

/** A clock the test moves. */
function clock(start = Date.parse('2026-01-01T00:00:00.000Z')): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** An append that waits until the test releases it; what it appends is kept in memory. */
function stalledDisk(): { append: (file: string, text: string) => Promise<void>; release(): void; text(): string; started: Promise<void> } {
  let text = '';
  let release: () => void = () => undefined;
  let started: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const first = new Promise<void>((resolve) => (started = resolve));
  return {
    append: async (_file, chunk) => {
      started();
      await gate;
      text += chunk;
    },
    release: () => release(),
    text: () => text,
    started: first,
  };
}

describe('AuditWriter', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-chain-audit-writer-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('rotates before a line would take the file past maxBytes; rotated files carry a time stamp', async () => {
    const file = join(dir, 'size.jsonl');
    const time = clock();
    const writer = new AuditWriter({ file, maxBytes: 25, logger: silentLogger, now: time.now });
    for (const n of [1, 2, 3, 4, 5]) {
      writer.push(JSON.stringify({ n, pad: 'xxxxxx' })); // 20 bytes with its newline
      time.advance(1000);
    }
    await writer.flush();
    const names = (await readdir(dir)).filter((name) => name.startsWith('size.jsonl')).sort();
    assert.equal(names.length, 5);
    for (const name of names.filter((name) => name !== 'size.jsonl')) assert.match(name, /^size\.jsonl\.2026-01-01T00-00-0\d\.000Z(\.\d+)?$/);
    const all = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')));
    for (const text of all) assert.equal(text.trimEnd().split('\n').length, 1);
    const numbers = all.map((text) => (JSON.parse(text) as { n: number }).n).sort();
    assert.deepEqual(numbers, [1, 2, 3, 4, 5]);
    assert.equal(JSON.parse(await readFile(file, 'utf8')).n, 5);
    await writer.close();
  });

  test('rotates once the file is maxAgeMs old, and keeps at most `keep` rotated files', async () => {
    const file = join(dir, 'age.jsonl');
    const time = clock();
    const writer = new AuditWriter({ file, maxAgeMs: 60_000, keep: 2, logger: silentLogger, now: time.now });
    writer.push('{"n":1}');
    writer.push('{"n":2}');
    await writer.flush();
    time.advance(59_999);
    writer.push('{"n":3}');
    await writer.flush();
    assert.deepEqual((await readdir(dir)).filter((name) => name.startsWith('age.')), ['age.jsonl']);

    for (const n of [4, 5, 6]) {
      time.advance(60_000);
      writer.push(`{"n":${n}}`);
      await writer.flush();
    }
    const rotated = (await readdir(dir)).filter((name) => name.startsWith('age.jsonl.')).sort();
    assert.deepEqual(rotated, ['age.jsonl.2026-01-01T00-02-59.999Z', 'age.jsonl.2026-01-01T00-03-59.999Z']);
    assert.equal(await readFile(join(dir, rotated[0] ?? ''), 'utf8'), '{"n":4}\n');
    assert.equal(await readFile(join(dir, rotated[1] ?? ''), 'utf8'), '{"n":5}\n');
    assert.equal(await readFile(file, 'utf8'), '{"n":6}\n');
    await writer.close();
  });

  test('keeps appending to the file it holds open; once the path names another file (moved away by logrotate, deleted), the next batch after a second goes to the path', async () => {
    const file = join(dir, 'moved.jsonl');
    const time = clock();
    const writer = new AuditWriter({ file, logger: silentLogger, now: time.now });
    writer.push('{"n":1}');
    await writer.flush();
    await rename(file, `${file}.1`);
    writer.push('{"n":2}'); // within the second: still the open file, now named .1
    await writer.flush();
    time.advance(1000);
    writer.push('{"n":3}');
    await writer.flush();
    assert.equal(await readFile(`${file}.1`, 'utf8'), '{"n":1}\n{"n":2}\n');
    assert.equal(await readFile(file, 'utf8'), '{"n":3}\n');
    await unlink(file);
    time.advance(1000);
    writer.push('{"n":4}');
    await writer.close();
    assert.equal(await readFile(file, 'utf8'), '{"n":4}\n');
  });

  test('records pushed within flushIntervalMs share one write; flush() writes at once without waiting for the interval', async () => {
    const writes: string[] = [];
    const writer = new AuditWriter({
      file: join(dir, 'batched.jsonl'),
      flushIntervalMs: 60_000, // only flush() can start the write within this test
      logger: silentLogger,
      append: async (_file, text) => void writes.push(text),
    });
    for (let n = 0; n < 100; n++) writer.push(`{"n":${n}}`);
    await Promise.resolve();
    assert.equal(writes.length, 0, 'nothing is written before the interval ends');
    await writer.flush();
    assert.equal(writes.length, 1);
    assert.equal(writes[0]?.split('\n').length, 101);
    await writer.close();
  });

  test('a stalled disk: past maxQueue records are dropped, counted, reported once, and written as {"dropped":N} when it catches up', async () => {
    const disk = stalledDisk();
    const logger = captureLogger();
    const time = clock();
    const writer = new AuditWriter({ file: join(dir, 'never.jsonl'), maxQueue: 5, dropReportMs: 10_000, logger, now: time.now, append: disk.append });
    writer.push('{"n":0}');
    await disk.started; // the writer holds record 0 and waits for the disk
    for (let n = 1; n <= 9; n++) writer.push(`{"n":${n}}`); // 1..5 queued, 6..9 dropped
    assert.equal(writer.dropped, 4);
    assert.deepEqual(
      logger.lines.map((line) => line.message),
      ['audit: 1 record(s) dropped: the queue is full (is the disk stalled?)'],
    );
    disk.release();
    await writer.flush();
    const lines = disk.text().trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(lines, [
      { n: 0 },
      { time: '2026-01-01T00:00:00.000Z', dropped: 4 },
      { n: 1 },
      { n: 2 },
      { n: 3 },
      { n: 4 },
      { n: 5 },
    ]);
    // The three not yet reported are reported on flush.
    assert.equal(logger.lines.length, 2);
    assert.match(logger.lines[1]?.message ?? '', /^audit: 3 record\(s\) dropped/);
    assert.equal(writer.dropped, 0);
    await writer.close();
  });

  test('a file that cannot be written: records are counted as dropped, reported, and the writer does not spin', async () => {
    const logger = captureLogger();
    const writer = new AuditWriter({ file: join(dir, 'no-such-dir', 'x.jsonl'), logger });
    writer.push('{"n":1}');
    writer.push('{"n":2}');
    await writer.flush();
    assert.ok(writer.dropped >= 2);
    assert.ok(logger.lines.some((line) => line.message.startsWith('audit: cannot write')));
    await writer.close();
  });
});

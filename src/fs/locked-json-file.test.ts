import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CorruptContentError, LockedJsonFile, LockedJsonFileError } from './locked-json-file.js';
import { runTsxScript } from './_test/run-tsx-script.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-locked-json-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = (): string => join(dir, `d${++files}`, 'data.json');

interface Data {
  keys: Record<string, number>;
}

function parse(value: unknown): Data {
  if (typeof value !== 'object' || value === null || typeof (value as { keys?: unknown }).keys !== 'object') throw new CorruptContentError('expected { "keys": { … } }');
  return value as Data;
}

const open = (file: string, options: { lockTimeoutMs?: number; error?: (message: string) => Error } = {}): LockedJsonFile<Data> =>
  new LockedJsonFile<Data>(file, { label: 'test file', parse, empty: () => ({ keys: {} }), ...options });

const add = (store: LockedJsonFile<Data>, key: string): Promise<Data> =>
  store.update((data) => {
    data.keys[key] = 1;
    return true;
  });

describe('LockedJsonFile', () => {
  test('no file reads as empty; nothing is created until a change is written', async () => {
    const file = newFile();
    const store = open(file);
    assert.deepEqual(await store.read(), { keys: {} });
    await store.update(() => false);
    assert.equal(existsSync(file), false);
  });

  test('a change is written by rename, 0600 in a directory made 0700, leaving no temporary or lock file', async () => {
    const file = newFile();
    const store = open(file);
    assert.deepEqual(await add(store, 'a'), { keys: { a: 1 } });
    assert.equal(statSync(join(file, '..')).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(join(file, '..')), ['data.json']);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { keys: { a: 1 } });
  });

  test('a file readable by others is written 0600 again at the next change', async () => {
    const file = newFile();
    await add(open(file), 'a');
    chmodSync(file, 0o644);
    await add(open(file), 'b');
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  test('the content read is what a fresh read of the file gives: members set to undefined are gone', async () => {
    const file = newFile();
    const store = new LockedJsonFile<Record<string, unknown>>(file, { label: 'test file', parse: (value) => value as Record<string, unknown>, empty: () => ({}) });
    await store.update((data) => {
      data.a = 1;
      data.b = undefined;
      return true;
    });
    assert.deepEqual(await store.read(), { a: 1 });
  });

  test('a change by another object (process) is seen at the next read', async () => {
    const file = newFile();
    const mine = open(file);
    await add(mine, 'a');
    assert.deepEqual(await mine.read(), { keys: { a: 1 } });
    await add(open(file), 'b');
    assert.deepEqual(await mine.read(), { keys: { a: 1, b: 1 } });
  });

  test('two objects on one file, many interleaved changes: none is lost', async () => {
    const file = newFile();
    const one = open(file);
    const two = open(file);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) writes.push(add(one, `one-${i}`), add(two, `two-${i}`));
    await Promise.all(writes);
    assert.equal(Object.keys((await open(file).read()).keys).length, 60);
    assert.equal(existsSync(`${file}.lock`), false);
  });

  test('two processes changing it at once: no change is lost', { timeout: 30_000 }, async () => {
    const file = newFile();
    const script = fileURLToPath(new URL('./_test/append-keys.ts', import.meta.url));
    const run = (prefix: string): Promise<number | null> => runTsxScript(script, [file, prefix, '20']);
    assert.deepEqual(await Promise.all([run('p'), run('q'), add(open(file), 'here').then(() => 0)]), [0, 0, 0]);
    assert.equal(Object.keys((await open(file).read()).keys).length, 41);
  });

  test('a corrupt file is an error naming the file and saying why; it is never overwritten and the lock is released', async () => {
    for (const [text, why] of [
      ['not json', /test file .*data\.json is corrupt \(not JSON/],
      ['{\n  "keys": {} x\n}', /is corrupt \(not JSON at line 2 column 14\)/],
      ['', /is corrupt \(not JSON: empty\)/],
      ['{"other":1}', /test file .*data\.json is corrupt \(expected \{ "keys": \{ … \} \}\)/],
    ] as const) {
      const file = newFile();
      const store = open(file);
      await add(store, 'a');
      writeFileSync(file, text);
      await assert.rejects(store.read(), (error: unknown) => error instanceof LockedJsonFileError && why.test(error.message) && error.message.includes('never overwritten'));
      await assert.rejects(add(store, 'b'), LockedJsonFileError);
      assert.equal(readFileSync(file, 'utf8'), text);
      assert.equal(existsSync(`${file}.lock`), false);
    }
  });

  test('errors are made by the error option when given', async () => {
    class MyError extends Error {}
    const file = newFile();
    await add(open(file), 'a');
    writeFileSync(file, '[');
    await assert.rejects(open(file, { error: (message) => new MyError(message) }).read(), MyError);
  });

  test('a lock left by a process that is gone is taken over; a live one is waited for, up to lockTimeoutMs', async () => {
    const file = newFile();
    const store = open(file, { lockTimeoutMs: 200 });
    await add(store, 'a');
    writeFileSync(`${file}.lock`, '999999999 deadbeef');
    await add(store, 'b');
    writeFileSync(`${file}.lock`, `${process.pid} someone-else`);
    await assert.rejects(add(store, 'c'), /still locked after 200 ms/);
    rmSync(`${file}.lock`);
    assert.deepEqual(await store.read(), { keys: { a: 1, b: 1 } });
  });
});

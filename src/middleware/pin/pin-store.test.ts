import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defaultPinStorePath, PinStore, PinStoreError, type SeenTool } from './pin-store.js';
import { runTsxScript } from '../../fs/_test/run-tsx-script.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-pin-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const storeFile = (): string => join(dir, `d${++files}`, 'pins.json');

const tool = (name: string, hash = `sha256:${name}`): SeenTool => ({ name, hash, definition: { name, description: hash } });

describe('PinStore', () => {
  test('check pins new tools, reports same and changed, and records a change as pending without replacing the pin', async () => {
    const store = new PinStore(storeFile(), { now: () => new Date('2026-01-01T00:00:00Z') });
    assert.deepEqual([...(await store.check('ns', [tool('a'), tool('b')]))], [['a', 'new'], ['b', 'new']]);
    assert.deepEqual([...(await store.check('ns', [tool('a'), tool('b', 'sha256:b2')]))], [['a', 'same'], ['b', 'changed']]);
    const entry = (await store.read()).namespaces.ns?.b;
    assert.deepEqual(entry, {
      hash: 'sha256:b',
      definition: { name: 'b', description: 'sha256:b' },
      firstSeen: '2026-01-01T00:00:00.000Z',
      pending: { hash: 'sha256:b2', definition: { name: 'b', description: 'sha256:b2' }, seenAt: '2026-01-01T00:00:00.000Z' },
    });
  });

  test('a tool first seen in a namespace that has pins: added (pinned), or held with onNew hold (pending-new, not pinned) until accepted', async () => {
    const store = new PinStore(storeFile(), { now: () => new Date('2026-01-01T00:00:00Z') });
    assert.deepEqual([...(await store.check('ns', [tool('a')], { onNew: 'hold' }))], [['a', 'new']], 'the first listing pins, whatever onNew');
    assert.deepEqual([...(await store.check('ns', [tool('a'), tool('b')]))], [['a', 'same'], ['b', 'added']]);
    assert.deepEqual([...(await store.check('ns', [tool('a'), tool('c')], { onNew: 'hold' }))], [['a', 'same'], ['c', 'held']]);
    let data = await store.read();
    assert.deepEqual(Object.keys(data.namespaces.ns ?? {}), ['a', 'b']);
    assert.deepEqual(data.pendingNew, { ns: { c: { hash: 'sha256:c', definition: { name: 'c', description: 'sha256:c' }, seenAt: '2026-01-01T00:00:00.000Z' } } });
    assert.deepEqual(await store.acceptChanges([{ namespace: 'ns', tool: 'c', hash: 'sha256:other' }]), [], 'not the definition reviewed');
    assert.deepEqual(await store.acceptChanges([{ namespace: 'ns', tool: 'c', hash: 'sha256:c' }]), [{ namespace: 'ns', tool: 'c', to: 'sha256:c' }]);
    data = await store.read();
    assert.equal(data.pendingNew, undefined);
    assert.deepEqual(data.namespaces.ns?.c, { hash: 'sha256:c', definition: { name: 'c', description: 'sha256:c' }, firstSeen: '2026-01-01T00:00:00.000Z', acceptedAt: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual([...(await store.check('ns', [tool('c')], { onNew: 'hold' }))], [['c', 'same']]);
  });

  test('the directory is made 0700 and the file written 0600, by rename: no temporary or lock file is left', async () => {
    const file = storeFile();
    await new PinStore(file).check('ns', [tool('a')]);
    assert.equal(statSync(join(file, '..')).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(join(file, '..')), ['pins.json']);
  });

  test('accept makes pending changes the pins: all, one namespace, or named tools', async () => {
    const file = storeFile();
    const store = new PinStore(file);
    await store.check('x', [tool('a'), tool('b')]);
    await store.check('y', [tool('a')]);
    await store.check('x', [tool('a', 'sha256:a2'), tool('b', 'sha256:b2')]);
    await store.check('y', [tool('a', 'sha256:a3')]);
    assert.deepEqual(await store.accept({ namespace: 'x', tools: ['b'] }), [{ namespace: 'x', tool: 'b', from: 'sha256:b', to: 'sha256:b2' }]);
    assert.deepEqual(
      (await store.accept()).map((change) => `${change.namespace}/${change.tool}`),
      ['x/a', 'y/a'],
    );
    const data = await store.read();
    assert.equal(data.namespaces.x?.a?.hash, 'sha256:a2');
    assert.equal(data.namespaces.y?.a?.pending, undefined);
    assert.deepEqual(await store.accept(), []);
  });

  test('acceptChanges accepts only the pending definition that was reviewed: one that changed again stays pending', async () => {
    const store = new PinStore(storeFile());
    await store.check('ns', [tool('a'), tool('b')]);
    await store.check('ns', [tool('a', 'sha256:a2'), tool('b', 'sha256:b2')]);
    const reviewed = [
      { namespace: 'ns', tool: 'a', hash: 'sha256:a2' },
      { namespace: 'ns', tool: 'b', hash: 'sha256:b2' },
    ];
    await store.check('ns', [tool('b', 'sha256:b3')]);
    assert.deepEqual(await store.acceptChanges(reviewed), [{ namespace: 'ns', tool: 'a', from: 'sha256:a', to: 'sha256:a2' }]);
    const data = await store.read();
    assert.equal(data.namespaces.ns?.b?.hash, 'sha256:b');
    assert.equal(data.namespaces.ns?.b?.pending?.hash, 'sha256:b3');
  });

  test('two stores on one file, many interleaved writes: no entry is lost', async () => {
    const file = storeFile();
    const one = new PinStore(file);
    const two = new PinStore(file);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      writes.push(one.check('ns', [tool(`one-${i}`)]));
      writes.push(two.check('ns', [tool(`two-${i}`)]));
    }
    await Promise.all(writes);
    const names = Object.keys((await new PinStore(file).read()).namespaces.ns ?? {});
    assert.equal(names.length, 80);
    assert.equal(existsSync(`${file}.lock`), false);
  });

  test('two processes writing at once: no entry is lost', { timeout: 30_000 }, async () => {
    const file = storeFile();
    const script = fileURLToPath(new URL('./_test/write-pins.ts', import.meta.url));
    const run = (prefix: string): Promise<number | null> => runTsxScript(script, [file, prefix, '25']);
    assert.deepEqual(await Promise.all([run('p'), run('q'), new PinStore(file).check('ns', [tool('here')]).then(() => 0)]), [0, 0, 0]);
    const names = Object.keys((await new PinStore(file).read()).namespaces.ns ?? {});
    assert.equal(names.length, 51);
  });

  test('a change made by another process is read at the next read', async () => {
    const file = storeFile();
    const mine = new PinStore(file);
    await mine.check('ns', [tool('a')]);
    await mine.check('ns', [tool('a', 'sha256:a2')]);
    await new PinStore(file).accept();
    assert.deepEqual([...(await mine.check('ns', [tool('a', 'sha256:a2')]))], [['a', 'same']]);
  });

  test('a corrupt file is a PinStoreError saying what is wrong, and is never overwritten', async () => {
    for (const [text, why] of [
      ['not json', /is corrupt \(not JSON/],
      ['{"version":2,"namespaces":{}}', /expected \{ "version": 1, "namespaces"/],
      ['{"version":1,"namespaces":{"ns":{"a":{"hash":"h"}}}}', /entry "ns\/a" needs hash, definition and firstSeen/],
      ['{"version":1,"namespaces":{},"pendingNew":{"ns":{"a":{"hash":"h"}}}}', /pendingNew "ns\/a" needs hash, definition and seenAt/],
    ] as const) {
      const file = storeFile();
      const store = new PinStore(file);
      await store.check('ns', [tool('a')]);
      writeFileSync(file, text);
      await assert.rejects(store.read(), (error: unknown) => error instanceof PinStoreError && why.test(error.message) && error.message.includes('never overwritten'));
      await assert.rejects(store.check('ns', [tool('b')]), PinStoreError);
      await assert.rejects(store.accept(), PinStoreError);
      assert.equal(readFileSync(file, 'utf8'), text);
      assert.equal(existsSync(`${file}.lock`), false, 'the lock is released');
    }
  });

  test('a lock left by a process that is gone is taken over; a live one is waited for, up to lockTimeoutMs', async () => {
    const file = storeFile();
    const store = new PinStore(file, { lockTimeoutMs: 200 });
    await store.check('ns', [tool('a')]);
    writeFileSync(`${file}.lock`, '999999999 deadbeef');
    await store.check('ns', [tool('b')]);
    writeFileSync(`${file}.lock`, `${process.pid} someone-else`);
    await assert.rejects(store.check('ns', [tool('c')]), /still locked after 200 ms/);
    rmSync(`${file}.lock`);
    assert.deepEqual(Object.keys((await store.read()).namespaces.ns ?? {}), ['a', 'b']);
  });

  test('the default path follows XDG_CONFIG_HOME, else ~/.config', () => {
    assert.equal(defaultPinStorePath({ XDG_CONFIG_HOME: '/x' }), '/x/mcp-chain/pins.json');
    assert.match(defaultPinStorePath({}), /\/\.config\/mcp-chain\/pins\.json$/);
  });
});

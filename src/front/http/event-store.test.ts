import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryEventStore } from './event-store.js';

function fill(store: MemoryEventStore, session: string, stream: string, from: number, to: number): void {
  for (let n = from; n <= to; n += 1) store.append(session, stream, { id: `${stream}-${n}`, data: `${stream}:${n}` });
}

describe('MemoryEventStore: resuming after eviction', () => {
  test('a kept id gets everything after it on its stream, and nothing lost', async () => {
    const store = new MemoryEventStore({ maxEventsPerSession: 10 });
    fill(store, 's', '0', 1, 3);
    fill(store, 's', '1', 1, 2);
    assert.deepEqual(await store.after('s', '0-1'), { stream: '0', events: [{ id: '0-2', data: '0:2' }, { id: '0-3', data: '0:3' }] });
  });

  test('an evicted id gets what its stream still has, and how many events after it were lost', async () => {
    const store = new MemoryEventStore({ maxEventsPerSession: 3 });
    fill(store, 's', '0', 1, 6); // 0-1 .. 0-3 evicted
    assert.deepEqual(await store.after('s', '0-1'), {
      stream: '0',
      events: [{ id: '0-4', data: '0:4' }, { id: '0-5', data: '0:5' }, { id: '0-6', data: '0:6' }],
      lost: 2,
    });
    assert.equal((await store.after('s', '0-3'))?.lost, 0, 'the newest evicted: nothing after it lost');
  });

  test('eviction by another stream of the session is counted on the stream it hit; the other stream keeps its own', async () => {
    const store = new MemoryEventStore({ maxEventsPerSession: 3 });
    fill(store, 's', '1', 1, 2);
    fill(store, 's', '2', 1, 3); // evicts 1-1 and 1-2
    const resumed = await store.after('s', '1-1');
    assert.deepEqual(resumed, { stream: '1', events: [], lost: 1 });
    assert.deepEqual((await store.after('s', '2-1'))?.events.map((e) => e.id), ['2-2', '2-3']);
  });

  test('an id never sent (a later number, another stream, another session, or not an event id) is unknown', async () => {
    const store = new MemoryEventStore({ maxEventsPerSession: 2 });
    fill(store, 's', '0', 1, 5);
    assert.equal(await store.after('s', '0-9'), undefined);
    assert.equal(await store.after('s', '7-1'), undefined);
    assert.equal(await store.after('t', '0-1'), undefined);
    assert.equal(await store.after('s', 'garbage'), undefined);
    assert.equal(await store.after('s', '0-1e3'), undefined);
  });

  test('the byte bound evicts too, and forget drops the session with its records', async () => {
    const store = new MemoryEventStore({ maxBytesPerSession: 10 });
    for (let n = 1; n <= 4; n += 1) store.append('s', '0', { id: `0-${n}`, data: 'xxxx' });
    assert.deepEqual(await store.after('s', '0-1'), { stream: '0', events: [{ id: '0-3', data: 'xxxx' }, { id: '0-4', data: 'xxxx' }], lost: 1 });
    store.forget('s');
    assert.equal(await store.after('s', '0-1'), undefined);
  });
});

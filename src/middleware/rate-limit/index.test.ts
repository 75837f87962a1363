import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { Identity } from '../../core/session-info.js';
import { ChainError } from '../../errors/chain-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness, type Harness } from '../../testing/harness.js';
import { local, type LocalTool } from '../../upstream/local.js';
import { BucketStore } from './bucket-store.js';
import { formatDelay } from './rate-limited-error.js';
import { RATE_LIMITED, rateLimit, type RateLimitCodeOptions, type RateLimitOptions } from './index.js';

const tool = (name: string): LocalTool => ({ name, handler: () => ({ content: [{ type: 'text', text: name }] }) });
const server = local({ tools: ['a', 'b', 'github__search', 'github__create_issue', 'jira__search', 'slack.post'].map(tool) });

/** A clock the test moves. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

async function open(options: RateLimitOptions & RateLimitCodeOptions, identity?: Identity): Promise<Harness> {
  return harness(chain().use(rateLimit(options)).to(server), identity === undefined ? {} : { identity });
}

/** The error of calling `name`, or `undefined` when the call succeeds. */
async function errorOf(h: Harness, name: string): Promise<JsonObject | undefined> {
  const reply = await h.call('tools/call', { name, arguments: {} });
  return reply.error as JsonObject | undefined;
}

/** How many of `count` calls to `name` succeed. */
async function allowed(h: Harness, name: string, count: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < count; i++) if ((await errorOf(h, name)) === undefined) ok++;
  return ok;
}

const alice: Identity = { id: 'alice', method: 'bearer' };
const bob: Identity = { id: 'bob', method: 'bearer' };

describe('rateLimit: token buckets', () => {
  test('a burst is allowed, the next call is refused with -32029, when to retry in the message and retryAfterMs in data', async () => {
    const time = clock();
    const h = await open({ limits: [{ rate: 2, per: 'second', burst: 3 }], now: time.now });
    assert.equal(await allowed(h, 'a', 3), 3);
    assert.deepEqual(await errorOf(h, 'a'), {
      code: RATE_LIMITED,
      message: 'Rate limit exceeded for tool "a" (2 per second); retry in 500 ms',
      data: { retryAfterMs: 500, limit: 'rate', tool: 'a', rate: 2, perMs: 1000, burst: 3 },
    });
    assert.equal(RATE_LIMITED, -32029);
    time.advance(499);
    assert.equal((await errorOf(h, 'a'))?.code, -32029);
    time.advance(1);
    assert.equal(await allowed(h, 'a', 2), 1, 'one token came back after 500 ms');
    time.advance(10_000);
    assert.equal(await allowed(h, 'a', 4), 3, 'a quiet time refills up to the burst, not beyond');
    await h.close();
  });

  test('burst defaults to rate; per takes minute, hour or milliseconds; fractional rates work', async () => {
    const time = clock();
    const minute = await open({ limits: [{ rate: 3, per: 'minute' }], now: time.now });
    assert.equal(await allowed(minute, 'a', 5), 3);
    assert.deepEqual((await errorOf(minute, 'a'))?.data, { retryAfterMs: 20_000, limit: 'rate', tool: 'a', rate: 3, perMs: 60_000, burst: 3 });
    await minute.close();

    const hour = await open({ limits: [{ rate: 1, per: 'hour' }], now: time.now });
    assert.equal(await allowed(hour, 'a', 2), 1);
    assert.match(String((await errorOf(hour, 'a'))?.message), /\(1 per hour\); retry in 60 min$/);
    await hour.close();

    const slow = await open({ limits: [{ rate: 0.5, per: 250 }], now: time.now });
    assert.equal(await allowed(slow, 'a', 2), 1, 'a rate under 1 still allows one call');
    assert.match(String((await errorOf(slow, 'a'))?.message), /\(0\.5 per 250 ms\); retry in 500 ms$/);
    time.advance(500);
    assert.equal(await allowed(slow, 'a', 1), 1);
    await slow.close();
  });

  test('no key: one bucket for every call the rule covers, across tools and sessions', async () => {
    const time = clock();
    const mw = rateLimit({ limits: [{ rate: 2, per: 'second' }], now: time.now });
    const one = await harness(chain().use(mw).to(server));
    const two = await harness(chain().use(mw).to(server));
    assert.equal(await allowed(one, 'a', 1), 1);
    assert.equal(await allowed(two, 'b', 1), 1);
    assert.equal(await allowed(one, 'b', 1), 0);
    assert.equal(await allowed(two, 'a', 1), 0);
    await one.close();
    await two.close();
  });

  test('key session: each session has its own bucket', async () => {
    const time = clock();
    const mw = rateLimit({ limits: [{ key: ['session'], rate: 1, per: 'second' }], now: time.now });
    const one = await harness(chain().use(mw).to(server), { identity: alice });
    const two = await harness(chain().use(mw).to(server), { identity: alice });
    assert.equal(await allowed(one, 'a', 2), 1);
    assert.equal(await allowed(two, 'a', 2), 1);
    assert.match(String((await errorOf(two, 'a'))?.message), /\(1 per second, per session\)/);
    await one.close();
    await two.close();
  });

  test('key identity: sessions of one identity share a bucket; without an identity each session is its own', async () => {
    const time = clock();
    const mw = rateLimit({ limits: [{ key: ['identity'], rate: 2, per: 'minute' }], now: time.now });
    const a1 = await harness(chain().use(mw).to(server), { identity: alice });
    const a2 = await harness(chain().use(mw).to(server), { identity: alice });
    const b = await harness(chain().use(mw).to(server), { identity: bob });
    assert.equal(await allowed(a1, 'a', 1), 1);
    assert.equal(await allowed(a2, 'a', 2), 1, "alice's second session shares her bucket");
    assert.equal(await allowed(b, 'a', 2), 2, 'bob has his own');
    const anon1 = await harness(chain().use(mw).to(server));
    const anon2 = await harness(chain().use(mw).to(server));
    assert.equal(await allowed(anon1, 'a', 3), 2);
    assert.equal(await allowed(anon2, 'a', 3), 2);
    for (const h of [a1, a2, b, anon1, anon2]) await h.close();
  });

  test('key tool and tools globs: a bucket per tool, only for the tools the rule names', async () => {
    const time = clock();
    const h = await open({ limits: [{ key: ['tool'], tools: ['github__*'], rate: 1, per: 'second' }], now: time.now });
    assert.equal(await allowed(h, 'github__search', 2), 1);
    assert.equal(await allowed(h, 'github__create_issue', 2), 1);
    assert.equal(await allowed(h, 'jira__search', 5), 5, 'a tool no rule covers is not limited');
    assert.match(String((await errorOf(h, 'github__search'))?.message), /^Rate limit exceeded for tool "github__search" \(1 per second, per tool\)/);
    await h.close();
  });

  test('key server: the prefix of a gateway name, with a configurable separator', async () => {
    const time = clock();
    const h = await open({ limits: [{ key: ['server'], rate: 2, per: 'second' }], now: time.now });
    assert.equal(await allowed(h, 'github__search', 1), 1);
    assert.equal(await allowed(h, 'github__create_issue', 2), 1, 'both github tools share the github bucket');
    assert.equal(await allowed(h, 'jira__search', 2), 2);
    assert.equal(await allowed(h, 'a', 1), 1, 'a name without the separator is server ""');
    assert.equal(await allowed(h, 'b', 2), 1);
    await h.close();

    const dotted = await open({ limits: [{ key: ['server', 'identity'], rate: 1, per: 'second' }], separator: '.', now: time.now }, alice);
    assert.equal(await allowed(dotted, 'slack.post', 2), 1);
    assert.equal(await allowed(dotted, 'github__search', 1), 1, 'with "." as separator, github__search is server ""');
    assert.match(String((await errorOf(dotted, 'slack.post'))?.message), /\(1 per second, per server and identity\)/);
    await dotted.close();
  });

  test('every covering rule must have a token; a refused call takes none, and the longest wait is the one reported', async () => {
    const time = clock();
    const h = await open(
      {
        limits: [
          { key: ['tool'], rate: 10, per: 'second', burst: 2 },
          { tools: ['a'], rate: 1, per: 'second' },
        ],
        now: time.now,
      },
    );
    assert.equal(await allowed(h, 'a', 1), 1);
    assert.equal((await errorOf(h, 'a'))?.message, 'Rate limit exceeded for tool "a" (1 per second); retry in 1 s');
    time.advance(1000);
    assert.equal(await allowed(h, 'a', 1), 1, "the refused call did not spend the per-tool rule's token");
    assert.equal(await allowed(h, 'a', 1), 0);
    await h.close();
  });

  test('only tools/call from the client is limited: lists, other methods and calls with no name pass', async () => {
    const time = clock();
    const h = await open({ limits: [{ rate: 1, per: 'hour' }], concurrency: [{ maxConcurrent: 1 }], now: time.now });
    for (let i = 0; i < 3; i++) assert.equal((await h.request('tools/list')).tools.length, 6);
    assert.equal(await allowed(h, 'a', 1), 1);
    const noName = await h.call('tools/call', { arguments: {} });
    assert.notEqual((noName.error as JsonObject | undefined)?.code, RATE_LIMITED);
    await h.close();
  });

  test('shared buckets are bounded: past maxBuckets the least recently used is forgotten (and starts full again)', async () => {
    const time = clock();
    const h = await open({ limits: [{ key: ['tool'], rate: 1, per: 'hour' }], maxBuckets: 2, now: time.now });
    assert.equal(await allowed(h, 'a', 2), 1);
    assert.equal(await allowed(h, 'b', 2), 1);
    assert.equal(await allowed(h, 'a', 1), 0, 'a is now the most recently used');
    assert.equal(await allowed(h, 'jira__search', 1), 1, 'a third key evicts b');
    assert.equal(await allowed(h, 'a', 1), 0, 'a was kept');
    assert.equal(await allowed(h, 'b', 1), 1, 'b was forgotten');
    await h.close();

    const store = new BucketStore<number>(2);
    store.add('x', 1);
    store.add('y', 2);
    assert.equal(store.get('x'), 1);
    store.add('z', 3);
    assert.equal(store.size, 2);
    assert.equal(store.get('y'), undefined, 'y was the least recently used');
    assert.equal(store.get('x'), 1);
  });

  test('a store under half full keeps its order (a use is one lookup); past half, a used entry moves to the back', () => {
    const store = new BucketStore<number>(6);
    for (const [key, value] of [['a', 1], ['b', 2], ['c', 3]] as const) store.add(key, value);
    assert.equal(store.get('a'), 1); // 3 of 6: not moved
    store.add('d', 4); // 4 of 6: from here a used entry moves back
    assert.equal(store.get('a'), 1);
    store.add('e', 5);
    store.add('f', 6);
    store.add('g', 7); // evicts the oldest: b (a moved behind d)
    assert.equal(store.get('b'), undefined);
    assert.equal(store.get('a'), 1);
    store.add('h', 8); // evicts c
    assert.equal(store.get('c'), undefined);
    assert.equal(store.size, 6);
  });
});

describe('rateLimit: concurrency', () => {
  /** A tool `slow` whose calls end when the test says. */
  function gated(): { tools: LocalTool[]; release: () => void; started: () => number } {
    let waiting: (() => void)[] = [];
    let count = 0;
    return {
      tools: [
        { name: 'slow', handler: () => new Promise((resolve) => { count++; waiting.push(() => resolve({ content: [{ type: 'text', text: 'done' }] })); }) },
        { name: 'failing', handler: () => Promise.reject(new Error('boom')) },
        tool('fast'),
      ],
      release: () => {
        const now = waiting;
        waiting = [];
        for (const done of now) done();
      },
      started: () => count,
    };
  }

  test('calls over maxConcurrent are refused, not queued, with retryAfterMs; the slot frees when a call ends', async () => {
    const gate = gated();
    const h = await harness(chain().use(rateLimit({ concurrency: [{ tools: ['slow'], maxConcurrent: 2 }] })).to(local({ tools: gate.tools })));
    const first = h.request('tools/call', { name: 'slow' });
    const second = h.request('tools/call', { name: 'slow' });
    await h.request('tools/call', { name: 'fast' });
    assert.equal(gate.started(), 2);
    assert.deepEqual(await errorOf(h, 'slow'), {
      code: -32029,
      message: 'Too many concurrent calls to tool "slow" (at most 2 at a time per tool); retry in 1 s',
      data: { retryAfterMs: 1000, limit: 'concurrency', tool: 'slow', maxConcurrent: 2 },
    });
    assert.equal(gate.started(), 2, 'the refused call never reached the server');
    gate.release();
    await first;
    await second;
    const third = h.request('tools/call', { name: 'slow' });
    await h.request('tools/call', { name: 'fast' });
    assert.equal(gate.started(), 3);
    gate.release();
    assert.deepEqual((await third).content, [{ type: 'text', text: 'done' }]);
    await h.close();
  });

  test('a call that fails frees its slot; key [] counts all covered tools together; retryAfterMs is configurable', async () => {
    const gate = gated();
    const h = await harness(
      chain().use(rateLimit({ concurrency: [{ maxConcurrent: 1, key: [], retryAfterMs: 250 }] })).to(local({ tools: gate.tools })),
    );
    const failed = await h.request('tools/call', { name: 'failing' });
    assert.equal(failed.isError, true);
    const pending = h.request('tools/call', { name: 'slow' });
    const refused = await errorOf(h, 'fast');
    assert.equal(refused?.message, 'Too many concurrent calls to tool "fast" (at most 1 at a time); retry in 250 ms');
    assert.equal((refused?.data as JsonObject).retryAfterMs, 250);
    gate.release();
    await pending;
    assert.equal(await allowed(h, 'fast', 1), 1);
    await h.close();
  });

  test('a call the client cancels frees its slot, though the server never answers it', async () => {
    const gate = gated();
    const h = await harness(chain().use(rateLimit({ concurrency: [{ tools: ['slow'], maxConcurrent: 1 }] })).to(local({ tools: gate.tools })));
    void h.call('tools/call', { name: 'slow' }, 'cancel-me').catch(() => undefined);
    await h.request('tools/call', { name: 'fast' });
    assert.equal((await errorOf(h, 'slow'))?.code, -32029);
    h.notify('notifications/cancelled', { requestId: 'cancel-me', reason: 'the user pressed stop' });
    await h.request('tools/call', { name: 'fast' });
    const again = h.request('tools/call', { name: 'slow' });
    await h.request('tools/call', { name: 'fast' });
    assert.equal(gate.started(), 2, 'the second call reached the server');
    gate.release();
    await again;
    await h.close();
  });

  test('key session: each session has its own count', async () => {
    const gate = gated();
    const mw = rateLimit({ concurrency: [{ tools: ['slow'], maxConcurrent: 1, key: ['session'] }] });
    const upstream = local({ tools: gate.tools });
    const one = await harness(chain().use(mw).to(upstream));
    const two = await harness(chain().use(mw).to(upstream));
    const a = one.request('tools/call', { name: 'slow' });
    const b = two.request('tools/call', { name: 'slow' });
    await one.request('tools/call', { name: 'fast' });
    await two.request('tools/call', { name: 'fast' });
    assert.equal((await errorOf(one, 'slow'))?.code, -32029);
    gate.release();
    await Promise.all([a, b]);
    await one.close();
    await two.close();
  });
});

describe('rateLimit: configuration', () => {
  test('bad rules are refused when the middleware is made, naming the rule', () => {
    const refused = (options: RateLimitOptions & RateLimitCodeOptions, message: RegExp): void => {
      assert.throws(() => rateLimit(options), (error: unknown) => error instanceof ChainError && error.code === 'CONFIG' && message.test(error.message));
    };
    refused({ limits: [{ rate: 0, per: 'second' }] }, /^rateLimit: limits\[0\]\.rate must be a positive number \(got 0\)$/);
    refused({ limits: [{ rate: 1, per: 'second' }, { rate: 1, per: -5 }] }, /^rateLimit: limits\[1\]\.per must be/);
    refused({ limits: [{ rate: 5, per: 'second', burst: 0.5 }] }, /limits\[0\]\.burst must be at least 1/);
    refused({ limits: [{ rate: 5, per: 'second', key: ['user' as 'identity'] }] }, /limits\[0\]\.key: unknown key "user"/);
    refused({ concurrency: [{ maxConcurrent: 0 }] }, /concurrency\[0\]\.maxConcurrent must be a positive integer/);
    refused({ separator: '' }, /separator must not be empty/);
    refused({ maxBuckets: 0 }, /maxBuckets must be a positive integer/);
  });

  test('delays read as a person would say them, rounded up', () => {
    assert.deepEqual([0.2, 250, 999.2, 1000, 1501, 59_999, 60_000, 90_001].map(formatDelay), ['1 ms', '250 ms', '1000 ms', '1 s', '1.6 s', '60 s', '1 min', '2 min']);
  });
});

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { RequestStateCodec, type RequestStateRefusal, requestDigest } from './request-state.js';

const KEY = new Uint8Array(32).fill(7);
const OTHER_KEY = new Uint8Array(32).fill(8);
const TTL = 60_000;
const T0 = 1_760_000_000_000;

/** A codec on a clock the test moves. */
function codec(options: { key?: Uint8Array; ttlMs?: number } = {}): { codec: RequestStateCodec; clock: { now: number } } {
  const clock = { now: T0 };
  return { codec: new RequestStateCodec({ key: options.key ?? KEY, ttlMs: options.ttlMs ?? TTL, now: () => clock.now }), clock };
}

const digest = requestDigest('tools/call', { name: 'ask', arguments: { q: 'hi' } });
const claims = { call: 'call-17', round: 2, principal: 'user:ada', digest };
const expected = { principal: claims.principal, digest };

/** The refusal `open` threw, checked to be a -32602 McpError naming the reason. */
function refused(run: () => unknown, reason: RequestStateRefusal): McpError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof McpError, `expected an McpError (${reason}), got ${String(caught)}`);
  assert.equal(caught.code, ErrorCode.InvalidParams);
  assert.deepEqual(caught.data, { requestState: reason });
  return caught;
}

/** The reason `open` refused `state` with, for checks that accept either of two. */
function reasonOf(c: RequestStateCodec, state: unknown): string {
  try {
    c.open(state, expected);
  } catch (error) {
    assert.ok(error instanceof McpError);
    assert.equal(error.code, ErrorCode.InvalidParams);
    return (error.data as { requestState: string }).requestState;
  }
  return 'accepted';
}

describe('RequestStateCodec: seal and open', () => {
  test('a sealed state opens to the same claims, with the expiry the TTL sets', () => {
    const { codec: c } = codec();
    const state = c.seal(claims);
    assert.deepEqual(c.open(state, expected), { ...claims, expiresAt: T0 + TTL });
  });

  test('a state is versioned (mc1.) and URL-safe: [A-Za-z0-9._-] only, whatever the claims hold', () => {
    const { codec: c } = codec();
    const odd = { call: 'ç/+= "\n', round: 0, principal: 'ü@example.org/ 🦊', digest: '' };
    const state = c.seal(odd);
    assert.match(state, /^mc1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(c.open(state, { principal: odd.principal, digest: '' }), { ...odd, expiresAt: T0 + TTL });
  });

  test('no principal (stdio) is the empty string, and binds like any other', () => {
    const { codec: c } = codec();
    const state = c.seal({ ...claims, principal: '' });
    assert.equal(c.open(state, { principal: '', digest }).principal, '');
    refused(() => c.open(state, expected), 'foreign');
  });

  test('the state is compact: well under 200 characters for typical claims', () => {
    const { codec: c } = codec();
    assert.ok(c.seal(claims).length < 200, c.seal(claims));
  });

  test('a state sealed with another key fails verification', () => {
    const { codec: a } = codec();
    const { codec: b } = codec({ key: OTHER_KEY });
    refused(() => b.open(a.seal(claims), expected), 'invalid');
  });

  test('without a key, each codec has its own random one: its states open only with it', () => {
    const a = new RequestStateCodec({ ttlMs: TTL });
    const b = new RequestStateCodec({ ttlMs: TTL });
    const state = a.seal(claims);
    assert.equal(a.open(state, expected).call, claims.call);
    refused(() => b.open(state, expected), 'invalid');
  });

  test('a key shorter than 32 bytes, or a TTL that is not positive, throws', () => {
    assert.throws(() => new RequestStateCodec({ key: new Uint8Array(31), ttlMs: TTL }), RangeError);
    assert.throws(() => new RequestStateCodec({ key: KEY, ttlMs: 0 }), RangeError);
    assert.throws(() => new RequestStateCodec({ key: KEY, ttlMs: Number.NaN }), RangeError);
    assert.doesNotThrow(() => new RequestStateCodec({ key: new Uint8Array(64), ttlMs: TTL }));
  });

  test('the key is copied: changing the given buffer later changes nothing', () => {
    const key = new Uint8Array(32).fill(9);
    const c = new RequestStateCodec({ key, ttlMs: TTL });
    const state = c.seal(claims);
    key.fill(0);
    assert.equal(c.open(state, expected).round, claims.round);
  });

  test('a round that is not a non-negative integer is refused at seal', () => {
    const { codec: c } = codec();
    assert.throws(() => c.seal({ ...claims, round: -1 }), RangeError);
    assert.throws(() => c.seal({ ...claims, round: 1.5 }), RangeError);
  });

  test('claims too long for a state are refused at seal (open would refuse them as malformed)', () => {
    const { codec: c } = codec();
    assert.throws(() => c.seal({ ...claims, principal: 'p'.repeat(8192) }), RangeError);
  });
});

describe('RequestStateCodec.open: what it refuses, and why', () => {
  test('a non-string state is malformed', () => {
    const { codec: c } = codec();
    for (const state of [undefined, null, 42, {}, ['mc1.a.b'], true]) refused(() => c.open(state, expected), 'malformed');
  });

  test('an empty, truncated, wrongly versioned, extra-dotted, non-base64url or oversized state is malformed', () => {
    const { codec: c } = codec();
    const state = c.seal(claims);
    const [, payload = '', mac = ''] = state.split('.');
    const cases = [
      '',
      'mc1.',
      'mc1..',
      state.slice(0, -1),
      state.slice(0, state.lastIndexOf('.')),
      `mc2.${payload}.${mac}`,
      `v1.${payload}.${mac}`,
      `MC1.${payload}.${mac}`,
      `${payload}.${mac}`,
      `${state}.`,
      `${state}.x`,
      `mc1.${payload}..${mac}`,
      `mc1.mc1.${payload}.${mac}`,
      `mc1.${payload}.${mac}=`,
      `mc1.${payload}=.${mac}`,
      `mc1.${payload.replace(/./, '+')}.${mac}`,
      ` ${state}`,
      `${state}\n`,
      `${state}A`,
      `mc1.${payload}.${mac.slice(0, -1)}`,
      'x'.repeat(10_000),
      `mc1.${'A'.repeat(9000)}.${mac}`,
    ];
    for (const bad of cases) refused(() => c.open(bad, expected), 'malformed');
  });

  test('a flipped byte anywhere (prefix, payload, dot, MAC) is invalid or malformed, never accepted', () => {
    const { codec: c } = codec();
    const state = c.seal(claims);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    for (let i = 0; i < state.length; i++) {
      const original = state[i] as string;
      for (const replacement of [alphabet[(alphabet.indexOf(original) + 1) % alphabet.length] as string, String.fromCharCode(original.charCodeAt(0) ^ 1)]) {
        if (replacement === original) continue;
        const flipped = state.slice(0, i) + replacement + state.slice(i + 1);
        const reason = reasonOf(c, flipped);
        assert.ok(reason === 'invalid' || reason === 'malformed', `byte ${i} (${original} → ${replacement}): ${reason}`);
      }
    }
  });

  test('a payload with changed claims but the old MAC fails verification (the MAC is checked first)', () => {
    const { codec: c } = codec();
    const state = c.seal(claims);
    const [, , mac = ''] = state.split('.');
    const forged = Buffer.from(JSON.stringify([claims.call, claims.round + 1, claims.principal, claims.digest, T0 + TTL * 100])).toString('base64url');
    refused(() => c.open(`mc1.${forged}.${mac}`, expected), 'invalid');
    // Even a forged payload that does not parse is refused as invalid: nothing is read before the MAC.
    refused(() => c.open(`mc1.${Buffer.from('not json').toString('base64url')}.${mac}`, expected), 'invalid');
  });

  test('a state whose MAC is right but whose payload is not claims (another format, same key) is malformed', () => {
    const { codec: c } = codec();
    for (const body of ['{"c":"x"}', '[1,2,3,4,5]', '["c",-1,"p","d",1]', 'nope']) {
      const payload = Buffer.from(body).toString('base64url');
      const mac = createHmac('sha256', KEY).update('mc1.').update(payload).digest('base64url');
      refused(() => c.open(`mc1.${payload}.${mac}`, expected), 'malformed');
    }
  });

  test('expired by the clock; exactly at expiresAt counts as expired', () => {
    const { codec: c, clock } = codec();
    const state = c.seal(claims);
    clock.now = T0 + TTL - 1;
    assert.equal(c.open(state, expected).expiresAt, T0 + TTL);
    clock.now = T0 + TTL;
    refused(() => c.open(state, expected), 'expired');
    clock.now = T0 + TTL * 10;
    refused(() => c.open(state, expected), 'expired');
  });

  test('a state issued to another principal is foreign', () => {
    const { codec: c } = codec();
    const state = c.seal(claims);
    refused(() => c.open(state, { principal: 'user:eve', digest }), 'foreign');
    refused(() => c.open(state, { principal: '', digest }), 'foreign');
  });

  test('a state issued for another request (other digest) is a mismatch', () => {
    const { codec: c } = codec();
    const state = c.seal(claims);
    refused(() => c.open(state, { principal: claims.principal, digest: requestDigest('tools/call', { name: 'ask', arguments: { q: 'bye' } }) }), 'mismatch');
  });

  test('the checks run in order: verification, then expiry, then principal, then request', () => {
    const { codec: c, clock } = codec();
    const state = c.seal(claims);
    const stranger = { principal: 'user:eve', digest: 'other' };
    refused(() => c.open(state, { principal: claims.principal, digest: 'other' }), 'mismatch');
    refused(() => c.open(state, stranger), 'foreign');
    clock.now = T0 + TTL;
    refused(() => c.open(state, stranger), 'expired');
    refused(() => new RequestStateCodec({ key: OTHER_KEY, ttlMs: TTL, now: () => T0 + TTL }).open(state, stranger), 'invalid');
  });

  test('messages say which check failed and carry nothing of the state or the principal', () => {
    const { codec: c, clock } = codec();
    const state = c.seal(claims);
    const messages = [
      refused(() => c.open('garbage', expected), 'malformed').message,
      refused(() => new RequestStateCodec({ key: OTHER_KEY, ttlMs: TTL }).open(state, expected), 'invalid').message,
      refused(() => c.open(state, { principal: 'user:eve', digest }), 'foreign').message,
      refused(() => c.open(state, { principal: claims.principal, digest: 'x' }), 'mismatch').message,
    ];
    clock.now = T0 + TTL;
    messages.push(refused(() => c.open(state, expected), 'expired').message);
    assert.deepEqual(messages, [
      'Invalid requestState: it is malformed',
      'Invalid requestState: it failed verification',
      'Invalid requestState: it was issued to another caller',
      'Invalid requestState: it was issued for another request',
      'Invalid requestState: it has expired',
    ]);
    for (const message of messages) {
      assert.ok(!message.includes(claims.principal) && !message.includes(claims.call) && !message.includes(state));
    }
  });

  test('round names the round: a state of an earlier round still opens, for the bridge to refuse as stale', () => {
    const { codec: c } = codec();
    const first = c.open(c.seal({ ...claims, round: 0 }), expected);
    const second = c.open(c.seal({ ...claims, round: 1 }), expected);
    assert.deepEqual([first.round, second.round], [0, 1]);
  });
});

describe('requestDigest: the method and the salient params, in canonical JSON', () => {
  test('is base64url SHA-256 (43 URL-safe characters)', () => {
    assert.match(requestDigest('tools/call', { name: 'a' }), /^[A-Za-z0-9_-]{43}$/);
  });

  test('key order does not matter, at any depth', () => {
    const a = requestDigest('tools/call', { name: 'a', arguments: { x: 1, y: { p: [1, { m: 1, n: 2 }], q: null } } });
    const b = requestDigest('tools/call', { arguments: { y: { q: null, p: [1, { n: 2, m: 1 }] }, x: 1 }, name: 'a' });
    assert.equal(a, b);
  });

  test('_meta, inputResponses and requestState are left out (a retry digests like the original)', () => {
    const original = requestDigest('tools/call', { name: 'a', arguments: { q: 1 }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
    const retry = requestDigest('tools/call', {
      name: 'a',
      arguments: { q: 1 },
      _meta: { progressToken: 9 },
      inputResponses: { k: { action: 'accept', content: {} } },
      requestState: 'mc1.x.y',
    });
    assert.equal(retry, original);
    assert.equal(requestDigest('tools/call', { name: 'a', arguments: { q: 1 } }), original);
  });

  test('only at the top: the same keys inside arguments count', () => {
    assert.notEqual(
      requestDigest('tools/call', { name: 'a', arguments: { requestState: 1 } }),
      requestDigest('tools/call', { name: 'a', arguments: { requestState: 2 } }),
    );
  });

  test('different arguments, names or methods give different digests', () => {
    const base = requestDigest('tools/call', { name: 'a', arguments: { q: 1 } });
    assert.notEqual(requestDigest('tools/call', { name: 'a', arguments: { q: 2 } }), base);
    assert.notEqual(requestDigest('tools/call', { name: 'a', arguments: { q: '1' } }), base);
    assert.notEqual(requestDigest('tools/call', { name: 'b', arguments: { q: 1 } }), base);
    assert.notEqual(requestDigest('prompts/get', { name: 'a', arguments: { q: 1 } }), base);
    assert.notEqual(requestDigest('tools/call', { name: 'a', arguments: { q: 1, r: null } }), base);
    assert.notEqual(requestDigest('tools/call', { name: 'a', arguments: {} }), base);
  });

  test('array order matters', () => {
    assert.notEqual(requestDigest('tools/call', { name: 'a', arguments: { l: [1, 2] } }), requestDigest('tools/call', { name: 'a', arguments: { l: [2, 1] } }));
  });

  test('structure is not confused by separators inside strings', () => {
    assert.notEqual(requestDigest('tools/call', { a: 'x","b":"y' }), requestDigest('tools/call', { a: 'x', b: 'y' }));
    assert.notEqual(requestDigest('a', { b: 'c' }), requestDigest('a\n{"b":"c"}', {}));
  });

  test('absent params digest like empty ones (or only unsalient ones)', () => {
    assert.equal(requestDigest('resources/read', undefined), requestDigest('resources/read', {}));
    assert.equal(requestDigest('resources/read', undefined), requestDigest('resources/read', { _meta: {} }));
  });

  test('does not throw on any JSON value, nor on values JSON reads as null or leaves out', () => {
    const odd = {
      a: [undefined, () => 1, Symbol('s'), Number.NaN, Infinity, -0, 1e308, '\u{1F98A}\ud800'],
      b: undefined,
      c: 10n,
      d: { '': { '\u0000': true } },
    };
    assert.match(requestDigest('x', odd), /^[A-Za-z0-9_-]{43}$/);
    // JSON.stringify's reading: undefined keys dropped, unrepresentable array elements null.
    assert.equal(requestDigest('x', { a: 1, b: undefined }), requestDigest('x', { a: 1 }));
    assert.equal(requestDigest('x', { a: [undefined, Number.NaN] }), requestDigest('x', { a: [null, null] }));
  });

  test('deep nesting does not exhaust the stack (JSON.stringify overflows at a few thousand levels)', () => {
    const depth = 20_000;
    const nested: unknown = JSON.parse('{"a":'.repeat(depth) + '[1]' + '}'.repeat(depth));
    const differs: unknown = JSON.parse('{"a":'.repeat(depth) + '[2]' + '}'.repeat(depth));
    assert.notEqual(requestDigest('tools/call', { arguments: nested }), requestDigest('tools/call', { arguments: differs }));
  });
});

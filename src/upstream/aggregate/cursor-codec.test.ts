import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import { CursorCodec, listDigest, type ListCursor } from './cursor-codec.js';

const KEY = new Uint8Array(32).fill(7);

/** A cursor signed with {@link KEY} over any payload text, as only the key holder could make it. */
function forge(payload: string, key: Uint8Array = KEY): string {
  const bytes = Buffer.from(payload, 'utf8');
  return Buffer.concat([bytes, createHmac('sha256', key).update(bytes).digest()]).toString('base64url');
}

/** Asserts that decoding throws -32602 with a message matching `reason`, and returns the message. */
function refused(codec: CursorCodec, text: unknown, kind: string, reason: RegExp): string {
  let message = '';
  assert.throws(() => codec.decode(text, kind), (error: unknown) => {
    assert.ok(error instanceof McpError, `not an McpError: ${String(error)}`);
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.match(error.message, /^Invalid cursor: /);
    assert.match(error.message, reason);
    message = error.message;
    return true;
  });
  return message;
}

describe('CursorCodec', () => {
  test('round-trips a cursor through opaque base64url text', () => {
    const codec = new CursorCodec();
    const cursor: ListCursor = { kind: 'tools', digest: listDigest(['a', 'b']), offset: 100 };
    const text = codec.encode(cursor);
    assert.match(text, /^[A-Za-z0-9_-]+$/);
    assert.ok(text.length < 200, `${text.length} characters`);
    assert.deepEqual(codec.decode(text, 'tools'), cursor);
  });

  test('carries offsets from 0 to the largest safe integer, and any kind and digest text', () => {
    const codec = new CursorCodec(KEY);
    for (const cursor of [
      { kind: 'prompts', digest: '', offset: 0 },
      { kind: 'resourceTemplates', digest: 'd"\\\u0000é', offset: Number.MAX_SAFE_INTEGER },
    ]) {
      assert.deepEqual(codec.decode(codec.encode(cursor), cursor.kind), cursor);
    }
  });

  test('is deterministic for one key, and codecs without a key share the process key', () => {
    const cursor = { kind: 'tools', digest: 'x', offset: 3 };
    assert.equal(new CursorCodec(KEY).encode(cursor), new CursorCodec(KEY).encode(cursor));
    assert.deepEqual(new CursorCodec().decode(new CursorCodec().encode(cursor), 'tools'), cursor);
  });

  test('refuses to encode an offset that is negative, fractional or not finite', () => {
    const codec = new CursorCodec(KEY);
    for (const offset of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      assert.throws(() => codec.encode({ kind: 'tools', digest: 'd', offset }), RangeError);
    }
  });

  test('refuses an empty key', () => {
    assert.throws(() => new CursorCodec(new Uint8Array(0)), RangeError);
  });

  test('refuses what is not a string', () => {
    const codec = new CursorCodec(KEY);
    refused(codec, 42, 'tools', /expected a string, got number/);
    refused(codec, null, 'tools', /got null/);
    refused(codec, undefined, 'tools', /got undefined/);
    refused(codec, { kind: 'tools', digest: 'd', offset: 0 }, 'tools', /got object/);
  });

  test('refuses an empty cursor', () => {
    refused(new CursorCodec(KEY), '', 'tools', /empty/);
  });

  test('refuses text that is not base64url, and shows only its beginning', () => {
    const codec = new CursorCodec(KEY);
    refused(codec, 'abc+/=', 'tools', /not base64url: "abc\+\/="$/);
    refused(codec, 'has space', 'tools', /not base64url/);
    const garbage = `<script>${'x'.repeat(500)}`;
    const message = refused(codec, garbage, 'tools', /not base64url/);
    assert.ok(message.length < 80, message);
    assert.ok(!message.includes('x'.repeat(30)), message);
  });

  test('refuses more than 1 KiB without decoding it, and does not echo it', () => {
    const codec = new CursorCodec(KEY);
    const valid = codec.encode({ kind: 'tools', digest: 'd', offset: 0 });
    const huge = valid + 'A'.repeat(2000);
    const message = refused(codec, huge, 'tools', /too long \(\d+ characters\)$/);
    assert.ok(!message.includes(valid), message);
    refused(codec, 'A'.repeat(1025), 'tools', /too long/);
    refused(codec, 'A'.repeat(1024), 'tools', /not issued by this server/); // at the limit: read, then refused for its tag
  });

  test('refuses a made-up cursor: base64url of anything, or shorter than a tag', () => {
    const codec = new CursorCodec(KEY);
    refused(codec, Buffer.from('{"offset":10}').toString('base64url'), 'tools', /not issued by this server/);
    refused(codec, Buffer.from(JSON.stringify(['tools', 'd', 10])).toString('base64url'), 'tools', /not issued by this server/);
    refused(codec, 'AAAA', 'tools', /not issued by this server/);
  });

  test('refuses a cursor that was altered: any bit flipped in the payload or the tag, or cut short', () => {
    const codec = new CursorCodec(KEY);
    const text = codec.encode({ kind: 'tools', digest: listDigest(['a']), offset: 5 });
    const bytes = Buffer.from(text, 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      const altered = Buffer.from(bytes);
      altered[i] = (altered[i] ?? 0) ^ 1;
      refused(codec, altered.toString('base64url'), 'tools', /not issued by this server/);
    }
    refused(codec, text.slice(0, -1), 'tools', /not issued by this server/);
    refused(codec, `${text}A`, 'tools', /not issued by this server/);
  });

  test('refuses a non-canonical spelling of a valid cursor (trailing bits set)', () => {
    const codec = new CursorCodec(KEY);
    // Find a cursor whose last base64url character carries unused bits, and set one of them.
    for (let offset = 0; offset < 10; offset++) {
      const text = codec.encode({ kind: 'tools', digest: 'd', offset });
      if (text.length % 4 === 0) continue;
      const last = text.at(-1) ?? '';
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const sibling = text.slice(0, -1) + alphabet[alphabet.indexOf(last) + 1];
      assert.deepEqual(Buffer.from(sibling, 'base64url'), Buffer.from(text, 'base64url'), 'same bytes, other text');
      refused(codec, sibling, 'tools', /not issued by this server/);
      return;
    }
    assert.fail('no cursor with unused bits found');
  });

  test('refuses a cursor made with another key (another process, or one that restarted)', () => {
    const mine = new CursorCodec(KEY);
    const theirs = new CursorCodec(new Uint8Array(32).fill(8));
    const text = theirs.encode({ kind: 'tools', digest: 'd', offset: 1 });
    refused(mine, text, 'tools', /not issued by this server \(or issued before it restarted\)/);
  });

  test('refuses a cursor of another list: a tools cursor sent to prompts/list', () => {
    const codec = new CursorCodec(KEY);
    const text = codec.encode({ kind: 'tools', digest: 'd', offset: 1 });
    refused(codec, text, 'prompts', /made for another list than prompts/);
    refused(codec, text, 'resources', /another list/);
  });

  test('refuses a signed payload that is not a cursor, or whose offset is negative or not an integer', () => {
    const codec = new CursorCodec(KEY);
    assert.deepEqual(codec.decode(forge('["tools","d",2]'), 'tools'), { kind: 'tools', digest: 'd', offset: 2 });
    refused(codec, forge('not json'), 'tools', /malformed/);
    refused(codec, forge('{"kind":"tools","digest":"d","offset":2}'), 'tools', /malformed/);
    refused(codec, forge('["tools","d"]'), 'tools', /malformed/);
    refused(codec, forge('["tools","d",2,3]'), 'tools', /malformed/);
    refused(codec, forge('[1,"d",2]'), 'tools', /malformed/);
    refused(codec, forge('["tools",null,2]'), 'tools', /malformed/);
    refused(codec, forge('["tools","d",-1]'), 'tools', /bad offset/);
    refused(codec, forge('["tools","d",1.5]'), 'tools', /bad offset/);
    refused(codec, forge('["tools","d","2"]'), 'tools', /bad offset/);
    refused(codec, forge('["tools","d",1e300]'), 'tools', /bad offset/);
  });
});

describe('listDigest', () => {
  test('is short, URL-safe and the same for the same names in the same order', () => {
    const digest = listDigest(['echo', 'get-sum']);
    assert.match(digest, /^[A-Za-z0-9_-]{16}$/);
    assert.equal(listDigest(['echo', 'get-sum']), digest);
    assert.equal(listDigest(new Set(['echo', 'get-sum'])), digest);
    assert.equal(listDigest((function* () { yield 'echo'; yield 'get-sum'; })()), digest);
  });

  test('is pinned: the same in every process (checked against Python\'s hashlib)', () => {
    // base64url(sha256("4:echo7:get-sum")[:12])
    assert.equal(listDigest(['echo', 'get-sum']), 'Cszf9W6Nzx00-mAD');
  });

  test('changes when a name is added, removed, renamed or moved, and tells ["ab"] from ["a", "b"]', () => {
    const base = listDigest(['a', 'b', 'c']);
    const others = [
      listDigest(['a', 'b', 'c', 'd']),
      listDigest(['a', 'b']),
      listDigest(['a', 'b', 'x']),
      listDigest(['b', 'a', 'c']),
      listDigest(['ab', 'c']),
      listDigest(['a', 'bc']),
      listDigest([]),
    ];
    assert.equal(new Set([base, ...others]).size, others.length + 1);
  });
});

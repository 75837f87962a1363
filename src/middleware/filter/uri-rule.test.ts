import assert from 'node:assert/strict';
import { posix } from 'node:path';
import { describe, test } from 'node:test';
import { normalizeUri, uriForms } from './normalize-uri.js';
import { uriRule, type NamesOf } from './uri-rule.js';

const none: NamesOf = () => [];

/** A small seeded generator (mulberry32), so every run tries the same cases. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEGMENTS = ['allowed', 'etc', 'passwd', 'x', '', '.', '..', '%2e', '%2E%2e', '.%2e', '%2e.', '..%2F', '%2F', '%2f..', '%5C', '\\', '..\\', '%41', '%zz', '%', '%252e', '~', '%7E', 'a b', '%C3%A9'];
const PREFIXES = ['file:///', 'FILE:///', 'file://localhost/', 'File://LocalHost/', 'file:/', 'file:////', 'file:/%2f', 'file:%2F%2F%2F', 'file:///allowed/', 'file:///allowed/../', 'file:///allowed%2F..%2F'];

/** A uri of tricky pieces. */
function generated(next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const count = 1 + Math.floor(next() * 6);
  const segments = Array.from({ length: count }, () => pick(SEGMENTS));
  return pick(PREFIXES) + segments.join(pick(['/', '/', '/', '\\', '//']));
}

/**
 * The local file a lenient server would open for a `file:` uri (`undefined`: one on another
 * host): every valid escape decoded once, `\\` as `/`, the path resolved as POSIX does.
 */
function reference(uri: string): string | undefined {
  let path = uri.replace(/^file:/iu, '');
  if (path.startsWith('//')) {
    const end = path.indexOf('/', 2);
    const host = path.slice(2, end < 0 ? undefined : end);
    if (host !== '' && host.toLowerCase() !== 'localhost') return undefined;
    path = end < 0 ? '/' : path.slice(end);
  }
  const decoded = path.replace(/%([0-9A-Fa-f]{2})/gu, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))).replace(/\\/gu, '/');
  return posix.resolve('/', decoded);
}

describe('uriRule', () => {
  test('deny wins for any form: raw, normal or decoded', () => {
    const rule = uriRule({ deny: ['file:///etc/*'] });
    for (const uri of ['file:///etc/passwd', 'file:///x/../etc/passwd', 'FILE:///etc/passwd', 'file:///x/..%2Fetc/passwd', 'file://localhost/etc/passwd', 'file:////etc/passwd', 'file:///etc/../x']) {
      assert.equal(rule.visible(uriForms(uri), none), false, uri);
      assert.equal(rule.byUri(uriForms(uri)), false, uri);
    }
    assert.equal(rule.visible(uriForms('file:///docs/a'), none), true);
  });

  test('allow must hold for the normal and the decoded form', () => {
    const rule = uriRule({ allow: ['file:///allowed/*'] });
    for (const uri of ['file:///allowed/../etc/passwd', 'file:///allowed/%2e%2e/etc/passwd', 'FILE:///allowed/..%2Fetc/passwd', 'file:///allowed/..%5Cetc', 'file:///allowed\\..\\etc']) {
      assert.equal(rule.visible(uriForms(uri), none), false, uri);
      assert.equal(rule.byUri(uriForms(uri)), undefined, uri);
    }
    for (const uri of ['file:///allowed/a.txt', 'FILE:///allowed/%61.txt', 'file://localhost/allowed/a', 'file:///allowed/x/../y', 'file:///allowed/a%2Fb']) {
      assert.equal(rule.visible(uriForms(uri), none), true, uri);
      assert.equal(rule.byUri(uriForms(uri)), true, uri);
    }
  });

  test('names count only where every resource listed under the form is allowed, and a denied name anywhere hides', () => {
    const allow = uriRule({ allow: ['public'] });
    const shared: NamesOf = (form) => (form === 'file:///a' ? ['public', 'private'] : []);
    assert.equal(allow.visible(uriForms('file:///a'), shared), false);
    assert.equal(allow.visible(uriForms('file:///a'), (form) => (form === 'file:///a' ? ['public'] : [])), true);
    const deny = uriRule({ deny: ['private'] });
    assert.equal(deny.visible(uriForms('file:///x/..%2Fa'), (form) => (form === 'file:///a' ? ['private'] : [])), false);
  });

  test('rules written in another spelling still match their normal form', () => {
    const rule = uriRule({ allow: ['FILE:///%7Eme/*'], deny: ['HTTPS://Example.com:443/secret*'] });
    assert.equal(rule.visible(uriForms('file:///~me/a'), none), true);
    assert.equal(rule.visible(uriForms('https://example.com/secret/x'), none), false);
  });

  test('property: over generated uris, the normalizer never throws, is idempotent, and no allowed uri reads outside the allowed tree', () => {
    const next = random(0x5eed);
    const allow = uriRule({ allow: ['file:///allowed/*'] });
    const deny = uriRule({ deny: ['file:///etc/*', 'file:///etc'] });
    let allowedSeen = 0;
    let deniedSeen = 0;
    for (let i = 0; i < 20_000; i++) {
      const uri = generated(next);
      const forms = uriForms(uri);
      assert.equal(normalizeUri(forms.normal), forms.normal, uri);
      assert.equal(uriForms(forms.decoded).decoded, forms.decoded, uri);
      // The decoded path: no separators left encoded, no dot segments, no runs of `/`.
      assert.doesNotMatch(forms.decoded.replace(/^file:\/\//u, ''), /\\|%2F|%5C|\/\.{1,2}(\/|$)|\/\//iu, uri);

      const file = reference(uri);
      if (allow.visible(forms, none)) {
        allowedSeen++;
        assert.ok(file === undefined || file === '/allowed' || file.startsWith('/allowed/'), `${uri} is allowed but reads ${file}`);
      }
      if (file !== undefined && (file === '/etc' || file.startsWith('/etc/'))) {
        deniedSeen++;
        assert.equal(deny.visible(forms, none), false, `${uri} reads ${file} but is not denied`);
        assert.equal(deny.byUri(forms), false, uri);
      }
    }
    // The generator reaches both sides.
    assert.ok(allowedSeen > 100 && deniedSeen > 100, `allowed ${allowedSeen}, denied ${deniedSeen}`);
  });

  test('property: random bytes never make the normalizer throw', () => {
    const next = random(42);
    const alphabet = '%%%/\\.:?#@[]aZ09~\u00e9\ud83d\ude00 fF2eE5cC';
    for (let i = 0; i < 20_000; i++) {
      const length = Math.floor(next() * 24);
      let uri = '';
      for (let j = 0; j < length; j++) uri += alphabet[Math.floor(next() * alphabet.length)];
      const forms = uriForms(uri);
      assert.equal(typeof forms.normal, 'string');
      assert.equal(typeof forms.decoded, 'string');
    }
  });
});

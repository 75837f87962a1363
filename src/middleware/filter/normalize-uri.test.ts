import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeUri, removeDotSegments, uriForms, uriPatternForms } from './normalize-uri.js';

/** [uri, normal form, decoded form]. */
const CASES: readonly (readonly [string, string, string])[] = [
  // Already normal.
  ['file:///docs/readme.md', 'file:///docs/readme.md', 'file:///docs/readme.md'],
  ['db://rows/1', 'db://rows/1', 'db://rows/1'],
  // Dot segments (RFC 3986 §5.2.4), plain and encoded.
  ['file:///allowed/../etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd'],
  ['file:///allowed/./x/../y', 'file:///allowed/y', 'file:///allowed/y'],
  ['file:///allowed/%2e%2e/etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd'],
  ['file:///allowed/.%2E/etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd'],
  ['file:///a/b/..', 'file:///a/', 'file:///a/'],
  ['file:///../../etc', 'file:///etc', 'file:///etc'],
  ['file:///a/..x/..y', 'file:///a/..x/..y', 'file:///a/..x/..y'],
  // Encoded separators stay encoded in the normal form; the decoded form reads them as `/`.
  ['FILE:///allowed/..%2Fetc/passwd', 'file:///allowed/..%2Fetc/passwd', 'file:///etc/passwd'],
  ['file:///allowed/..%2fetc', 'file:///allowed/..%2Fetc', 'file:///etc'],
  ['file:///allowed/..%5Cetc', 'file:///allowed/..%5Cetc', 'file:///etc'],
  ['file:///a%2Fb', 'file:///a%2Fb', 'file:///a/b'],
  // Windows-ish paths: `\` is a separator only in the decoded form; drive letters kept.
  ['file:///C:/Users/me/../Public', 'file:///C:/Users/Public', 'file:///C:/Users/Public'],
  ['file:///C:\\allowed\\..\\secret', 'file:///C:\\allowed\\..\\secret', 'file:///C:/secret'],
  ['file:///C:%5Callowed%5C..%5Csecret', 'file:///C:%5Callowed%5C..%5Csecret', 'file:///C:/secret'],
  ['C:\\allowed\\..\\x', 'c:\\allowed\\..\\x', 'c:/x'],
  // Hosts: lower-cased; `file://localhost/` is `file:///`; other hosts kept.
  ['file://localhost/etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd'],
  ['file://LOCALHOST/etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd'],
  ['file://Server/share/x', 'file://server/share/x', 'file://server/share/x'],
  ['file:/etc/passwd', 'file:///etc/passwd', 'file:///etc/passwd'],
  ['HTTPS://API.Example.COM/A/b', 'https://api.example.com/A/b', 'https://api.example.com/A/b'],
  ['https://user:Pw@Host/x', 'https://user:Pw@host/x', 'https://user:Pw@host/x'],
  // Default ports dropped, others kept; an empty port dropped.
  ['https://example.com:443/x', 'https://example.com/x', 'https://example.com/x'],
  ['http://example.com:80/x', 'http://example.com/x', 'http://example.com/x'],
  ['http://example.com:0080/x', 'http://example.com/x', 'http://example.com/x'],
  ['http://example.com:/x', 'http://example.com/x', 'http://example.com/x'],
  ['https://example.com:8443/x', 'https://example.com:8443/x', 'https://example.com:8443/x'],
  ['http://[::1]:80/x', 'http://[::1]/x', 'http://[::1]/x'],
  ['http://[::1]/x', 'http://[::1]/x', 'http://[::1]/x'],
  // `//` in a path: kept in the normal form (RFC 3986), one `/` in the decoded form.
  ['file:////etc/passwd', 'file:////etc/passwd', 'file:///etc/passwd'],
  ['file:///allowed//x', 'file:///allowed//x', 'file:///allowed/x'],
  ['file:///a//../b', 'file:///a/b', 'file:///b'],
  // Percent-decoding: unreserved and path characters decoded, others upper-cased; UTF-8 decoded.
  ['file:///%7Euser/%41%62c', 'file:///~user/Abc', 'file:///~user/Abc'],
  ['file:///a%3Ab%40c%21', 'file:///a:b@c!', 'file:///a:b@c!'],
  ['file:///a%20b/%3f/%23/%25', 'file:///a%20b/%3F/%23/%25', 'file:///a%20b/%3F/%23/%25'],
  ['file:///s%C3%A9cret', 'file:///sécret', 'file:///sécret'],
  ['file:///%252e%252e/x', 'file:///%252e%252e/x', 'file:///%252e%252e/x'],
  ['http://%41%42.example/x', 'http://ab.example/x', 'http://ab.example/x'],
  // Invalid escapes are kept as written, never thrown on.
  ['file:///a%zz/%', 'file:///a%zz/%', 'file:///a%zz/%'],
  ['file:///a%C3', 'file:///a%C3', 'file:///a%C3'],
  ['file:///a%FF%FE/b', 'file:///a%FF%FE/b', 'file:///a%FF%FE/b'],
  ['file:///%e2%82', 'file:///%E2%82', 'file:///%E2%82'],
  // Query and fragment are kept out of path normalization.
  ['https://Example.com/a/../b?x=../y&z=%2e#/../f', 'https://example.com/b?x=../y&z=%2e#/../f', 'https://example.com/b?x=../y&z=%2e#/../f'],
  ['db://rows/./1?\\..\\', 'db://rows/1?\\..\\', 'db://rows/1?\\..\\'],
  // No scheme, rootless paths, odd inputs.
  ['', '', ''],
  ['relative/../x', 'x', 'x'],
  ['mid/content=5/../6', 'mid/6', 'mid/6'],
  ['urn:isbn:0451450523', 'urn:isbn:0451450523', 'urn:isbn:0451450523'],
  ['1abc:/x/../y', '1abc:/y', '1abc:/y'],
  // Forms that would read otherwise if written bare (found by fuzzing: normalizing them twice changed them again).
  ['a:%2e///%5c', 'a:/.//%5C', 'a:'],
  ['A%30:', './A0:', './A0:'],
  ['a%3Ab/x', './a:b/x', './a:b/x'],
  ['file://localhost::/x', 'file:///x', 'file:///x'],
  ['http://h::80/x', 'http://h/x', 'http://h/x'],
  ['http://h:81:80/x', 'http://h:81/x', 'http://h:81/x'],
  ['http://A%5cB%41/x', 'http://a%5Cba/x', 'http://a/BA/x'],
];

describe('normalizeUri', () => {
  for (const [uri, normal, decoded] of CASES) {
    test(`${JSON.stringify(uri)} → ${JSON.stringify(normal)} (decoded ${JSON.stringify(decoded)})`, () => {
      assert.equal(normalizeUri(uri), normal);
      assert.deepEqual(uriForms(uri), { raw: uri, normal, decoded });
    });
  }

  test('is idempotent on every table case, for both forms', () => {
    for (const [uri] of CASES) {
      const { normal, decoded } = uriForms(uri);
      assert.equal(normalizeUri(normal), normal, uri);
      assert.equal(uriForms(decoded).decoded, decoded, uri);
    }
  });

  test('removeDotSegments follows the examples of RFC 3986 §5.2.4', () => {
    assert.equal(removeDotSegments('/a/b/c/./../../g'), '/a/g');
    assert.equal(removeDotSegments('mid/content=5/../6'), 'mid/6');
    assert.equal(removeDotSegments('/.'), '/');
    assert.equal(removeDotSegments('/..'), '/');
    assert.equal(removeDotSegments('/a/./'), '/a/');
    assert.equal(removeDotSegments('/a//..'), '/a/');
  });

  test('a pattern matches as written and in normal form, unless normalizing made a wildcard', () => {
    assert.deepEqual(uriPatternForms('file:///docs/*'), ['file:///docs/*']);
    assert.deepEqual(uriPatternForms('FILE:///%7Ea/*'), ['FILE:///%7Ea/*', 'file:///~a/*']);
    assert.deepEqual(uriPatternForms('file:///a%2A'), ['file:///a%2A']);
  });
});

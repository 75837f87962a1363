import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uriTemplateMatcher } from './uri-template.js';

function assertMatches(template: string, uris: readonly string[]): void {
  const matches = uriTemplateMatcher(template);
  for (const uri of uris) assert.equal(matches(uri), true, `${template} should match ${uri}`);
}

function assertRefuses(template: string, uris: readonly string[]): void {
  const matches = uriTemplateMatcher(template);
  for (const uri of uris) assert.equal(matches(uri), false, `${template} should not match ${uri}`);
}

/**
 * Every example of RFC 6570 section 3.2, template and expansion, with the RFC's variables:
 * count := ("one", "two", "three"), dom := ("example", "com"), dub := "me/too",
 * hello := "Hello World!", half := "50%", var := "value", who := "fred",
 * base := "http://example.com/home/", path := "/foo/bar", list := ("red", "green", "blue"),
 * keys := [("semi", ";"), ("dot", "."), ("comma", ",")], v := "6", x := "1024", y := "768",
 * empty := "", empty_keys := [], undef := null.
 */
const RFC_EXAMPLES: readonly (readonly [string, string])[] = [
  // 3.2.1 Variable expansion
  ['{count}', 'one,two,three'], ['{count*}', 'one,two,three'], ['{/count}', '/one,two,three'],
  ['{/count*}', '/one/two/three'], ['{;count}', ';count=one,two,three'], ['{;count*}', ';count=one;count=two;count=three'],
  ['{?count}', '?count=one,two,three'], ['{?count*}', '?count=one&count=two&count=three'],
  ['{&count*}', '&count=one&count=two&count=three'],
  // 3.2.2 Simple string expansion
  ['{var}', 'value'], ['{hello}', 'Hello%20World%21'], ['{half}', '50%25'], ['O{empty}X', 'OX'], ['O{undef}X', 'OX'],
  ['{x,y}', '1024,768'], ['{x,hello,y}', '1024,Hello%20World%21,768'], ['?{x,empty}', '?1024,'], ['?{x,undef}', '?1024'],
  ['?{undef,y}', '?768'], ['{var:3}', 'val'], ['{var:30}', 'value'], ['{list}', 'red,green,blue'], ['{list*}', 'red,green,blue'],
  ['{keys}', 'semi,%3B,dot,.,comma,%2C'], ['{keys*}', 'semi=%3B,dot=.,comma=%2C'],
  // 3.2.3 Reserved expansion
  ['{+var}', 'value'], ['{+hello}', 'Hello%20World!'], ['{+half}', '50%25'], ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
  ['{+base}index', 'http://example.com/home/index'], ['O{+empty}X', 'OX'], ['O{+undef}X', 'OX'], ['{+path}/here', '/foo/bar/here'],
  ['here?ref={+path}', 'here?ref=/foo/bar'], ['up{+path}{var}/here', 'up/foo/barvalue/here'], ['{+x,hello,y}', '1024,Hello%20World!,768'],
  ['{+path,x}/here', '/foo/bar,1024/here'], ['{+path:6}/here', '/foo/b/here'], ['{+list}', 'red,green,blue'], ['{+list*}', 'red,green,blue'],
  ['{+keys}', 'semi,;,dot,.,comma,,'], ['{+keys*}', 'semi=;,dot=.,comma=,'],
  // 3.2.4 Fragment expansion
  ['{#var}', '#value'], ['{#hello}', '#Hello%20World!'], ['{#half}', '#50%25'], ['foo{#empty}', 'foo#'], ['foo{#undef}', 'foo'],
  ['{#x,hello,y}', '#1024,Hello%20World!,768'], ['{#path,x}/here', '#/foo/bar,1024/here'], ['{#path:6}/here', '#/foo/b/here'],
  ['{#list}', '#red,green,blue'], ['{#list*}', '#red,green,blue'], ['{#keys}', '#semi,;,dot,.,comma,,'], ['{#keys*}', '#semi=;,dot=.,comma=,'],
  // 3.2.5 Label expansion with dot-prefix
  ['{.who}', '.fred'], ['{.who,who}', '.fred.fred'], ['{.half,who}', '.50%25.fred'], ['www{.dom*}', 'www.example.com'],
  ['X{.var}', 'X.value'], ['X{.empty}', 'X.'], ['X{.undef}', 'X'], ['X{.var:3}', 'X.val'], ['X{.list}', 'X.red,green,blue'],
  ['X{.list*}', 'X.red.green.blue'], ['X{.keys}', 'X.semi,%3B,dot,.,comma,%2C'], ['X{.keys*}', 'X.semi=%3B.dot=..comma=%2C'],
  ['X{.empty_keys}', 'X'], ['X{.empty_keys*}', 'X'],
  // 3.2.6 Path segment expansion
  ['{/who}', '/fred'], ['{/who,who}', '/fred/fred'], ['{/half,who}', '/50%25/fred'], ['{/who,dub}', '/fred/me%2Ftoo'],
  ['{/var}', '/value'], ['{/var,empty}', '/value/'], ['{/var,undef}', '/value'], ['{/var,x}/here', '/value/1024/here'],
  ['{/var:1,var}', '/v/value'], ['{/list}', '/red,green,blue'], ['{/list*}', '/red/green/blue'], ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
  ['{/keys}', '/semi,%3B,dot,.,comma,%2C'], ['{/keys*}', '/semi=%3B/dot=./comma=%2C'],
  // 3.2.7 Path-style parameter expansion
  ['{;who}', ';who=fred'], ['{;half}', ';half=50%25'], ['{;empty}', ';empty'], ['{;v,empty,who}', ';v=6;empty;who=fred'],
  ['{;v,bar,who}', ';v=6;who=fred'], ['{;x,y}', ';x=1024;y=768'], ['{;x,y,empty}', ';x=1024;y=768;empty'], ['{;x,y,undef}', ';x=1024;y=768'],
  ['{;hello:5}', ';hello=Hello'], ['{;list}', ';list=red,green,blue'], ['{;list*}', ';list=red;list=green;list=blue'],
  ['{;keys}', ';keys=semi,%3B,dot,.,comma,%2C'], ['{;keys*}', ';semi=%3B;dot=.;comma=%2C'],
  // 3.2.8 Form-style query expansion
  ['{?who}', '?who=fred'], ['{?half}', '?half=50%25'], ['{?x,y}', '?x=1024&y=768'], ['{?x,y,empty}', '?x=1024&y=768&empty='],
  ['{?x,y,undef}', '?x=1024&y=768'], ['{?var:3}', '?var=val'], ['{?list}', '?list=red,green,blue'],
  ['{?list*}', '?list=red&list=green&list=blue'], ['{?keys}', '?keys=semi,%3B,dot,.,comma,%2C'], ['{?keys*}', '?semi=%3B&dot=.&comma=%2C'],
  // 3.2.9 Form-style query continuation
  ['{&who}', '&who=fred'], ['{&half}', '&half=50%25'], ['?fixed=yes{&x}', '?fixed=yes&x=1024'], ['{&x,y,empty}', '&x=1024&y=768&empty='],
  ['{&var:3}', '&var=val'], ['{&list}', '&list=red,green,blue'], ['{&list*}', '&list=red&list=green&list=blue'],
  ['{&keys}', '&keys=semi,%3B,dot,.,comma,%2C'], ['{&keys*}', '&semi=%3B&dot=.&comma=%2C'],
];

describe('uriTemplateMatcher', () => {
  test('matches every expansion in RFC 6570 section 3.2 (levels 1 to 4)', () => {
    assert.equal(RFC_EXAMPLES.length, 114);
    for (const [template, expansion] of RFC_EXAMPLES) assertMatches(template, [expansion]);
  });

  test('server-everything\'s templates: one segment each, text and blob kept apart', () => {
    const text = 'demo://resource/dynamic/text/{resourceId}';
    const blob = 'demo://resource/dynamic/blob/{resourceId}';
    assertMatches(text, ['demo://resource/dynamic/text/1', 'demo://resource/dynamic/text/42', 'demo://resource/dynamic/text/a-b.c_d~e', 'demo://resource/dynamic/text/a%2Fb', 'demo://resource/dynamic/text/']);
    assertRefuses(text, [
      'demo://resource/dynamic/blob/1', 'demo://resource/dynamic/text/1/2', 'demo://resource/dynamic/text/1?x=1',
      'demo://resource/dynamic/text/1#top', 'demo://resource/dynamic/text/a b', 'demo://resource/dynamic/text/a:b',
      'demo://resource/dynamic/text', 'demo://resource/static/document/architecture.md', 'xdemo://resource/dynamic/text/1',
      'demo://resource/dynamic/text/1 ', 'DEMO://resource/dynamic/text/1',
    ]);
    assertMatches(blob, ['demo://resource/dynamic/blob/7']);
    assertRefuses(blob, ['demo://resource/dynamic/text/7']);
  });

  test('a path template ({+path}) takes slashes and reserved characters, but only under its literal start', () => {
    const files = 'file:///{+path}';
    assertMatches(files, ['file:///tmp/a.txt', 'file:///', 'file:///C:/Users/me/x.md', 'file:///a%20b/c', 'file:///a/b?version=2#L10', 'file:///d/é.txt']);
    assertRefuses(files, ['file://host/x', 'http:///x', 'file:///a b', 'file:///a{b}', 'file:///a"b', 'file:///a\\b', 'file:///a%zz']);
  });

  test('a simple variable takes one segment of unreserved or percent-encoded characters, nothing reserved', () => {
    assertMatches('users://{id}/profile', ['users://42/profile', 'users://a%3Ab/profile', 'users://Zoë/profile']);
    assertRefuses('users://{id}/profile', ['users://a/b/profile', 'users://a:b/profile', 'users://a@b/profile', 'users://a?b/profile', 'users://a%2/profile', 'users://42/profile/']);
  });

  test('several variables in a row and literals between them', () => {
    const template = 'repo://{owner}/{repo}/issues/{number}';
    assertMatches(template, ['repo://octo/hello-world/issues/1']);
    assertRefuses(template, ['repo://octo/hello-world/pulls/1', 'repo://octo/issues/1', 'repo://octo/a/b/issues/1']);
    assertMatches('db://{schema}.{table}', ['db://public.users']);
  });

  test('literal parts are literal: regular expression characters mean themselves', () => {
    assertMatches('a.b(c)*[d]+{x}$', ['a.b(c)*[d]+1$']);
    assertRefuses('a.b(c)*[d]+{x}$', ['aXb(c)*[d]+1$', 'a.bc*[d]+1$', 'a.b(c)[d]+1$']);
    assertMatches('^{x}|y', ['^1|y', '^1%7Cy']);
    assertRefuses('^{x}|y', ['1', 'y']);
  });

  test('a literal character the RFC would encode matches raw or encoded, in either case of hex', () => {
    assertMatches('notes://my notes/{id}', ['notes://my notes/1', 'notes://my%20notes/1']);
    assertMatches('menu://café/{item}', ['menu://café/1', 'menu://caf%C3%A9/1', 'menu://caf%c3%a9/1']);
    assertRefuses('menu://café/{item}', ['menu://cafe/1', 'menu://caf%C3/1']);
  });

  test('a prefix modifier bounds the characters, a percent-encoded UTF-8 character counting as one', () => {
    assertMatches('x://{id:3}', ['x://', 'x://abc', 'x://%C3%A9%C3%A9%C3%A9', 'x://ééé', 'x://a%20b', 'x://%E2%82%AC%F0%9F%98%80a']);
    assertRefuses('x://{id:3}', ['x://abcd', 'x://%C3%A9%C3%A9%C3%A9%C3%A9', 'x://éééé', 'x://a/b']);
    assertMatches('x://{+path:4}/end', ['x://a/b//end']);
    assertRefuses('x://{+path:4}/end', ['x://a/bcd/end']);
  });

  test('prefixes up to 64 are enforced; longer ones are taken as no limit', () => {
    assertMatches('x://{id:64}', [`x://${'a'.repeat(64)}`]);
    assertRefuses('x://{id:64}', [`x://${'a'.repeat(65)}`]);
    assertMatches('x://{id:65}', [`x://${'a'.repeat(200)}`]);
    assertRefuses('x://{id:65}', ['x://a/b']);
  });

  test('tells apart the templates of several servers, as routing a read needs', () => {
    const templates = [
      'demo://resource/dynamic/text/{resourceId}',
      'demo://resource/dynamic/blob/{resourceId}',
      'file:///{+path}',
      'github://repos/{owner}/{repo}{/path*}{?ref}',
      'greeting://{name}',
    ];
    const matchers = templates.map((template) => uriTemplateMatcher(template));
    const owners = (uri: string): string[] => templates.filter((_, i) => matchers[i]?.(uri) === true);
    assert.deepEqual(owners('demo://resource/dynamic/text/3'), [templates[0]]);
    assert.deepEqual(owners('demo://resource/dynamic/blob/3'), [templates[1]]);
    assert.deepEqual(owners('file:///home/me/notes.md'), [templates[2]]);
    assert.deepEqual(owners('github://repos/octo/hello'), [templates[3]]);
    assert.deepEqual(owners('github://repos/octo/hello/src/index.ts?ref=main'), [templates[3]]);
    assert.deepEqual(owners('greeting://World'), [templates[4]]);
    assert.deepEqual(owners('greeting://Hello/World'), []);
    assert.deepEqual(owners('demo://resource/static/document/architecture.md'), []);
    assert.deepEqual(owners('github://repos/octo'), []);
  });

  test('path segments ({/a}) need their slash; one variable is one segment, an exploded one many', () => {
    assertMatches('api://v1{/resource}', ['api://v1', 'api://v1/users', 'api://v1/a,b']);
    assertRefuses('api://v1{/resource}', ['api://v1users', 'api://v1/users/1', 'api://v1/users?x=1']);
    assertMatches('api://v1{/segments*}', ['api://v1/a/b/c']);
    assertRefuses('api://v1{/segments*}', ['api://v1/a/b?c']);
  });

  test('labels ({.a}) need their dot', () => {
    assertMatches('host://www{.domain*}', ['host://www.example.com', 'host://www']);
    assertRefuses('host://www{.domain*}', ['host://wwwexample', 'host://www.example/com']);
  });

  test('queries take only the template\'s names, in any order, each once or more; exploded ones take any name', () => {
    const search = 'search://items{?q,page}';
    assertMatches(search, ['search://items', 'search://items?q=shoes', 'search://items?q=shoes&page=2', 'search://items?page=2&q=shoes', 'search://items?q=']);
    assertRefuses(search, ['search://items?sort=asc', 'search://items?q=shoes&sort=asc', 'search://items?q', 'search://items?q=a&', 'search://itemsq=a', 'search://items?q=a#x', 'search://items?q=a=b']);
    assertMatches('search://items{?filters*}', ['search://items?color=red&size=9']);
    assertRefuses('search://items{?filters*}', ['search://items?color', 'search://items?=red']);
    assertMatches('search://items?fixed=1{&q}', ['search://items?fixed=1', 'search://items?fixed=1&q=a']);
    assertRefuses('search://items?fixed=1{&q}', ['search://items?fixed=1&r=a', 'search://items?fixed=1?q=a']);
    assertMatches('s://x{?a}{&b}', ['s://x?a=1&b=2', 's://x?a=1']);
    assertRefuses('s://x{?a}{&b}', ['s://x?b=2&a=1&c=3']);
  });

  test('path-style parameters ({;a}) take the template\'s names, with or without a value', () => {
    assertMatches('map://tile{;x,y,zoom}', ['map://tile', 'map://tile;x=1;y=2', 'map://tile;zoom', 'map://tile;zoom=3;x=1']);
    assertRefuses('map://tile{;x,y,zoom}', ['map://tile;z=1', 'map://tilex=1', 'map://tile;x=1/2']);
  });

  test('a fragment ({#a}) needs its #, and takes reserved characters', () => {
    assertMatches('doc://readme{#section}', ['doc://readme', 'doc://readme#install', 'doc://readme#a/b?c']);
    assertRefuses('doc://readme{#section}', ['doc://readmeinstall', 'doc://readme#a b']);
  });

  test('accepts every legal variable name form', () => {
    assertMatches('x://{a.b}/{a%20b}/{_x}/{A_1:2}/{z*}', ['x://1/2/3/ab/4']);
  });

  test('a template with a reserved operator, a bad name or modifier, unbalanced braces, or absurdly large matches nothing and does not throw', () => {
    for (const template of [
      '{', '}', 'a{b', 'a}b', '{a}}', '{{a}}', '{}', '{+}', '{a b}', '{a,}', '{,a}', '{=a}', '{!a}', '{@a}', '{|a}',
      '{a:0}', '{a:10000}', '{a:01}', '{a**}', '{a*:3}', '{a:3*}', '{a..b}', '{.a.}', '{a-b}', '{a%2}', '{$a}',
    ]) {
      const matches = uriTemplateMatcher(template);
      for (const uri of ['', 'a', template, '{a}', 'ab', 'a b']) assert.equal(matches(uri), false, `${template} matched ${uri}`);
    }
    const huge = uriTemplateMatcher('x'.repeat(100_000));
    assert.equal(huge('x'.repeat(100_000)), false);
    const manyPrefixes = uriTemplateMatcher(Array.from({ length: 200 }, (_, i) => `{v${i}:64}`).join('/'));
    assert.equal(manyPrefixes('a/b'), false);
    const manyNames = uriTemplateMatcher(`q://x{?${Array.from({ length: 1000 }, (_, i) => `v${i}`).join(',')}}`);
    assert.equal(manyNames('q://x?v999=1&v0=2'), true, 'a long list of names is fine');
    const notAString = uriTemplateMatcher(42 as unknown as string);
    assert.equal(notAString('42'), false);
  });

  test('a template without expressions matches itself only', () => {
    assertMatches('config://app/settings', ['config://app/settings']);
    assertRefuses('config://app/settings', ['config://app/settings/', 'config://app/setting', '']);
    assertMatches('', ['']);
  });

  test('refuses what is not a string, and URIs past 8 KiB', () => {
    const matches = uriTemplateMatcher('file:///{+path}');
    assert.equal(matches(undefined as unknown as string), false);
    assert.equal(matches(`file:///${'a'.repeat(8000)}`), true);
    assert.equal(matches(`file:///${'a'.repeat(8200)}`), false);
  });

  test('answers quickly on hostile input: long runs that almost match, against templates with adjacent expressions', () => {
    // A backtracking regular expression takes minutes on 'x{+a}{+b}{+c}!' against 8 000 'a's and a
    // space; the automaton reads each URI once. (No timing asserted: a regression shows as a hang.)
    const runs = ['%80'.repeat(2700), '%C3%A9'.repeat(1350), 'a'.repeat(8000), '/a'.repeat(4000), 'a='.repeat(4000), `;a${'='.repeat(4000)}`, '&a=1'.repeat(2000)];
    const templates = ['x{a:9999}!', 'x{a:64}{b:64}{c:64}!', 'x{+a}{+b}!', 'x{+a}{+b}{+c}!', 'x{+a}/{+b}/{+c}!', 'x{/a*}{/b*}{/c*}!', 'x{?a*}!', 'x{?a,b,c}{&d*}!', 'x{;a,b}!', 'x{a}{b}!', 'x{.a}{.b}{c}!'];
    for (const template of templates) {
      const matches = uriTemplateMatcher(template);
      for (const run of runs) assert.equal(matches(`x${run} `), false);
    }
  });

  test('compiles once: the matcher is reusable and keeps no state between calls', () => {
    const matches = uriTemplateMatcher('demo://resource/dynamic/text/{resourceId}');
    for (let i = 0; i < 3; i++) {
      assert.equal(matches('demo://resource/dynamic/text/1'), true);
      assert.equal(matches('demo://resource/dynamic/text/1/2'), false);
    }
  });
});

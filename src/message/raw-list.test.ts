import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from './jsonrpc.js';
import { lazyMessage } from './lazy-message.js';
import { encodeMessage, serializeMessage } from './raw-json.js';
import type { RawItem} from './raw-list.js';
import { objectOfTexts, rawItemsOf, withMembers } from './raw-list.js';

/** A tools/list result as a server writes it, read lazily as the stdio transport reads it. */
function readResult(text: string): JsonObject {
  const message = lazyMessage(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${text}}`));
  assert.ok(message !== undefined, 'the line is one JSON object');
  return message.result as JsonObject;
}

/** The JSON text of raw items, as a merged list writes them. */
function textOf(items: readonly RawItem[]): string {
  return serializeMessage({ jsonrpc: '2.0', id: 1, result: objectOfTexts([['tools', items]]) }).slice('{"jsonrpc":"2.0","id":1,"result":'.length, -1);
}

const tools = [
  { name: 'search', description: 'Finds é — 😀 "quoted" \\ things', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
  { description: 'name last', inputSchema: {}, name: 'fetch' },
  { name: 'esc\u00e9aped\n', annotations: { readOnlyHint: true } },
];

describe('rawItemsOf: the object items of a list read off the wire, as bytes', () => {
  test('gives one item per object element, whose members read as JSON.parse reads them', () => {
    const result = readResult(JSON.stringify({ tools }));
    const items = rawItemsOf(result, 'tools');
    assert.ok(items);
    assert.equal(items.length, 3);
    items.forEach((item, i) => {
      for (const [key, value] of Object.entries(tools[i] as JsonObject)) assert.deepEqual(item.get(key), value, `${i}.${key}`);
      assert.equal(item.get('missing'), undefined);
    });
  });

  test('unchanged items come out as the very bytes the server sent (spacing, escapes, key order)', () => {
    const text = '{ "tools" : [ {"name":"a","x":"\\u00e9\\"" , "y" : [1, 2]} ,{"name":"b"}\t] }';
    const items = rawItemsOf(readResult(text), 'tools');
    assert.ok(items);
    assert.equal(textOf(items), '{"tools":[{"name":"a","x":"\\u00e9\\"" , "y" : [1, 2]},{"name":"b"}]}');
  });

  test('skips elements that are not objects, as a list reader does', () => {
    const items = rawItemsOf(readResult('{"tools":[1,"x",null,[{"name":"deep"}],{"name":"kept"},true]}'), 'tools');
    assert.deepEqual(items?.map((item) => item.get('name')), ['kept']);
  });

  test('reads the last of a duplicated key, as JSON.parse does (the list and an item member)', () => {
    const items = rawItemsOf(readResult('{"tools":[{"name":"old"}],"tools":[{"name":"a","name":"b"}]}'), 'tools');
    assert.deepEqual(items?.map((item) => item.get('name')), ['b']);
  });

  test('is undefined for a result not read lazily, one changed since, a missing key or a non-array', () => {
    assert.equal(rawItemsOf({ tools: [{ name: 'x' }] }, 'tools'), undefined);
    const changed = readResult('{"tools":[{"name":"a"}]}');
    changed.tools = [];
    assert.equal(rawItemsOf(changed, 'tools'), undefined);
    const added = readResult('{"tools":[{"name":"a"}]}');
    added.extra = 1;
    assert.equal(rawItemsOf(added, 'tools'), undefined);
    assert.equal(rawItemsOf(readResult('{"prompts":[]}'), 'tools'), undefined);
    assert.equal(rawItemsOf(readResult('{"tools":{"name":"a"}}'), 'tools'), undefined);
  });
});

describe('RawItem.with: a member replaced without touching the rest', () => {
  const original = { name: 'search', description: 'd', inputSchema: { type: 'object' } };
  const [item] = rawItemsOf(readResult(JSON.stringify({ tools: [original] })), 'tools') ?? [];
  assert.ok(item);

  test('means the same as { ...item, name } (the key keeps its place) and reads back the new value', () => {
    const renamed = item.with('name', 'a__search');
    assert.equal(renamed.get('name'), 'a__search');
    assert.equal(textOf([renamed]), JSON.stringify({ tools: [{ ...original, name: 'a__search' }] }));
    assert.equal(item.get('name'), 'search', 'the original item is not changed');
  });

  test('a key the item lacks goes last; a duplicated key is set once, in the place of the first', () => {
    assert.equal(textOf([item.with('title', 'T "x"')]), JSON.stringify({ tools: [{ ...original, title: 'T "x"' }] }));
    const [twice] = rawItemsOf(readResult('{"tools":[{"name":"a","d":1,"name":"b","e":2}]}'), 'tools') ?? [];
    assert.ok(twice);
    const out = JSON.parse(textOf([twice.with('name', 'x')])) as { tools: JsonObject[] };
    assert.deepEqual(out.tools[0], { name: 'x', d: 1, e: 2 });
    assert.deepEqual(Object.keys(out.tools[0] ?? {}), ['name', 'd', 'e']);
    assert.equal(textOf([twice.with('name', 'x')]), '{"tools":[{"name":"x","d":1,"e":2}]}');
  });

  test('an empty item gets the member alone', () => {
    const [empty] = rawItemsOf(readResult('{"tools":[{ }]}'), 'tools') ?? [];
    assert.ok(empty);
    assert.equal(textOf([empty.with('name', 'n')]), '{"tools":[{ "name":"n"}]}');
    assert.deepEqual(JSON.parse(textOf([empty.with('name', 'n')])), { tools: [{ name: 'n' }] });
  });
});

describe('objectOfTexts: a result built from texts', () => {
  test('reads as the object the texts make, goes out as its bytes, and parses a member when read', () => {
    const [raw] = rawItemsOf(readResult('{"tools":[{"name":"r"}]}'), 'tools') ?? [];
    assert.ok(raw);
    const result = objectOfTexts([['tools', [raw, { name: 'parsed', n: 1 }]], ['nextCursor', JSON.stringify('c\u00e9"')]]);
    const expected = { tools: [{ name: 'r' }, { name: 'parsed', n: 1 }], nextCursor: 'c\u00e9"' };
    assert.deepEqual(result, expected);
    assert.deepEqual(Object.keys(result), ['tools', 'nextCursor']);
    const encoded = encodeMessage({ jsonrpc: '2.0', id: 7, result });
    assert.ok(typeof encoded !== 'string', 'spliced: the bytes as built');
    assert.equal(Buffer.concat([Buffer.from(encoded.head), encoded.bytes, Buffer.from(encoded.tail)]).toString(), JSON.stringify({ jsonrpc: '2.0', id: 7, result: expected }));
  });

  test('keys that need escaping are read back as themselves', () => {
    const result = objectOfTexts([['k"\u00e9\n', '1'], ['tools', []]]);
    assert.deepEqual(result, { 'k"\u00e9\n': 1, tools: [] });
  });
});

describe('a page built from raw items is itself read as raw items', () => {
  test('its items (unchanged and renamed) read back as they were written, so a second list reader needs no parse', () => {
    const source = { tools: [{ name: 'a', d: 'é"' }, { x: 1, name: 'b', y: [1, { z: 2 }] }, { name: 'c' }] };
    const items = rawItemsOf(readResult(JSON.stringify(source)), 'tools');
    assert.ok(items);
    const page = objectOfTexts([['tools', [items[0] as RawItem, (items[1] as RawItem).with('name', 'longer name 😀'), (items[2] as RawItem).with('name', '')]], ['nextCursor', '"n"']]);
    const again = rawItemsOf(page, 'tools');
    assert.ok(again, 'the built page knows its items');
    const expected = [{ name: 'a', d: 'é"' }, { x: 1, name: 'longer name 😀', y: [1, { z: 2 }] }, { name: '' }];
    assert.deepEqual(again.map((item) => ({ name: item.get('name'), d: item.get('d'), x: item.get('x'), y: item.get('y') })), expected.map((e) => ({ d: undefined, x: undefined, y: undefined, ...e })));
    const twice = objectOfTexts([['tools', again.map((item) => item.with('name', `p__${String(item.get('name'))}`))]]);
    assert.deepEqual(twice, { tools: expected.map((e) => ({ ...e, name: `p__${e.name}` })) });
  });

  test('a page with an item serialized here, or with several members replaced, is not (it is parsed when read)', () => {
    const items = rawItemsOf(readResult('{"tools":[{"name":"a"}]}'), 'tools') ?? [];
    assert.equal(rawItemsOf(objectOfTexts([['tools', [...items, { name: 'parsed' }]]]), 'tools'), undefined);
    assert.equal(rawItemsOf(objectOfTexts([['tools', items.map((item) => item.with('name', 'x').with('title', 't'))]]), 'tools'), undefined);
    assert.deepEqual(objectOfTexts([['tools', items.map((item) => item.with('name', 'x').with('title', 't'))]]), { tools: [{ name: 'x', title: 't' }] });
  });
});

describe('withMembers: members added, replaced or left out, the rest kept as bytes', () => {
  const text = JSON.stringify({ content: [{ type: 'text', text: 'é'.repeat(3000) }], isError: false, _meta: { a: 1 } });

  test('means { ...object, ...changes } (a change to undefined leaves the member out), with the keys where JSON.parse puts them', () => {
    const changes = { resultType: 'complete', isError: true, _meta: undefined };
    const out = withMembers(readResult(text), changes);
    assert.ok(out !== undefined);
    const expected: JsonObject = { ...(JSON.parse(text) as JsonObject), resultType: 'complete', isError: true };
    delete expected._meta;
    assert.deepEqual(out, expected);
    assert.equal(serializeMessage({ jsonrpc: '2.0', id: 1, result: out }), JSON.stringify({ jsonrpc: '2.0', id: 1, result: expected }));
  });

  test('the result still goes out as bytes (the unchanged members are never parsed)', () => {
    const out = withMembers(readResult(text), { resultType: 'complete' });
    assert.ok(out !== undefined);
    assert.equal(typeof encodeMessage({ jsonrpc: '2.0', id: 1, result: out }), 'object', 'a spliced message, not a string');
  });

  test('an object not read off the wire, or changed since, is not its bytes: undefined, the caller copies it', () => {
    assert.equal(withMembers({ a: 1 }, { b: 2 }), undefined);
    const changed = readResult(text);
    changed.isError = true;
    assert.equal(withMembers(changed, { b: 2 }), undefined);
  });
});

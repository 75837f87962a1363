import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject, JsonRpcMessage } from './jsonrpc.js';
import { lazyMessage } from './lazy-message.js';
import { encodeMessage, serializeMessage } from './raw-json.js';

/** `text` as UTF-8 bytes that start `offset` bytes into their memory (as a line read from a chunk does). */
function bytesAt(text: string, offset: number): Buffer {
  const length = Buffer.byteLength(text);
  const memory = Buffer.alloc(offset + length + 3, 0x20);
  memory.write(text, offset, 'utf8');
  return memory.subarray(offset, offset + length);
}

/** What JSON.parse makes of `text`, or `failed` when it throws. */
function eager(text: string): { value: unknown } | 'failed' {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return 'failed';
  }
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Same keys in the same order and the same prototype, all the way down (deepStrictEqual does not check the order). */
function assertSameShape(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected !== 'object' || expected === null) return;
  assert.equal(typeof actual, 'object', path);
  assert.equal(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected), `prototype at ${path}`);
  assert.deepEqual(Object.keys(actual as object), Object.keys(expected), `keys at ${path}`);
  for (const key of Object.keys(expected)) {
    assertSameShape((actual as JsonObject)[key], (expected as JsonObject)[key], `${path}.${key}`);
  }
}

/** Runs `run` with JSON.parse counted: the texts it was given, in order. */
function parsesDuring<T>(run: () => T): { value: T; parsed: string[] } {
  const original = JSON.parse;
  const parsed: string[] = [];
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    parsed.push(text);
    return original(text, reviver) as unknown;
  }) as typeof JSON.parse;
  try {
    return { value: run(), parsed };
  } finally {
    JSON.parse = original;
  }
}

/** The line `encodeMessage` writes for `message`, spliced or not, and whether it was spliced. */
function encoded(message: JsonRpcMessage): { line: Buffer; spliced: boolean; member?: Buffer } {
  const out = encodeMessage(message);
  if (typeof out === 'string') return { line: Buffer.from(out), spliced: false };
  return { line: Buffer.concat([Buffer.from(out.head), out.bytes, Buffer.from(out.tail)]), spliced: true, member: out.bytes };
}

function deepFreeze<T extends object>(root: T): T {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const current = stack.pop() as object;
    Object.freeze(current);
    for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) stack.push(child as object);
  }
  return root;
}

const big = 'x'.repeat(3000);
const nested = (depth: number): string => '['.repeat(depth) + '{"deep":true}' + ']'.repeat(depth);

/** Messages JSON.parse reads as objects: every one must read the same lazily. */
const objects: readonly string[] = [
  // Requests, notifications and results, members in any order.
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}',
  '{"params":{"arguments":{"text":"hi"},"name":"echo"},"method":"tools/call","id":"r-1","jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"n":[1,2,3]}}}',
  '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}',
  '{"result":{"content":[{"type":"text","text":"ok"}],"isError":false},"id":7,"jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found","data":{"x":[null]}}}',
  `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"${big}"}],"structuredContent":{"k":"${big}"}}}`,
  // Whitespace everywhere JSON allows it (and only the four JSON whitespace bytes).
  ' \t\r\n{ "jsonrpc" : "2.0" ,\n\t"id" : 1 , "result" : { "a" : [ 1 , { "b" : null } ] , "c" : { } } } \r\n ',
  '{"result":{   },"id":1}',
  '{"params":{"a":{}},"x":[]}',
  '{}',
  // Escaped keys, at both levels (an escaped "result" is the result).
  '{"jsonrpc":"2.0","id":1,"\\u0072esult":{"\\u0061":1,"tab\\tkey":2,"q\\"uote":3,"back\\\\slash":4}}',
  '{"jsonrpc":"2.0","id":1,"par\\u0061ms":{"\\ud83d\\ude00":"face","\\u00e9":"e"}}',
  // Duplicate keys: the last value wins, at the place of the first.
  '{"jsonrpc":"2.0","id":1,"result":{"hidden":1},"result":{"shown":2}}',
  '{"jsonrpc":"2.0","result":{"a":1},"id":1,"result":{"b":2,"b":3,"a":4}}',
  '{"jsonrpc":"2.0","id":1,"result":{"a":1,"b":2,"a":{"again":true}}}',
  '{"jsonrpc":"2.0","id":1,"id":2,"result":{"x":1},"result":5}',
  '{"jsonrpc":"2.0","id":1,"result":5,"result":{"x":1}}',
  '{"jsonrpc":"2.0","id":1,"params":{"p":1},"method":"m","params":{"q":2}}',
  // __proto__ as an own member at both levels, never the prototype.
  '{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true},"ok":1}}',
  '{"jsonrpc":"2.0","id":1,"params":{"__proto__":null,"__proto__":[1],"a":{"__proto__":{"x":1}}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"constructor":{"prototype":{"x":1}},"toString":1,"hasOwnProperty":2}}',
  // Integer-like keys (objects list them first, in numeric order, as JSON.parse's do).
  '{"b":1,"2":2,"a":3,"1":4,"result":{"z":1,"10":2,"9":3,"-1":4,"01":5,"4294967295":6,"4294967294":7}}',
  // Multi-byte characters, \u escapes, lone surrogates.
  '{"jsonrpc":"2.0","id":"é-😀","result":{"text":"é—😀 ✓","é":"😀","😀":{"中文":"日本語"}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"s":"\\u00e9\\u2028\\u2029\\ud83d\\ude00\\u0000\\u001f\\/\\b\\f\\n\\r\\t\\"\\\\"}}',
  '{"jsonrpc":"2.0","id":1,"result":{"lone":"\\ud800","low":"\\udc00","pair":"\\uD83D\\uDE00","rev":"\\udc00\\ud800","\\ud800":1}}',
  '{"jsonrpc":"2.0","id":1,"result":{"del":"\u007f","nbsp":"\u00a0","bom":"\ufeff","ls":"\u2028"}}',
  // Numbers as JSON.parse reads them (Infinity, -0, 1 for 1.0, the nearest double).
  '{"jsonrpc":"2.0","id":1,"result":{"n":[1e400,-1e400,-0,0,-0.0,1.0,1E2,1e-400,-1e-400,0.1,123456789012345678901234567890,9007199254740993,5e-324,1.7976931348623157e308]}}',
  '{"jsonrpc":"2.0","id":-0,"result":{"x":-0}}',
  '{"jsonrpc":"2.0","id":1e400,"result":{}}',
  // Deep nesting, and values that are not objects where an object is usual.
  `{"jsonrpc":"2.0","id":1,"result":{"deep":${nested(1000)}}}`,
  `{"jsonrpc":"2.0","id":1,"params":${nested(1000)}}`,
  '{"jsonrpc":"2.0","id":1,"result":[{"a":1},{"b":{"c":2}}]}',
  '{"jsonrpc":"2.0","id":1,"result":"text"}',
  '{"jsonrpc":"2.0","id":1,"result":null}',
  '{"jsonrpc":"2.0","id":1,"result":0}',
  '{"jsonrpc":"2.0","id":1,"params":[1,{"a":2}]}',
  '{"jsonrpc":"2.0","id":1,"result":{"a":[{"b":[{"c":{}}]}],"e":[[]],"f":[{}]}}',
  '{"result":{"a":true,"b":false,"c":null,"d":"","e":[],"f":{}}}',
  // Objects in arrays in arrays, next to and inside the members read lazily.
  '{"x":[{"d":1},[{"e":2}]],"result":{"a":[{"b":1},[{"c":2}]],"h":[[{"i":{}}]]},"y":[[{"j":3}],{"k":4}]}',
  '{"jsonrpc":"2.0","id":1,"params":[{"a":1},[{"b":2}]],"method":"m"}',
];

/** Lines JSON.parse refuses, or reads as something other than an object: never a message. */
const notObjects: readonly string[] = [
  '', ' ', '\t\r\n', '[]', '[{"jsonrpc":"2.0","method":"a"}]', '"{}"', '42', 'null', 'true',
  '{', '}', '{"a":1', '{"a":1}}', '{"a":1} {"b":2}', '{"a":1}{"b":2}', '{"a":1},', '{"a":1} x', '{"a":1}\u0000',
  '{"a":1,}', '{,"a":1}', '{"a" 1}', '{"a":}', '{a:1}', "{'a':1}", '{"a":1 "b":2}', '{"a":[1,]}', '{"a":[,1]}',
  '{"a":01}', '{"a":1.}', '{"a":.5}', '{"a":-}', '{"a":+1}', '{"a":1e}', '{"a":1e+}', '{"a":0x10}', '{"a":NaN}', '{"a":Infinity}',
  '{"a":tru}', '{"a":nul}', '{"a":True}', '{"a":undefined}',
  '{"a":"\t"}', '{"a":"\n"}', '{"a":"\u0000"}', '{"a":"\u001f"}', '{"\u0001":1}',
  '{"a":"\\x41"}', '{"a":"\\u12"}', '{"a":"\\u12G4"}', '{"a":"\\\'"}', '{"a":"\\"}', '{"a":"unterminated}',
  '\u000b{"a":1}', '{"a":1}\u000c', '\u00a0{"a":1}', '\ufeff{"a":1}', '{"a":1}\u2028',
  '{"a":1}/* c */', '// c\n{"a":1}', '{"result":{"a":1,}}', '{"result":{"a":"\u0007"}}', '{"params":{"a":[1 2]}}',
  `{"jsonrpc":"2.0","id":1,"result":{"text":"${big}\u0001"}}`,
  `{"jsonrpc":"2.0","id":1,"result":{"text":"${big}"}`,
  `{"jsonrpc":"2.0","id":1,"result":{"text":"${big}",}}`,
];

describe('lazyMessage: reads a line as JSON.parse does', () => {
  test('every object in the corpus deep-equals what JSON.parse makes: same values, keys in the same order, same prototypes', () => {
    for (const text of objects) {
      const expected = eager(text);
      assert.notEqual(expected, 'failed', `the corpus entry parses: ${text.slice(0, 80)}`);
      for (const offset of [0, 1, 2, 3, 5]) {
        const lazy = lazyMessage(bytesAt(text, offset));
        assert.ok(lazy !== undefined, `read lazily: ${text.slice(0, 80)}`);
        assert.deepStrictEqual(lazy, (expected as { value: unknown }).value, text.slice(0, 80));
        assertSameShape(lazy, (expected as { value: unknown }).value);
      }
    }
  });

  test('is undefined exactly when JSON.parse fails or reads something other than an object', () => {
    for (const text of notObjects) {
      const expected = eager(text);
      assert.ok(expected === 'failed' || !isPlainObject(expected.value), `the corpus entry is not an object: ${JSON.stringify(text.slice(0, 80))}`);
      for (const offset of [0, 1, 3]) assert.equal(lazyMessage(bytesAt(text, offset)), undefined, JSON.stringify(text.slice(0, 80)));
    }
  });

  test('every prefix of a message (a line cut short) is refused unless JSON.parse reads it as an object', () => {
    const text = '{"jsonrpc":"2.0","id":"é","result":{"s":"a\\"b\\\\c\\u00e9😀","n":[-0,1e400,1.5e-3],"o":{"p":{}}}} ';
    const bytes = Buffer.from(text);
    for (let end = 0; end <= bytes.length; end++) {
      const piece = bytes.subarray(0, end);
      // A cut inside a multi-byte character is invalid UTF-8, which the caller refuses before.
      if (!Buffer.from(piece.toString('utf8')).equals(piece)) continue;
      const expected = eager(piece.toString('utf8'));
      const lazy = lazyMessage(Buffer.from(piece));
      if (expected !== 'failed' && isPlainObject(expected.value)) assert.deepStrictEqual(lazy, expected.value, `cut at ${end}`);
      else assert.equal(lazy, undefined, `cut at ${end}`);
    }
  });
});

describe('lazyMessage: members parsed on first read', () => {
  const text = JSON.stringify({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'write', arguments: { blob: 'z'.repeat(200_000), list: [1, 2, 3] }, _meta: { progressToken: 'p-1' } },
  });
  const paramsBytes = Buffer.from(JSON.stringify(JSON.parse(text).params));

  test('reading params._meta parses _meta alone: arguments is never parsed, and the params still go out as their bytes', () => {
    const { value: message, parsed } = parsesDuring(() => {
      const message = lazyMessage(Buffer.from(text)) as { params: JsonObject };
      assert.deepEqual(message.params._meta, { progressToken: 'p-1' });
      assert.equal(message.params.name, 'write');
      return message;
    });
    assert.ok(parsed.every((piece) => !piece.includes('zzzz')), 'no parse touched arguments');
    assert.ok(parsed.includes('{"progressToken":"p-1"}'));
    assert.ok(parsed.every((piece) => piece.length < 100), `only small pieces were parsed: ${parsed.map((p) => p.length).join(', ')}`);
    const out = parsesDuring(() => encoded({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: message.params }));
    assert.equal(out.value.spliced, true);
    assert.deepEqual(out.value.member, paramsBytes, 'the very bytes of params');
    assert.deepEqual(out.parsed, [], 'nothing parsed to send it');
  });

  test('each member is parsed once: two reads give the same object, and the second parses nothing', () => {
    const message = lazyMessage(Buffer.from(text)) as { params: JsonObject };
    const first = parsesDuring(() => message.params.arguments);
    assert.equal(first.parsed.length, 1);
    assert.ok((first.parsed[0] ?? '').length > 200_000);
    const second = parsesDuring(() => [message.params.arguments, message.params._meta, message.params._meta, message.params]);
    assert.equal(second.value[0], first.value, 'the same object');
    assert.equal(second.value[1], second.value[2], 'the same object');
    assert.deepEqual(second.parsed, ['{"progressToken":"p-1"}'], 'only _meta, once');
    // Reading is not changing: still sent as the bytes it came in as.
    assert.deepEqual(encoded({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: message.params }).member, paramsBytes);
  });

  test('the envelope is parsed up front, but no member of params or result until read', () => {
    const { value: message, parsed } = parsesDuring(() => lazyMessage(Buffer.from(`{"jsonrpc":"2.0","id":"a","result":{"x":"${big}","y":{"z":1}}}`)));
    const result = (message as { result: JsonObject }).result;
    assert.ok(parsed.every((piece) => !piece.includes('xxx') && !piece.includes('"z"')), 'no member of result was parsed');
    const before = parsed.length;
    const more = parsesDuring(() => [Object.keys(result), 'y' in result, Object.prototype.hasOwnProperty.call(result, 'x')]);
    assert.deepEqual(more.value, [['x', 'y'], true, true]);
    assert.deepEqual(more.parsed, [], 'keys, `in` and hasOwnProperty parse nothing');
    assert.equal(parsed.length, before);
  });

  test('spread, Object.entries, structuredClone and JSON.stringify see the values JSON.parse would give', () => {
    for (const line of objects) {
      const lazy = lazyMessage(Buffer.from(line)) as JsonObject;
      const expected = JSON.parse(line) as JsonObject;
      for (const key of ['params', 'result'] as const) {
        const member = lazy[key];
        if (!isPlainObject(member)) continue;
        assert.deepStrictEqual({ ...member }, expected[key]);
        assert.deepStrictEqual(Object.entries(member), Object.entries(expected[key] as object));
      }
      const cloned: unknown = structuredClone(lazy);
      assert.deepStrictEqual(cloned, expected);
      assertSameShape(cloned, expected);
      assert.equal(JSON.stringify(lazy), JSON.stringify(expected), line.slice(0, 80));
    }
  });
});

describe('lazyMessage: a changed member is sent as changed', () => {
  const text = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${'é😀\\"\\\\'.repeat(600)}"},"_meta":{"k":1}}}`;
  const paramsBytes = Buffer.from(text.slice(text.indexOf('"params":') + 9, -1));

  /** Both readings of `text`, changed by `change`, encoded as the chain's next hop would (a new id). */
  function afterChange(change: (params: JsonObject) => void): { lazy: ReturnType<typeof encoded>; eager: string } {
    const lazyParams = (lazyMessage(Buffer.from(text)) as { params: JsonObject }).params;
    const eagerParams = (JSON.parse(text) as { params: JsonObject }).params;
    change(lazyParams);
    change(eagerParams);
    return {
      lazy: encoded({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: lazyParams }),
      eager: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: eagerParams }),
    };
  }

  test('unchanged, it goes out as the very bytes it came in as', () => {
    const { lazy, eager: slow } = afterChange(() => undefined);
    assert.equal(lazy.spliced, true);
    assert.deepEqual(lazy.member, paramsBytes);
    assert.deepEqual(JSON.parse(lazy.line.toString()), JSON.parse(slow));
  });

  const changes: [string, (params: JsonObject) => void][] = [
    ['a member assigned before it was read', (p) => (p.arguments = { text: 'new' })],
    ['a member assigned after it was read', (p) => (p.arguments = { ...(p.arguments as JsonObject), extra: [1] })],
    ['a member assigned the value it had', (p) => {
      const name = p.name;
      p.name = name;
    }],
    ['a member assigned undefined', (p) => (p.name = undefined)],
    ['a member added', (p) => (p.added = { x: 'é' })],
    ['a member deleted (read before)', (p) => void (p._meta !== undefined && delete p._meta)],
    ['a member deleted (never read)', (p) => void delete p.arguments],
    ['a member deleted and two added', (p) => {
      delete p.name;
      p.a = 1;
      p.b = 2;
    }],
    ['members assigned with Object.assign', (p) => Object.assign(p, { name: 'other', _meta: null })],
  ];
  for (const [what, change] of changes) {
    test(`${what}: the output is what the eager object gives, byte for byte`, () => {
      const { lazy, eager: slow } = afterChange(change);
      assert.equal(lazy.spliced, false);
      assert.equal(lazy.line.toString(), slow);
    });
  }

  test('a result replaced by a new object goes out as the new object', () => {
    const message = lazyMessage(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${big}"}]}}`)) as { result: JsonObject };
    const replaced = { ...message.result, isError: true };
    assert.equal(encoded({ jsonrpc: '2.0', id: 1, result: replaced }).line.toString(), JSON.stringify({ jsonrpc: '2.0', id: 1, result: replaced }));
  });
});

describe('lazyMessage: frozen (as the cache keeps results)', () => {
  const text = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${'é\\u00e9😀'.repeat(500)}"}],"structuredContent":{"a":{"b":[1,{"c":-0}]}},"__proto__":{"x":1}}}`;
  const resultBytes = Buffer.from(text.slice(text.indexOf('"result":') + 9, -1));

  test('deep-frozen after creation, it reads as JSON.parse reads, clones, stringifies, and still goes out as its bytes', () => {
    const result = deepFreeze((lazyMessage(Buffer.from(text)) as { result: JsonObject }).result);
    const expected = (JSON.parse(text) as { result: JsonObject }).result;
    assert.ok(Object.isFrozen(result));
    assert.deepStrictEqual(result, expected);
    assertSameShape(result, expected);
    assert.equal(result.content, result.content);
    assert.deepStrictEqual(structuredClone(result), expected);
    assert.equal(JSON.stringify(result), JSON.stringify(expected));
    assert.deepEqual(encoded({ jsonrpc: '2.0', id: 2, result }).member, resultBytes);
  });

  test('frozen before any member is read, the members still read (parsed on first read) and are the same each time', () => {
    const result = Object.freeze((lazyMessage(Buffer.from(text)) as { result: JsonObject }).result);
    const expected = (JSON.parse(text) as { result: JsonObject }).result;
    assert.deepStrictEqual(result.structuredContent, expected.structuredContent);
    assert.equal(result.structuredContent, result.structuredContent);
    assert.deepStrictEqual(result, expected);
    assert.deepEqual(encoded({ jsonrpc: '2.0', id: 2, result }).member, resultBytes);
  });

  test('assigning a member of a frozen result throws, as it does for a frozen plain object, and changes nothing', () => {
    const result = deepFreeze((lazyMessage(Buffer.from(text)) as { result: JsonObject }).result);
    const plain = deepFreeze((JSON.parse(text) as { result: JsonObject }).result);
    assert.throws(() => (plain.content = []), TypeError);
    assert.throws(() => (result.content = []), TypeError);
    assert.throws(() => (result.added = 1), TypeError);
    assert.throws(() => delete result.content, TypeError);
    assert.deepStrictEqual(result, plain);
    assert.deepEqual(encoded({ jsonrpc: '2.0', id: 2, result }).member, resultBytes);
  });
});

describe('lazyMessage: a member replaced without its setter is seen', () => {
  const line = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":"${'y'.repeat(3000)}"}}}`;
  const changes: Record<string, (params: JsonObject) => void> = {
    'deleted and set again': (params) => {
      delete params.name;
      params.name = 'other';
    },
    'deleted, and another added': (params) => {
      delete params.name;
      params.other = 'o';
    },
    redefined: (params) => {
      Object.defineProperty(params, 'name', { value: 'z', enumerable: true, configurable: true, writable: true });
    },
  };
  for (const [what, change] of Object.entries(changes)) {
    test(`${what}: sent as changed, as the eager object would be`, () => {
      const lazy = lazyMessage(Buffer.from(line)) as unknown as JsonRpcMessage & { params: JsonObject };
      const eager = JSON.parse(line) as JsonRpcMessage & { params: JsonObject };
      change(lazy.params);
      change(eager.params);
      assert.equal(serializeMessage(lazy), JSON.stringify(eager));
    });
  }
});

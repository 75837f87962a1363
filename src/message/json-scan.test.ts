import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { checkSpansMeaning, layOut, parsesAsJson, referenceSpans } from '../../test/fuzz/json-scan.fuzz.js';
import { jsonValue, mutatedText, oddJsonText } from '../../test/fuzz/grammar.js';
import { type MemberSpans, scanJson, SPAN } from './json-scan.js';

/** What JSON.parse says of the text. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** scanJson over all of `bytes`. */
function scan(bytes: Uint8Array, members?: MemberSpans, depth?: number): boolean {
  return scanJson(bytes, 0, bytes.length, members, depth);
}

/**
 * `bytes` copied to byteOffset `offset` of a buffer of its own, with `fill` on both sides (a `"`
 * closes a string left open: a scanner that reads past the end would accept what it must not).
 */
function placed(bytes: Uint8Array, offset: number, fill = 0x22): Buffer {
  const framed = Buffer.alloc(bytes.length + 16, fill);
  framed.set(bytes, offset);
  return framed.subarray(offset, offset + bytes.length);
}

/** Asserts that scanJson agrees with JSON.parse on `text`, at every byteOffset 0..7. */
function agrees(text: string): void {
  const bytes = Buffer.from(text);
  assert.ok(isUtf8(bytes));
  const want = parses(text);
  for (let offset = 0; offset < 8; offset++) {
    assert.equal(scan(placed(bytes, offset)), want, `${JSON.stringify(text)} at byteOffset ${offset}: JSON.parse says ${want}`);
  }
}

/** Asserts that each of `texts` is accepted, and by JSON.parse too. */
function accepted(...texts: string[]): void {
  for (const text of texts) {
    assert.ok(parses(text), `JSON.parse refuses ${JSON.stringify(text)}: a bad test`);
    agrees(text);
  }
}

/** Asserts that each of `texts` is refused, and by JSON.parse too. */
function refused(...texts: string[]): void {
  for (const text of texts) {
    assert.ok(!parses(text), `JSON.parse accepts ${JSON.stringify(text)}: a bad test`);
    agrees(text);
  }
}

/** The member records scanJson notes for `text`, as [depth, key, escaped, value text] rows. */
function records(text: string, depth?: number): Array<[number, string | null, number, string]> {
  const bytes = Buffer.from(text);
  const spans: MemberSpans = [];
  assert.ok(scan(bytes, spans, depth), `refused ${text}`);
  assert.deepEqual(spans, referenceSpans(bytes, depth ?? 2));
  const rows: Array<[number, string | null, number, string]> = [];
  for (let m = 0; m < spans.length; m += SPAN) {
    const [d, keyStart, keyEnd, escaped, valueStart, valueEnd] = spans.slice(m, m + SPAN) as [number, number, number, number, number, number];
    rows.push([d, keyStart < 0 ? null : bytes.toString('utf8', keyStart, keyEnd), escaped, bytes.toString('utf8', valueStart, valueEnd)]);
  }
  return rows;
}

describe('scanJson accepts exactly what JSON.parse accepts', () => {
  test('numbers: every form of the grammar, and nothing else', () => {
    accepted('0', '-0', '7', '-7', '10', '1234567890', '0.5', '-0.5', '10.25', '1e5', '1E5', '1e+5', '1E+5', '1e-5', '-1.5e-10', '0e0', '0.0e-0', '1e400', '-1e400', '123456789012345678901234567890', '5e-324', '[0,-0,1.5e3]');
    refused('01', '-01', '00', '-', '--1', '1.', '-1.', '.5', '-.5', '+1', '1e', '1e+', '1E-', '1.e5', '0x1', '0X1', '1_000', 'Infinity', '-Infinity', 'NaN', '1e5.5', '1.5.5', '0.5e', '١', '[1.]', '{"a":01}', '[-]');
  });

  test('literals, and their truncations and extensions', () => {
    accepted('true', 'false', 'null', '[true,false,null]', '{"a":null}');
    refused('tru', 't', 'nul', 'n', 'fals', 'f', 'falsey', 'truee', 'nulll', 'True', 'NULL', 'undefined', '[tru]', '{"a":nul}', 'nullx', '[true false]');
  });

  test('strings: every escape, \\u in either case, and nothing else after a backslash', () => {
    accepted('""', '"a"', '"\\""', '"\\\\"', '"\\/"', '"\\b"', '"\\f"', '"\\n"', '"\\r"', '"\\t"', '"\\u0000"', '"\\u00e9"', '"\\u00E9"', '"\\uAbCd"', '"\\uD83D\\uDE00"', '"\\ud800"', '"\\udfff x"', '"a\\nb\\tc"');
    refused('"\\x"', '"\\a"', '"\\U0041"', '"\\u12"', '"\\u12G4"', '"\\u"', '"\\u123"', '"\\u 123"', '"\\', '"\\"', '"abc', '"', "'a'", '"\\0"', '"\\v"', '"\\\'"');
  });

  test('strings: every raw control byte 0x00..0x1f is refused, 0x7f is accepted', () => {
    for (let c = 0; c < 0x20; c++) {
      const char = String.fromCharCode(c);
      refused(`"${char}"`, `"ab${char}cd"`, `{"k${char}":1}`, `["x","${char}"]`);
    }
    accepted('"\u007f"', '"a\u007fb"', '{"\u007f":"\u007f"}');
  });

  test('whitespace: space, tab, CR and LF around and between tokens; form feed, vertical tab, NBSP, U+2028, BOM refused outside strings', () => {
    accepted(' 1', '1 ', '\t\r\n 1 \n\r\t', ' { "a" : [ 1 , 2 ] , "b" : { } } ', '[\n1,\r2,\t3\n]', '{\r\n"a"\t:\n1}');
    for (const bad of ['\f', '\v', '\u00a0', '\u2028', '\u2029', '\ufeff', '\u0000', '\u0085', '\u3000']) {
      refused(`${bad}1`, `1${bad}`, `[1,${bad}2]`, `{"a"${bad}:1}`, `{"a":${bad}1}`);
      // Inside a string, the ones that are characters are text; the control bytes are not.
      if (bad < ' ') refused(`"${bad}"`);
      else accepted(`"${bad}"`);
    }
  });

  test('structure: trailing and missing commas and colons, unbalanced brackets', () => {
    accepted('{}', '[]', '[[]]', '[{}]', '{"a":{}}', '{"a":[]}', '[1,[2,[3]],{"b":[4]}]', '{"":0}', '{"a":1,"a":2}');
    refused(
      '[1,]', '{"a":1,}', '[,1]', '{,"a":1}', '[,]', '{,}', '[1 2]', '{"a":1 "b":2}', '{"a" 1}', '{"a"::1}', '{"a":}', '{"a"}', '{a:1}',
      '{1:1}', '{null:1}', '[', ']', '{', '}', '[[]', '[]]', '{"a":[}', '{"a":{]}', '[}', '{]', '[1}', '{"a":1]', '[1,2', '{"a":1', '{"a":1}}', '[[1]]]',
    );
  });

  test('empty, blank, two values, a value followed by garbage', () => {
    refused('', ' ', '\n', ' \t\r\n ', '{} {}', '[][]', '1 2', '"a""b"', 'true false', '{}x', '[]1', '1x', '"a"b', 'null,', '{}\u0000', '1/', '{}//');
  });

  test('deep nesting (10,000 levels) is scanned without recursion', () => {
    const depth = 10_000;
    accepted('['.repeat(depth) + ']'.repeat(depth), '{"a":'.repeat(depth) + '1' + '}'.repeat(depth), '[{"a":'.repeat(depth) + '[]' + '}]'.repeat(depth));
    refused('['.repeat(depth) + ']'.repeat(depth - 1), '{"a":'.repeat(depth) + '1' + '}'.repeat(depth + 1), '['.repeat(depth) + '}'.repeat(depth));
    const spans: MemberSpans = [];
    const deep = Buffer.from('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
    assert.ok(scan(deep, spans));
    assert.deepEqual(spans, referenceSpans(deep));
  });

  test('a byte of 0x80 or more is refused outside a string (at a value, between tokens, after the value), accepted inside one', () => {
    // UTF-8 is checked apart (isUtf8); the scanner takes such a byte as part of a character.
    for (let byte = 0x80; byte <= 0xff; byte++) {
      for (const [before, after] of [[[], [0x31]], [[0x31], []], [[0x5b], [0x5d]], [[0x5b, 0x31, 0x2c], [0x32, 0x5d]], [[0x7b, 0x22, 0x61, 0x22], [0x3a, 0x31, 0x7d]]] as const) {
        const bytes = Uint8Array.from([...before, byte, ...after]);
        assert.equal(scan(bytes), false, `byte 0x${byte.toString(16)} in ${Buffer.from(bytes).toString('latin1')}`);
      }
      assert.equal(scan(Uint8Array.from([0x22, byte, 0x22])), true, `byte 0x${byte.toString(16)} in a string`);
      assert.equal(scan(Uint8Array.from([0x7b, 0x22, byte, 0x22, 0x3a, 0x22, byte, byte, 0x22, 0x7d])), true, `byte 0x${byte.toString(16)} in a key and a value`);
    }
  });

  test('a seeded corpus of values, layouts and mutations: the same verdict as JSON.parse', () => {
    const text = fc.oneof(
      jsonValue.map((v) => JSON.stringify(v) ?? 'null'),
      fc.tuple(jsonValue, fc.array(fc.constantFrom('', ' ', '\t', '\r\n', '\n ', '\f', '\u00a0'), { maxLength: 4 }), fc.boolean()).map(([v, spaces, escapeKeys]) => layOut(v, spaces, escapeKeys)),
      jsonValue.chain((v) => mutatedText(JSON.stringify(v) ?? 'null')),
      oddJsonText,
    );
    let valid = 0;
    let invalid = 0;
    fc.assert(
      fc.property(text, fc.nat({ max: 7 }), (t, offset) => {
        const bytes = Buffer.from(t);
        const want = parsesAsJson(bytes);
        if (want) valid += 1;
        else invalid += 1;
        assert.equal(scan(placed(bytes, offset)), want, JSON.stringify(t.slice(0, 200)));
      }),
      { seed: 14, numRuns: 3000 },
    );
    // The corpus has both kinds in earnest.
    assert.ok(valid > 500 && invalid > 500, `${valid} valid, ${invalid} invalid`);
  });
});

describe('long strings: the four-bytes-at-a-time path at every alignment', () => {
  // What ends (or breaks) a plain run, at each position of strings of each length (between runs of
  // `a` and of DEL, 0x7f, which is plain text). \u escapes are in the multi-byte test below.
  const specials: ReadonlyArray<[name: string, bytes: (position: number) => number[]]> = [
    ['a quote', () => [0x22]],
    ['a backslash before a bad escape', () => [0x5c, 0x61]],
    ['an escaped quote', () => [0x5c, 0x22]],
    ['a control byte', (position) => [position % 0x20]],
  ];

  test('strings of every length 0..300 with a quote, backslash or control byte at every position, at byteOffsets 0..7', () => {
    const frames = Array.from({ length: 8 }, () => Buffer.alloc(512, 0x22));
    const line = Buffer.alloc(400);
    const head = Buffer.from('{"s":"');
    let cases = 0;
    for (let length = 0; length <= 300; length++) {
      for (const [name, special] of specials) {
        for (let position = 0; position <= length; position++) {
          // {"s":"<a * position><special><DEL * (length - position)>"}
          const bytes = special(position);
          let n = head.copy(line, 0);
          n = line.fill(0x61, n, n + position) && n + position;
          line.set(bytes, n);
          n += bytes.length;
          line.fill(0x7f, n, n + length - position);
          n += length - position;
          line[n++] = 0x22;
          line[n++] = 0x7d;
          const text = line.subarray(0, n);
          const want = parsesAsJson(text);
          for (let offset = 0; offset < 8; offset++) {
            const frame = frames[offset] as Buffer;
            frame.set(text, offset);
            frame.fill(0x22, offset + n, offset + n + 8); // a quote after the end
            if (scan(frame.subarray(offset, offset + n)) !== want) assert.fail(`${name} at ${position} of ${length} at byteOffset ${offset}: JSON.parse says ${want}`);
            cases += 1;
          }
        }
      }
    }
    assert.equal(cases, 8 * specials.length * ((301 * 302) / 2));
  });

  test('an unterminated long string is refused, whatever follows its end in the buffer', () => {
    for (let length = 0; length <= 300; length++) {
      const bytes = Buffer.from('"' + 'x'.repeat(length));
      for (let offset = 0; offset < 8; offset++) {
        for (const fill of [0x22, 0x5c, 0x00, 0x61]) {
          assert.equal(scan(placed(bytes, offset, fill)), false, `length ${length} at ${offset}, then 0x${fill.toString(16)}`);
        }
      }
    }
  });

  test('pooled buffers (Buffer.from, at whatever offset the pool gives) and views at odd offsets', () => {
    for (let length = 0; length <= 300; length += 7) {
      for (const special of ['', '"', '\\q', '\u0001', '\\n']) {
        const text = `["${'p'.repeat(length >> 1)}${special}${'q'.repeat(length - (length >> 1))}"]`;
        const want = parses(text);
        for (let shift = 0; shift < 8; shift++) {
          Buffer.from('x'.repeat(shift)); // moves the pool's offset
          const pooled = Buffer.from(text);
          assert.equal(scan(pooled), want, `${JSON.stringify(text)} pooled at ${pooled.byteOffset}`);
          // A line cut out of a chunk: a view at an odd offset.
          const chunk = Buffer.from('\n'.repeat(shift) + text + '\n');
          assert.equal(scan(chunk.subarray(shift, shift + pooled.length)), want, `${JSON.stringify(text)} as a view at ${chunk.byteOffset + shift}`);
        }
      }
    }
  });

  test('multi-byte UTF-8 (é, €, 中, 😀, U+2028, bytes like 0xA2, 0xDC, 0xA0) across word boundaries in long strings', () => {
    const units = ['é', '€', '中', '😀', '\u2028', 'Ģ', '\u071c', '\u00a0', '\u00dc'];
    for (const unit of units) {
      for (let prefix = 0; prefix < 40; prefix++) {
        for (const count of [1, 2, 3, 17, 40]) {
          const body = 'a'.repeat(prefix) + unit.repeat(count);
          accepted(`"${body}"`, `{"t":"${body}z${'b'.repeat(prefix)}"}`, `["${body}\\u00e9${unit}\\""]`);
          refused(`"${body}\u0001"`, `"${body}\\x${unit}"`, `"${body}`);
        }
      }
    }
  });
});

describe('member spans: where the members of the outer objects are', () => {
  test('depth-1 members, in the order written, their keys inside the quotes and their values exactly', () => {
    assert.deepEqual(records('{"jsonrpc":"2.0","id":7,"result":{"a":[1,2],"b":null}}'), [
      [1, 'jsonrpc', 0, '"2.0"'],
      [1, 'id', 0, '7'],
      [1, 'result', 0, '{"a":[1,2],"b":null}'],
      [2, 'a', 0, '[1,2]'],
      [2, 'b', 0, 'null'],
    ]);
  });

  test('spaces around keys, colons and values are not part of them', () => {
    assert.deepEqual(records(' {\n  "id" :\t7 ,\r\n  "result" : { "x" : "y" } \n} '), [
      [1, 'id', 0, '7'],
      [1, 'result', 0, '{ "x" : "y" }'],
      [2, 'x', 0, '"y"'],
    ]);
  });

  test('an escaped key is flagged, its bytes as written', () => {
    assert.deepEqual(records('{"\\u0069d":1,"a\\"b":{"\\n":2},"plain":3}'), [
      [1, '\\u0069d', 1, '1'],
      [1, 'a\\"b', 1, '{"\\n":2}'],
      [2, '\\n', 1, '2'],
      [1, 'plain', 0, '3'],
    ]);
  });

  test('duplicate keys are each noted, in order (JSON.parse keeps the last)', () => {
    assert.deepEqual(records('{"a":1,"a":{"b":2,"b":3}}'), [
      [1, 'a', 0, '1'],
      [1, 'a', 0, '{"b":2,"b":3}'],
      [2, 'b', 0, '2'],
      [2, 'b', 0, '3'],
    ]);
  });

  test('depth-2 records follow their depth-1 member; nothing deeper than depth 2 by default', () => {
    assert.deepEqual(records('{"a":{"b":{"c":{"d":1}}},"e":{}}'), [
      [1, 'a', 0, '{"b":{"c":{"d":1}}}'],
      [2, 'b', 0, '{"c":{"d":1}}'],
      [1, 'e', 0, '{}'],
    ]);
  });

  test('the elements of an array that are objects are noted, with no key; other elements are not', () => {
    assert.deepEqual(records('{"list":[1,{"x":1},"s",{},[2]],"n":0}'), [
      [1, 'list', 0, '[1,{"x":1},"s",{},[2]]'],
      [2, null, 0, '{"x":1}'],
      [2, null, 0, '{}'],
      [1, 'n', 0, '0'],
    ]);
    assert.deepEqual(records('[{"a":1},2,{"b":{"c":3}}]'), [
      [1, null, 0, '{"a":1}'],
      [2, 'a', 0, '1'],
      [1, null, 0, '{"b":{"c":3}}'],
      [2, 'b', 0, '{"c":3}'],
    ]);
  });

  test('depth chooses how far down records go (0: none)', () => {
    const text = '{"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}';
    assert.deepEqual(records(text, 0), []);
    assert.deepEqual(records(text, 1), [[1, 'result', 0, '{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}']]);
    assert.deepEqual(records(text, 4), [
      [1, 'result', 0, '{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}'],
      [2, 'tools', 0, '[{"name":"a","inputSchema":{"type":"object"}}]'],
      [3, null, 0, '{"name":"a","inputSchema":{"type":"object"}}'],
      [4, 'name', 0, '"a"'],
      [4, 'inputSchema', 0, '{"type":"object"}'],
    ]);
  });

  test('a top-level value that is not an object or array has no records', () => {
    for (const text of ['1', '"s"', 'null', '[]', '{}', '[1,"a",[]]']) assert.deepEqual(records(text), []);
  });

  test('records are appended to what the array holds already', () => {
    const spans: MemberSpans = [9, 9, 9, 9, 9, 9];
    assert.ok(scan(Buffer.from('{"a":1}'), spans));
    assert.deepEqual(spans, [9, 9, 9, 9, 9, 9, 1, 2, 3, 0, 5, 6]);
  });

  test('records slice back to the parsed members, for generated objects in every layout (seeded)', () => {
    const object = fc.dictionary(fc.string({ maxLength: 6 }), jsonValue, { maxKeys: 6 });
    fc.assert(
      fc.property(object, fc.array(fc.constantFrom('', ' ', '\t', '\r\n'), { maxLength: 4 }), fc.boolean(), fc.nat({ max: 4 }), fc.nat({ max: 7 }), (value, spaces, escapeKeys, depth, offset) => {
        const bytes = Buffer.from(layOut(value, spaces, escapeKeys));
        const spans: MemberSpans = [];
        assert.ok(scan(placed(bytes, offset), spans, depth));
        const expected = referenceSpans(bytes, depth);
        assert.deepEqual(spans, expected);
        checkSpansMeaning(bytes, spans, depth);
      }),
      { seed: 1414, numRuns: 1500 },
    );
  });

  test('nothing is noted inside an array that is an array\'s element (it has no record; what is in it would follow one it does not belong to)', () => {
    assert.deepEqual(records('[{"a":1},[{"b":2}],{"c":3}]'), [
      [1, null, 0, '{"a":1}'],
      [2, 'a', 0, '1'],
      [1, null, 0, '{"c":3}'],
      [2, 'c', 0, '3'],
    ]);
    const tools = '{"result":{"tools":[{"name":"a"},[{"name":"b"},[[]]],[],{"name":"c"}]}}';
    assert.deepEqual(records(tools, 4), [
      [1, 'result', 0, '{"tools":[{"name":"a"},[{"name":"b"},[[]]],[],{"name":"c"}]}'],
      [2, 'tools', 0, '[{"name":"a"},[{"name":"b"},[[]]],[],{"name":"c"}]'],
      [3, null, 0, '{"name":"a"}'],
      [4, 'name', 0, '"a"'],
      [3, null, 0, '{"name":"c"}'],
      [4, 'name', 0, '"c"'],
    ]);
    // An array in an object in an array is a member's value: noted as usual.
    assert.deepEqual(records('[{"x":[{"y":1}]}]', 3), [
      [1, null, 0, '{"x":[{"y":1}]}'],
      [2, 'x', 0, '[{"y":1}]'],
      [3, null, 0, '{"y":1}'],
    ]);
  });
});

describe('a range inside a larger buffer', () => {
  test('only bytes[start, end) are scanned: what is around them is ignored', () => {
    const cases: ReadonlyArray<[string, string, string]> = [
      ['garbage ', '{"a":[1,2]}', ' garbage'],
      ['{"x":', '"unterminated', '"}'],
      ['[', '1', ']'],
      ['', '{"a":1', '}'],
      ['"', 'abc', '"'],
      ['1', '2', '3'],
      ['tr', 'ue', ''],
      ['', 'nul', 'l'],
      ['', '-', '1'],
      ['', '1.', '5'],
      ['', '"\\u00', 'e9"'],
      ['', '"\\', '""'],
      ['{"a":', '{"b":' + 'x'.repeat(100), '"}}'],
    ];
    for (const [before, text, after] of cases) {
      const whole = Buffer.from(before + text + after);
      const start = Buffer.byteLength(before);
      const end = start + Buffer.byteLength(text);
      assert.equal(scanJson(whole, start, end), parses(text), `${JSON.stringify(text)} between ${JSON.stringify(before)} and ${JSON.stringify(after)}`);
    }
  });

  test('spans are positions in the whole buffer', () => {
    const before = 'xxxxx';
    const whole = Buffer.from(`${before}{"k":"v"}yyyy`);
    const spans: MemberSpans = [];
    assert.ok(scanJson(whole, 5, 14, spans));
    assert.deepEqual(spans, [1, 7, 8, 0, 10, 13]);
    assert.equal(whole.toString('utf8', spans[4], spans[5]), '"v"');
  });

  test('a long string ending exactly at end, at every start alignment, with a quote right after end', () => {
    for (let start = 0; start < 8; start++) {
      for (let length = 30; length < 80; length++) {
        const whole = Buffer.from('.'.repeat(start) + '"' + 'z'.repeat(length) + '""');
        const end = whole.length - 2; // "zzz…z : unterminated inside the range
        assert.equal(scanJson(whole, start, end), false, `start ${start}, length ${length}`);
        assert.equal(scanJson(whole, start, end + 1), true, `start ${start}, length ${length}`);
      }
    }
  });
});

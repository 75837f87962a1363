import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { checkParamHeaders, paramHeadersOf, paramHeaderValues, type ParamHeader } from './param-headers.js';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const base64 = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'object', properties, ...extra });
const annotated = (type: unknown, name = 'Region'): Record<string, unknown> => ({ type, 'x-mcp-header': name });

/** The tool of the spec's example (Streamable HTTP, "Custom Headers from Tool Parameters"). */
const EXECUTE_SQL = object(
  { region: { type: 'string', description: 'The region to execute the query in', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
  { required: ['region', 'query'] },
);
const REGION: ParamHeader[] = [{ name: 'Region', path: ['region'] }];

function refusal(run: () => void): McpError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof McpError, 'an McpError');
    return error;
  }
  assert.fail('expected -32020');
}

/** Asserts a -32020 naming the header and where in the body its value is, and never a value. */
function assertMismatch(run: () => void, header: string, body: string, secret?: string): void {
  const error = refusal(run);
  assert.equal(error.code, ErrorCode.HeaderMismatch);
  assert.equal(error.code, -32020);
  assert.deepEqual(error.data, { mismatch: { header, body } });
  assert.match(error.message, new RegExp(`^Header mismatch: the ${header} header `));
  if (secret !== undefined) assert.ok(!JSON.stringify(error.toJSON()).includes(secret), 'no value in the error');
}

describe('paramHeadersOf: the headers a tool declares with x-mcp-header', () => {
  test('the spec example declares Mcp-Param-Region for arguments.region', () => {
    assert.deepEqual(paramHeadersOf(EXECUTE_SQL), REGION);
  });

  test('a tool without annotations declares none, and so does an input schema that is not an object', () => {
    assert.deepEqual(paramHeadersOf(object({ query: { type: 'string' } })), []);
    assert.deepEqual(paramHeadersOf({ type: 'object' }), []);
    for (const notASchema of [undefined, null, 'object', 42, true, [EXECUTE_SQL]]) assert.deepEqual(paramHeadersOf(notASchema), []);
  });

  test('string, integer and boolean properties may carry one, at any depth of properties, in schema order', () => {
    const schema = object({
      tenant: annotated('string', 'Tenant'),
      target: object({ zone: object({ id: annotated('integer', 'Zone-Id') }), dryRun: annotated('boolean', 'Dry_Run.v2') }),
      limit: annotated('integer', "!#$%&'*+-.^_`|~9"),
    });
    assert.deepEqual(paramHeadersOf(schema), [
      { name: 'Tenant', path: ['tenant'] },
      { name: 'Zone-Id', path: ['target', 'zone', 'id'] },
      { name: 'Dry_Run.v2', path: ['target', 'dryRun'] },
      { name: "!#$%&'*+-.^_`|~9", path: ['limit'] },
    ]);
  });

  test('a nullable primitive ([type, "null"]) may carry one: a null value just sends no header', () => {
    assert.deepEqual(paramHeadersOf(object({ region: annotated(['string', 'null']) })), REGION);
    assert.deepEqual(paramHeadersOf(object({ region: annotated(['null', 'integer']) })), REGION);
  });

  test('only a schema position counts: a property named x-mcp-header, or the key inside default/const/examples, is not an annotation', () => {
    const schema = object({
      'x-mcp-header': { type: 'string', default: 'Region' },
      note: { type: 'object', default: { 'x-mcp-header': 'Note' }, const: { 'x-mcp-header': 'Note' }, examples: [{ 'x-mcp-header': 'Note' }] },
    });
    assert.deepEqual(paramHeadersOf(schema), []);
  });

  test('a property key from JSON such as __proto__ or constructor is an ordinary path step', () => {
    const schema: unknown = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object","properties":{"constructor":{"type":"string","x-mcp-header":"Ctor"}}}}}');
    assert.deepEqual(paramHeadersOf(schema), [{ name: 'Ctor', path: ['__proto__', 'constructor'] }]);
  });

  test('any depth of nesting is walked without recursion', () => {
    let schema: Record<string, unknown> = annotated('string', 'Deep');
    for (let i = 0; i < 100_000; i++) schema = object({ p: schema });
    const headers = paramHeadersOf(schema);
    assert.equal(headers?.length, 1);
    assert.equal(headers[0]?.path.length, 100_000);
    let invalid: Record<string, unknown> = annotated('string', 'Deep');
    for (let i = 0; i < 100_000; i++) invalid = i === 50_000 ? { anyOf: [invalid] } : object({ p: invalid });
    assert.equal(paramHeadersOf(invalid), undefined);
  });

  // "MUST NOT be empty", "MUST match HTTP field-name token syntax (1*tchar, RFC 9110 Section 5.1)",
  // "MUST NOT contain control characters, including carriage return (CR, \r) or line feed (LF, \n)",
  // "MUST be case-insensitively unique among all x-mcp-header values in the inputSchema",
  // "MUST only be applied to parameters with primitive types (integer, string, boolean). Parameters
  // with type number are not permitted.", "MUST only be applied to properties that are statically
  // reachable from the schema root: reachable via a chain consisting solely of properties keys."
  const invalid: Record<string, unknown> = {
    // The conformance suite's http-invalid-tool-headers tools, one by one.
    'an empty name': object({ value: annotated('string', '') }),
    'an object property': object({ data: annotated('object', 'Data') }),
    'an array property': object({ items: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Items' } }),
    'a null property': object({ nil: annotated('null', 'Nil') }),
    'a number property': object({ score: annotated('number', 'Score') }),
    'the same name twice': object({ field1: annotated('string', 'Region'), field2: annotated('string', 'Region') }),
    'the same name in another case': object({ field1: annotated('string', 'MyField'), field2: annotated('string', 'myfield') }),
    'a space in the name': object({ value: annotated('string', 'My Region') }),
    'a colon in the name': object({ value: annotated('string', 'Region:Primary') }),
    'a non-ASCII name': object({ value: annotated('string', 'Région') }),
    'a tab in the name': object({ value: annotated('string', 'Region\t1') }),
    // And the rest of the rules.
    'CR LF in the name': object({ value: annotated('string', 'Region\r\nX-Injected: 1') }),
    'a delimiter in the name': object({ value: annotated('string', 'Region/1') }),
    'a name that is not a string': object({ value: { type: 'string', 'x-mcp-header': 42 } }),
    'the same name at different depths': object({ a: annotated('string', 'Zone'), b: object({ c: annotated('integer', 'ZONE') }) }),
    'a property without a type': object({ region: { enum: ['eu', 'us'], 'x-mcp-header': 'Region' } }),
    'a property of two primitive types': object({ region: annotated(['string', 'integer']) }),
    'a nullable number': object({ region: annotated(['number', 'null']) }),
    'the root itself': { type: 'object', 'x-mcp-header': 'Root', properties: {} },
    'a property under items': object({ list: { type: 'array', items: object({ region: annotated('string') }) } }),
    'a property under prefixItems': object({ pair: { type: 'array', prefixItems: [annotated('string')] } }),
    'a property under additionalProperties': object({}, { additionalProperties: annotated('string') }),
    'a property under patternProperties': object({}, { patternProperties: { '^r': annotated('string') } }),
    'a branch of anyOf': object({}, { anyOf: [object({ region: annotated('string') })] }),
    'a branch of oneOf': object({}, { oneOf: [object({ region: annotated('string') })] }),
    'a branch of allOf': object({}, { allOf: [object({ region: annotated('string') })] }),
    'the schema of not': object({}, { not: object({ region: annotated('string') }) }),
    'if/then/else': object({}, { if: object({}), then: object({ region: annotated('string') }) }),
    'a definition reached through $ref': object({ region: { $ref: '#/$defs/region' } }, { $defs: { region: annotated('string') } }),
    'a draft-07 definition': object({ region: { $ref: '#/definitions/region' } }, { definitions: { region: annotated('string') } }),
    'a valid header next to an invalid one': object({ region: annotated('string'), list: { type: 'array', items: annotated('string', 'Item') } }),
  };
  for (const [what, schema] of Object.entries(invalid)) {
    test(`${what} makes the declaration invalid (undefined: the client drops the tool)`, () => {
      assert.equal(paramHeadersOf(schema), undefined);
    });
  }
});

describe('paramHeaderValues: the Mcp-Param-* headers a client sends', () => {
  test('the spec example: region us-west1 gives Mcp-Param-Region: us-west1 (lower-case name)', () => {
    assert.deepEqual(paramHeaderValues(REGION, { region: 'us-west1', query: 'SELECT * FROM users' }), { 'mcp-param-region': 'us-west1' });
  });

  test('integers as decimal digits, booleans as lower-case true/false, strings as they are', () => {
    const headers: ParamHeader[] = [
      { name: 'Priority', path: ['priority'] },
      { name: 'Offset', path: ['offset'] },
      { name: 'Verbose', path: ['verbose'] },
      { name: 'Debug', path: ['debug'] },
      { name: 'EmptyVal', path: ['empty'] },
      { name: 'Method', path: ['method'] },
    ];
    const args = { priority: 42, offset: -7, verbose: false, debug: true, empty: '', method: 'test-method' };
    assert.deepEqual(paramHeaderValues(headers, args), {
      'mcp-param-priority': '42',
      'mcp-param-offset': '-7',
      'mcp-param-verbose': 'false',
      'mcp-param-debug': 'true',
      'mcp-param-emptyval': '',
      'mcp-param-method': 'test-method',
    });
  });

  test('values unsafe in a header are Base64 in the sentinel: the spec\'s encoding examples', () => {
    const headers: ParamHeader[] = [{ name: 'Text', path: ['text'] }];
    const examples: [string, string][] = [
      ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
      [' padded ', '=?base64?IHBhZGRlZCA=?='],
      ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
      ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
      [' us-west1', base64(' us-west1')],
      ['us-west1 ', base64('us-west1 ')],
      ['\tindented', base64('\tindented')],
      ['line1\r\nline2', base64('line1\r\nline2')],
      ['us west 1', 'us west 1'],
    ];
    for (const [value, sent] of examples) assert.deepEqual(paramHeaderValues(headers, { text: value }), { 'mcp-param-text': sent }, JSON.stringify(value));
  });

  test('a nested value is read at its exact path', () => {
    const headers: ParamHeader[] = [{ name: 'Zone', path: ['target', 'zone'] }];
    assert.deepEqual(paramHeaderValues(headers, { target: { zone: 'eu-1' }, zone: 'us-1' }), { 'mcp-param-zone': 'eu-1' });
  });

  test('null, absent, or a value no header can carry faithfully gives no header', () => {
    const headers: ParamHeader[] = [{ name: 'Region', path: ['region'] }, { name: 'Zone', path: ['target', 'zone'] }];
    for (const args of [{}, { region: null }, { region: undefined }, { target: null }, { target: 'eu' }, { target: ['eu'] }, { target: { zone: null } }]) {
      assert.deepEqual(paramHeaderValues(headers, args), {}, JSON.stringify(args));
    }
    for (const value of [{ a: 1 }, ['a'], 2 ** 53, -(2 ** 53), Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.deepEqual(paramHeaderValues(REGION, { region: value }), {}, String(value));
    }
    for (const args of [undefined, null, 'us-west1', ['us-west1'], 42]) assert.deepEqual(paramHeaderValues(REGION, args), {});
  });

  test('only own properties are read: arguments without "constructor" send no header for it', () => {
    assert.deepEqual(paramHeaderValues([{ name: 'Ctor', path: ['constructor'] }], {}), {});
    assert.deepEqual(paramHeaderValues([{ name: 'Proto', path: ['__proto__', 'x'] }], { x: 'y' }), {});
  });
});

describe('checkParamHeaders: a server checks Mcp-Param-* headers against the body', () => {
  test('what paramHeaderValues sends passes, for every kind of value (round trip)', () => {
    const values: unknown[] = [
      'us-west1', '', 'us west 1', 'Hello, 世界', ' padded ', 'line1\nline2', 'line1\r\nline2', '\tindented',
      '=?base64?literal?=', '=?base64?SGVsbG8=?=', '=?base64?', 'x?=', '😀', 'é', '\u0000', 42, 0, -7, 2 ** 53 - 1, -(2 ** 53 - 1), true, false, 3.5,
    ];
    for (const value of values) {
      const args = { region: value, other: 1 };
      checkParamHeaders(REGION, paramHeaderValues(REGION, args), args);
    }
  });

  test('matching headers pass: plain, Base64-encoded (even when not needed), with whitespace around', () => {
    checkParamHeaders(REGION, { 'mcp-param-region': 'us-west1' }, { region: 'us-west1' });
    checkParamHeaders(REGION, { 'mcp-param-region': base64('us-west1') }, { region: 'us-west1' });
    checkParamHeaders(REGION, { 'mcp-param-region': ' \tus-west1 ' }, { region: 'us-west1' });
    checkParamHeaders(REGION, { 'mcp-param-region': `  ${base64('Hello')}\t` }, { region: 'Hello' });
    checkParamHeaders(REGION, { 'mcp-param-region': '' }, { region: '' });
    checkParamHeaders(REGION, { 'mcp-param-region': 'us\twest' }, { region: 'us\twest' });
  });

  test('a long run of whitespace inside a value costs linear time, and is not trimmed', () => {
    const value = `a${' '.repeat(100_000)}b`;
    checkParamHeaders(REGION, { 'mcp-param-region': `  ${value}\t` }, { region: value });
  });

  test('header names are case-insensitive, whatever the spelling of the object key or of x-mcp-header', () => {
    checkParamHeaders(REGION, { 'MCP-PARAM-REGION': 'us-west1' }, { region: 'us-west1' });
    checkParamHeaders(REGION, { 'Mcp-Param-Region': 'us-west1' }, { region: 'us-west1' });
    checkParamHeaders([{ name: 'rEgIoN', path: ['region'] }], { 'mcp-param-region': 'us-west1' }, { region: 'us-west1' });
  });

  test('a value without the whole sentinel is a literal (the conformance cases)', () => {
    const hello = Buffer.from('Hello').toString('base64');
    checkParamHeaders(REGION, { 'mcp-param-region': hello }, { region: hello });
    checkParamHeaders(REGION, { 'mcp-param-region': `=?base64?${hello}` }, { region: `=?base64?${hello}` });
    checkParamHeaders(REGION, { 'mcp-param-region': `${hello}?=` }, { region: `${hello}?=` });
    assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': hello }, { region: 'Hello' }), 'Mcp-Param-Region', 'arguments.region');
  });

  test('integers compare numerically: 42.0 equals 42 ("servers SHOULD compare … numerically")', () => {
    const priority: ParamHeader[] = [{ name: 'Priority', path: ['priority'] }];
    for (const sent of ['42', '42.0', '42.000', '042']) checkParamHeaders(priority, { 'mcp-param-priority': sent }, { priority: 42 });
    checkParamHeaders(priority, { 'mcp-param-priority': '-7.0' }, { priority: -7 });
    checkParamHeaders(priority, { 'mcp-param-priority': '-0' }, { priority: 0 });
    checkParamHeaders(priority, { 'mcp-param-priority': base64('42.0') }, { priority: 42 });
    checkParamHeaders(priority, { 'mcp-param-priority': '9007199254740991.0' }, { priority: 2 ** 53 - 1 });
    for (const sent of ['43', '42.5', '42.0000001', '+42', '4.2e1', '0x2A', '42abc', 'forty-two', '', '9007199254740992']) {
      assertMismatch(() => checkParamHeaders(priority, { 'mcp-param-priority': sent }, { priority: sent === '9007199254740992' ? 2 ** 53 - 1 : 42 }), 'Mcp-Param-Priority', 'arguments.priority');
    }
    // A number that is not an integer is compared as the text a client sends for it.
    checkParamHeaders(priority, { 'mcp-param-priority': '3.5' }, { priority: 3.5 });
    assertMismatch(() => checkParamHeaders(priority, { 'mcp-param-priority': '3.50' }, { priority: 3.5 }), 'Mcp-Param-Priority', 'arguments.priority');
  });

  test('booleans must be lower-case true/false, strings exact (values are case-sensitive)', () => {
    const verbose: ParamHeader[] = [{ name: 'Verbose', path: ['verbose'] }];
    checkParamHeaders(verbose, { 'mcp-param-verbose': 'true' }, { verbose: true });
    checkParamHeaders(verbose, { 'mcp-param-verbose': 'false' }, { verbose: false });
    for (const sent of ['True', 'TRUE', '1', 'yes', 'false']) {
      assertMismatch(() => checkParamHeaders(verbose, { 'mcp-param-verbose': sent }, { verbose: true }), 'Mcp-Param-Verbose', 'arguments.verbose');
    }
    assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': 'US-WEST1' }, { region: 'us-west1' }), 'Mcp-Param-Region', 'arguments.region');
    // A string body is text, even when it looks like a number.
    assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': '42' }, { region: '42.0' }), 'Mcp-Param-Region', 'arguments.region');
  });

  test('"Client omits header but value is in body": refused, naming the header and never the value', () => {
    assertMismatch(() => checkParamHeaders(REGION, {}, { region: 'us-secret-1' }), 'Mcp-Param-Region', 'arguments.region', 'us-secret-1');
    assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': undefined }, { region: '' }), 'Mcp-Param-Region', 'arguments.region');
    assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': [] }, { region: 'us-west1' }), 'Mcp-Param-Region', 'arguments.region');
    const priority: ParamHeader[] = [{ name: 'Priority', path: ['priority'] }];
    assertMismatch(() => checkParamHeaders(priority, {}, { priority: 0 }), 'Mcp-Param-Priority', 'arguments.priority');
    assertMismatch(() => checkParamHeaders([{ name: 'Debug', path: ['debug'] }], {}, { debug: false }), 'Mcp-Param-Debug', 'arguments.debug');
  });

  test('"Parameter value is null" or "not in arguments": the server does not expect the header', () => {
    checkParamHeaders(REGION, {}, { region: null });
    checkParamHeaders(REGION, {}, {});
    checkParamHeaders(REGION, {}, undefined);
    checkParamHeaders([{ name: 'Zone', path: ['target', 'zone'] }], {}, { target: null });
    // A value no header could carry (which a client omits) is not expected either.
    checkParamHeaders(REGION, {}, { region: { nested: 'us-west1' } });
    checkParamHeaders(REGION, {}, { region: 2 ** 53 });
  });

  test('a declared header with no body value to match is refused: routing on it would trust what the body does not say', () => {
    for (const args of [{}, { region: null }, { region: { nested: 'us-west1' } }, { region: ['us-west1'] }, undefined]) {
      assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': 'us-west1' }, args), 'Mcp-Param-Region', 'arguments.region', 'us-west1');
    }
  });

  test('a nested value is compared at its exact path', () => {
    const zone: ParamHeader[] = [{ name: 'Zone', path: ['target', 'zone'] }];
    checkParamHeaders(zone, { 'mcp-param-zone': 'eu-1' }, { target: { zone: 'eu-1' }, zone: 'us-1' });
    assertMismatch(() => checkParamHeaders(zone, { 'mcp-param-zone': 'us-1' }, { target: { zone: 'eu-1' }, zone: 'us-1' }), 'Mcp-Param-Zone', 'arguments.target.zone');
  });

  test('an undecodable sentinel is refused (the conformance cases: bad padding, characters outside the alphabet)', () => {
    for (const sent of ['=?base64?SGVsbG8?=', '=?base64?SGVs!!!bG8=?=', '=?base64?SGVsbG8===?=', `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`]) {
      assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': sent }, { region: 'Hello' }), 'Mcp-Param-Region', 'arguments.region');
    }
    // Even with no body value: "Servers MUST reject requests with a recognized Mcp-Param-{Name} header that contains invalid characters".
    assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': '=?base64?SGVsbG8?=' }, {}), 'Mcp-Param-Region', 'arguments.region');
  });

  test('characters outside visible ASCII, space and tab are refused, not compared', () => {
    for (const [sent, body] of [['us-wést1', 'us-wést1'], ['a\u007fb', 'a\u007fb'], ['a\u0000b', 'a\u0000b'], ['a\nb', 'a\nb'], ['\u00ff', '\u00ff']]) {
      assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': sent }, { region: body }), 'Mcp-Param-Region', 'arguments.region');
    }
  });

  test('a header sent twice (an array, or two spellings) is the values joined by ", ", which does not match one value', () => {
    assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': ['us-west1', 'eu-west1'] }, { region: 'us-west1' }), 'Mcp-Param-Region', 'arguments.region');
    assertMismatch(() => checkParamHeaders(REGION, { 'mcp-param-region': 'us-west1', 'Mcp-Param-Region': 'eu-west1' }, { region: 'us-west1' }), 'Mcp-Param-Region', 'arguments.region');
    checkParamHeaders(REGION, { 'mcp-param-region': ['us-west1, eu-west1'] }, { region: 'us-west1, eu-west1' });
  });

  test('headers the tool does not declare are ignored, whatever they hold (intermediaries forward unknown ones)', () => {
    const sent: Headers = { 'mcp-param-region': 'us-west1', 'mcp-param-other': '=?base64?SGVsbG8?=', 'mcp-param-query': 'DROP TABLE', 'mcp-param-': 'x' };
    checkParamHeaders(REGION, sent, { region: 'us-west1', query: 'SELECT 1' });
    checkParamHeaders([], sent, { region: 'eu-west1' });
  });

  test('every declared header is checked, and the first that fails is named', () => {
    const headers: ParamHeader[] = [{ name: 'Region', path: ['region'] }, { name: 'Priority', path: ['priority'] }];
    checkParamHeaders(headers, { 'mcp-param-region': 'us-west1', 'mcp-param-priority': '1' }, { region: 'us-west1', priority: 1 });
    assertMismatch(() => checkParamHeaders(headers, { 'mcp-param-region': 'us-west1' }, { region: 'us-west1', priority: 1 }), 'Mcp-Param-Priority', 'arguments.priority');
  });

  test('the declarations of a schema and the values of a call fit together (paramHeadersOf → paramHeaderValues → checkParamHeaders)', () => {
    const schema = object({ region: annotated('string'), target: object({ zone: annotated('integer', 'Zone') }), dry: annotated(['boolean', 'null'], 'Dry-Run') });
    const headers = paramHeadersOf(schema);
    assert.ok(headers !== undefined);
    const args = { region: 'Zürich', target: { zone: 7 }, dry: null };
    const sent = paramHeaderValues(headers, args);
    assert.deepEqual(sent, { 'mcp-param-region': base64('Zürich'), 'mcp-param-zone': '7' });
    checkParamHeaders(headers, sent, args);
  });
});

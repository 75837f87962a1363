import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import type { McpError } from '../errors/mcp-error.js';
import { checkStatelessHeaders, decodeHeaderValue, type RequestHeaders } from './stateless-headers.js';

const base64 = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
const call = { name: 'get_weather', arguments: {} };
const headers = (extra: RequestHeaders = {}): RequestHeaders => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_weather', ...extra });

function mismatchOf(run: () => void): McpError {
  try {
    run();
  } catch (error) {
    return error as McpError;
  }
  assert.fail('expected -32020');
}

describe('checkStatelessHeaders: the standard headers of a 2026-07-28 POST match its body', () => {
  test('matching headers pass, with whitespace around Mcp-Name and its value Base64-encoded or not', () => {
    checkStatelessHeaders(headers(), 'tools/call', call, '2026-07-28');
    checkStatelessHeaders(headers({ 'mcp-name': '  get_weather\t' }), 'tools/call', call, '2026-07-28');
    checkStatelessHeaders(headers({ 'mcp-name': base64('get_weather') }), 'tools/call', call, '2026-07-28');
    checkStatelessHeaders(headers({ 'mcp-method': 'resources/read', 'mcp-name': base64('file:///tmp/é 😀.txt') }), 'resources/read', { uri: 'file:///tmp/é 😀.txt' }, '2026-07-28');
    checkStatelessHeaders({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, 'tools/list', {}, '2026-07-28');
  });

  const refused: Record<string, [RequestHeaders, string]> = {
    'a missing MCP-Protocol-Version': [{ 'mcp-method': 'tools/call', 'mcp-name': 'get_weather' }, 'mcp-protocol-version'],
    'a version other than the body\'s (the header does not win)': [headers({ 'mcp-protocol-version': '2025-11-25' }), 'mcp-protocol-version'],
    'a missing Mcp-Method': [{ 'mcp-protocol-version': '2026-07-28', 'mcp-name': 'get_weather' }, 'mcp-method'],
    'a method in other case (values are case-sensitive)': [headers({ 'mcp-method': 'TOOLS/CALL' }), 'mcp-method'],
    'a missing Mcp-Name on tools/call': [{ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' }, 'mcp-name'],
    'another name': [headers({ 'mcp-name': 'get_forecast' }), 'mcp-name'],
    'an encoded name that is not valid Base64 (padding)': [headers({ 'mcp-name': '=?base64?SGVsbG8?=' }), 'mcp-name'],
    'an encoded name that is not valid Base64 (alphabet)': [headers({ 'mcp-name': '=?base64?Z2V0X3*lYXRoZXI=?=' }), 'mcp-name'],
  };
  for (const [what, [sent, header]] of Object.entries(refused)) {
    test(`${what} is -32020, naming the header`, () => {
      const error = mismatchOf(() => checkStatelessHeaders(sent, 'tools/call', call, '2026-07-28'));
      assert.equal(error.code, ErrorCode.HeaderMismatch);
      assert.equal(error.code, -32020);
      assert.equal((error.data as { mismatch: { header: string } }).mismatch.header, header);
    });
  }
});

describe('decodeHeaderValue', () => {
  test('decodes the sentinel strictly, and takes anything else literally', () => {
    assert.equal(decodeHeaderValue(base64('Grüße\n')), 'Grüße\n');
    assert.equal(decodeHeaderValue('=?base64??='), '');
    assert.equal(decodeHeaderValue('=?base64?abc'), '=?base64?abc', 'no suffix: literal');
    assert.equal(decodeHeaderValue('base64?YQ==?='), 'base64?YQ==?=', 'no prefix: literal');
    assert.equal(decodeHeaderValue('=?BASE64?YQ==?='), '=?BASE64?YQ==?=', 'the markers are lower case');
    assert.equal(decodeHeaderValue('=?base64?YQ=?='), undefined);
    assert.equal(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`), undefined, 'not UTF-8');
  });
});

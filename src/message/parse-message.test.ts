import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyMessage } from './parse-message.js';

describe('classifyMessage', () => {
  test('recognizes requests, notifications and responses', () => {
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'x' }).kind, 'request');
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: 'a', method: 'x', params: {} }).kind, 'request');
    assert.equal(classifyMessage({ jsonrpc: '2.0', method: 'x' }).kind, 'notification');
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: 1, result: {} }).kind, 'response');
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: null, error: { code: -1, message: 'm' } }).kind, 'response');
  });

  const invalid: Array<[string, unknown, string | number | null]> = [
    ['a scalar', 42, null],
    ['an array element that is a string', 'x', null],
    ['null', null, null],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 7, method: 'x' }, 7],
    ['a missing jsonrpc', { id: 7, method: 'x' }, 7],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'x' }, null],
    ['a boolean id', { jsonrpc: '2.0', id: true, method: 'x' }, null],
    ['an object id', { jsonrpc: '2.0', id: { a: 1 }, method: 'x' }, null],
    ['a non-string method', { jsonrpc: '2.0', id: 3, method: 5 }, 3],
    ['an empty method', { jsonrpc: '2.0', id: 3, method: '' }, 3],
    ['scalar params', { jsonrpc: '2.0', id: 4, method: 'x', params: 1 }, 4],
    ['array params', { jsonrpc: '2.0', id: 4, method: 'x', params: [1] }, 4],
    ['both result and error', { jsonrpc: '2.0', id: 5, result: {}, error: { code: 1, message: 'm' } }, 5],
    ['a malformed error', { jsonrpc: '2.0', id: 6, error: { code: 'x' } }, 6],
    ['a non-object result', { jsonrpc: '2.0', id: 6, result: 3 }, 6],
    ['nothing recognizable', { jsonrpc: '2.0', id: 8 }, 8],
  ];
  for (const [name, value, id] of invalid) {
    test(`refuses ${name} with -32600, echoing the id when readable`, () => {
      const classified = classifyMessage(value);
      assert.equal(classified.kind, 'invalid');
      if (classified.kind !== 'invalid') return;
      assert.equal(classified.error.code, -32600);
      assert.equal(classified.id, id);
    });
  }
});

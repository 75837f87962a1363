import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CancelledError } from './cancelled-error.js';
import { ErrorCode } from './error-code.js';
import { McpError } from './mcp-error.js';
import { toWireError } from './to-wire-error.js';

describe('McpError', () => {
  test('serializes to a JSON-RPC error object, with data only when given', () => {
    assert.deepEqual(new McpError(-32602, 'Unknown tool: x').toJSON(), { code: -32602, message: 'Unknown tool: x' });
    assert.deepEqual(new McpError(ErrorCode.ResourceNotFound, 'Resource not found', { uri: 'a' }).toJSON(), { code: ErrorCode.ResourceNotFound, message: 'Resource not found', data: { uri: 'a' } });
  });

  test('is recognized when made by another copy of the module (a chain file loading its own copy)', async () => {
    const copy = (await import(`./mcp-error.js?copy=${Date.now()}`)) as { McpError: typeof McpError };
    assert.notEqual(copy.McpError, McpError);
    const foreign = new copy.McpError(-32602, 'Unknown tool: y');
    assert.ok(foreign instanceof McpError);
    assert.deepEqual(toWireError(foreign, () => assert.fail('must not be logged as unexpected')), { code: -32602, message: 'Unknown tool: y' });
  });

  test('anything else becomes -32603 with a generic message, and its cause is logged', () => {
    const logged: unknown[] = [];
    assert.deepEqual(toWireError(new Error('db password is hunter2'), (e) => logged.push(e)), { code: -32603, message: 'Internal error' });
    assert.equal(logged.length, 1);
    assert.equal(new Error('x') instanceof McpError, false);
    assert.equal(({ code: 1, message: 'x' }) instanceof McpError, false);
  });
});

describe('CancelledError', () => {
  test('is an McpError, but not every McpError is a CancelledError', () => {
    const cancelled = new CancelledError('user pressed stop');
    assert.ok(cancelled instanceof McpError);
    assert.ok(cancelled instanceof CancelledError);
    assert.equal(new McpError(-32001, 'Request timed out') instanceof CancelledError, false);
  });
});

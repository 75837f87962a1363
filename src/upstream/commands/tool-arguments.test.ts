import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpError } from '../../errors/mcp-error.js';
import type { CommandParameter } from './command-options.js';
import { checkArguments, inputSchemaOf } from './tool-arguments.js';

const parameters: Record<string, CommandParameter> = {
  path: { type: 'string', required: true, description: 'A path', pattern: '^[a-z./]+$', maxLength: 20 },
  count: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
  ratio: { type: 'number' },
  mode: { type: 'string', enum: ['fast', 'slow'] },
  verbose: { type: 'boolean' },
  files: { type: 'array', maxItems: 2, pattern: '^[a-z]+$' },
};

function refusal(args: Record<string, unknown>, parameter: string, problem: RegExp): void {
  assert.throws(
    () => checkArguments(parameters, args),
    (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      assert.ok(error.message.startsWith(`Invalid argument "${parameter}": `), error.message);
      assert.match(error.message, problem);
      assert.deepEqual(error.data, { parameter });
      return true;
    },
  );
}

describe('tool arguments', () => {
  test('inputSchema: types, descriptions, defaults, constraints, required without a default, nothing else', () => {
    assert.deepEqual(inputSchemaOf(parameters), {
      type: 'object',
      properties: {
        path: { type: 'string', pattern: '^[a-z./]+$', maxLength: 20, description: 'A path' },
        count: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        ratio: { type: 'number' },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        verbose: { type: 'boolean' },
        files: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, maxItems: 2 },
      },
      required: ['path'],
      additionalProperties: false,
    });
    assert.deepEqual(inputSchemaOf({}), { type: 'object', properties: {}, additionalProperties: false });
  });

  test('valid arguments come back with defaults filled in; null counts as absent', () => {
    const values = checkArguments(parameters, { path: 'a/b', ratio: 0.5, mode: 'fast', verbose: false, files: ['x'], count: null });
    assert.deepEqual(Object.fromEntries(values), { path: 'a/b', count: 10, ratio: 0.5, mode: 'fast', verbose: false, files: ['x'] });
  });

  const refusals: [string, Record<string, unknown>, string, RegExp][] = [
    ['a missing required parameter', {}, 'path', /required/],
    ['an unknown parameter', { path: 'a', rm: true }, 'rm', /unknown parameter \(expected "path", "count"/],
    ['a number for a string', { path: 5 }, 'path', /expected a string, got a number/],
    ['a pattern mismatch', { path: 'A' }, 'path', /must match the pattern \^\[a-z\.\/\]\+\$/],
    ['too long', { path: 'a'.repeat(21) }, 'path', /at most 20 characters/],
    ['a NUL byte', { path: 'a\0b' }, 'path', /NUL/],
    ['a fraction for an integer', { path: 'a', count: 1.5 }, 'count', /expected an integer/],
    ['below the minimum', { path: 'a', count: 0 }, 'count', /at least 1/],
    ['above the maximum', { path: 'a', count: 101 }, 'count', /at most 100/],
    ['a string for a number', { path: 'a', ratio: '1' }, 'ratio', /expected a number, got a string/],
    ['not in the enum', { path: 'a', mode: 'medium' }, 'mode', /must be one of "fast", "slow"/],
    ['a string for a boolean', { path: 'a', verbose: 'true' }, 'verbose', /expected a boolean/],
    ['a string for an array', { path: 'a', files: 'x' }, 'files', /expected an array of strings/],
    ['too many items', { path: 'a', files: ['a', 'b', 'c'] }, 'files', /at most 2 items/],
    ['an item of the wrong type', { path: 'a', files: ['a', 1] }, 'files', /item 1: expected a string/],
    ['an item breaking the pattern', { path: 'a', files: ['a', '-x'] }, 'files', /item 1: must match/],
    ['a NUL byte in an item', { path: 'a', files: ['\0'] }, 'files', /item 0: contains a NUL/],
  ];
  for (const [name, args, parameter, problem] of refusals) {
    test(`${name} is -32602 naming the parameter`, () => refusal(args, parameter, problem));
  }
});

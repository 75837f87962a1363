import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpError } from '../../errors/mcp-error.js';
import { ArgvTemplate } from './argv-template.js';
import type { CommandArg, CommandParameter, CommandParameterValue } from './command-options.js';

const parameters: Record<string, CommandParameter> = {
  path: { type: 'string' },
  count: { type: 'integer' },
  ratio: { type: 'number' },
  verbose: { type: 'boolean' },
  files: { type: 'array' },
  format: { type: 'string' },
  expr: { type: 'string', allowDashPrefix: true },
};

function expand(args: readonly CommandArg[], values: Record<string, CommandParameterValue>): string[] {
  const compiled = ArgvTemplate.compile(args, parameters);
  assert.equal(compiled.problems, undefined, JSON.stringify(compiled.problems));
  return (compiled.template as ArgvTemplate).expand(new Map(Object.entries(values)));
}

describe('ArgvTemplate', () => {
  const cases: { name: string; args: CommandArg[]; values: Record<string, CommandParameterValue>; argv: string[] }[] = [
    { name: 'literals pass as they are', args: ['-l', '--all', 'a b'], values: {}, argv: ['-l', '--all', 'a b'] },
    { name: 'a whole-element placeholder is one element', args: ['{path}'], values: { path: 'a b; c' }, argv: ['a b; c'] },
    { name: 'an absent placeholder leaves its element out', args: ['ls', '{path}'], values: {}, argv: ['ls'] },
    { name: 'a placeholder inside text', args: ['--format={format}'], values: { format: 'json' }, argv: ['--format=json'] },
    { name: 'text with an absent placeholder is left out whole', args: ['--format={format}', 'x'], values: {}, argv: ['x'] },
    { name: 'two placeholders in one element', args: ['{path}:{count}'], values: { path: 'f', count: 3 }, argv: ['f:3'] },
    { name: 'numbers as text', args: ['{count}', '{ratio}'], values: { count: 10, ratio: 0.5 }, argv: ['10', '0.5'] },
    { name: 'a flag and its value as two elements', args: [{ param: 'count', flag: '-n' }], values: { count: 5 }, argv: ['-n', '5'] },
    { name: 'an absent flagged value gives nothing', args: [{ param: 'count', flag: '-n' }, 'x'], values: {}, argv: ['x'] },
    { name: 'a boolean flag when true', args: [{ param: 'verbose', flag: '-v' }], values: { verbose: true }, argv: ['-v'] },
    { name: 'a boolean flag when false gives nothing', args: [{ param: 'verbose', flag: '-v' }], values: { verbose: false }, argv: [] },
    { name: 'an array expands into one element per item', args: ['cat', '{files}'], values: { files: ['a', 'b c', 'd'] }, argv: ['cat', 'a', 'b c', 'd'] },
    { name: 'an empty array gives no element', args: ['cat', '{files}'], values: { files: [] }, argv: ['cat'] },
    { name: 'an array with a flag repeats the flag', args: [{ param: 'files', flag: '-e' }], values: { files: ['a', 'b'] }, argv: ['-e', 'a', '-e', 'b'] },
    { name: 'an array in text repeats the element', args: ['--include={files}'], values: { files: ['a', 'b'] }, argv: ['--include=a', '--include=b'] },
    { name: '{ param } without a flag is a placeholder', args: [{ param: 'path' }], values: { path: 'p' }, argv: ['p'] },
    { name: '{ literal } keeps braces', args: [{ literal: '{path}' }], values: { path: 'p' }, argv: ['{path}'] },
    { name: 'braces around what is not a name stay', args: ['{print $1}', '{}'], values: {}, argv: ['{print $1}', '{}'] },
    { name: 'a dash value after a literal -- is accepted', args: ['--', '{path}'], values: { path: '-rf' }, argv: ['--', '-rf'] },
    { name: 'a dash value after a flag is its value', args: [{ param: 'format', flag: '--format' }], values: { format: '-x' }, argv: ['--format', '-x'] },
    { name: 'a dash value inside text that starts with a literal', args: ['--format={format}'], values: { format: '-x' }, argv: ['--format=-x'] },
    { name: 'allowDashPrefix lets a dash value through', args: ['{expr}'], values: { expr: '-name' }, argv: ['-name'] },
    { name: 'an empty string is an empty element', args: ['{path}'], values: { path: '' }, argv: [''] },
  ];
  for (const { name, args, values, argv } of cases) {
    test(name, () => assert.deepEqual(expand(args, values), argv));
  }

  const injections = ['; rm -rf /', '$(touch pwned)', '`touch pwned`', 'a | cat', 'a && touch pwned', 'a\ntouch pwned', "'\"", '*', '~', '>x'];
  for (const value of injections) {
    test(`${JSON.stringify(value)} is one literal element`, () => assert.deepEqual(expand(['{path}'], { path: value }), [value]));
  }

  const dashRefusals: [CommandArg[], string, CommandParameterValue][] = [
    [['{path}'], 'path', '--output=/etc/x'],
    [['{path}'], 'path', '-rf'],
    [['{files}'], 'files', ['ok', '-x']],
    [['{path}.txt'], 'path', '-x'],
    [[{ param: 'path' }], 'path', '-'],
  ];
  for (const [args, param, value] of dashRefusals) {
    test(`${JSON.stringify(value)} in ${JSON.stringify(args)} before any -- is refused with -32602 naming the parameter`, () => {
      assert.throws(
        () => expand(args, { [param]: value }),
        (error: unknown) => error instanceof McpError && error.code === -32602 && error.message.includes(`"${param}"`) && /starting with "-"/.test(error.message),
      );
    });
  }

  test('problems: a placeholder naming no parameter, a flag of an unknown parameter, two arrays in one element', () => {
    const compiled = ArgvTemplate.compile(['{pth}', { param: 'nope', flag: '-x' }, '{files}{files}'], parameters);
    assert.deepEqual(
      compiled.problems?.map((p) => [p.path.join('.'), p.message.slice(0, 40)]),
      [
        ['args.0', 'names the parameter "pth", which is not '],
        ['args.1.param', 'names the parameter "nope", which is not'],
        ['args.2', 'places more than one array parameter (fi'],
      ],
    );
  });
});

// A `commands` server in a config file: validated by the schema, normalized (variables, paths,
// the definition checked with places), built into a gateway whose tools run the programs.
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { harness } from '../testing/harness.js';
import { ARGV_PROGRAM, BEHAVE_PROGRAM } from '../upstream/commands/_test/programs.js';
import { captureLogger, configErrorOf, tempDir, write } from './_test/config-files.js';
import { buildGateway } from './build-gateway.js';
import type { CommandsServerConfig } from './gateway-config.js';
import { loadConfig } from './load-config.js';

const dir = tempDir('mcp-chain-commands-config-');
let files = 0;
function file(text: string | object, ext = 'json'): string {
  return write(dir, join(`case-${++files}`, `config.${ext}`), text);
}

const node = process.execPath;

describe('a commands server in a config file', () => {
  test('is normalized: variables resolved in programs, literal args, flags, cwd and env; cwd made absolute; parameters as written', async () => {
    const path = file({
      mcpServers: {
        tools: {
          cwd: 'work',
          env: { LEVEL: '${LEVEL}' },
          commands: {
            list: {
              description: 'List a directory',
              command: '${NODE}',
              args: ['${SCRIPT}', { param: 'all', flag: '${FLAG}' }, { literal: '{x}' }, '{dir}'],
              parameters: { dir: { type: 'string', default: '.' }, all: { type: 'boolean' } },
              env: { TOKEN: '${TOKEN}' },
              cwd: 'sub',
              timeoutMs: 5000,
              annotations: { readOnlyHint: true },
            },
            plain: { description: 'Just runs', command: 'true' },
          },
        },
      },
    });
    const config = await loadConfig(path, { env: { NODE: node, SCRIPT: ARGV_PROGRAM, FLAG: '-a', TOKEN: 't0k', LEVEL: '2' } });
    const [server] = config.servers;
    assert.equal(server?.transport, 'commands');
    const { commands, env, cwd } = server as CommandsServerConfig;
    assert.equal(cwd, join(dir, `case-${files}`, 'work'));
    assert.deepEqual(env, { LEVEL: '2' });
    assert.deepEqual(commands, {
      list: {
        description: 'List a directory',
        command: node,
        args: [ARGV_PROGRAM, { param: 'all', flag: '-a' }, { literal: '{x}' }, '{dir}'],
        parameters: { dir: { type: 'string', default: '.' }, all: { type: 'boolean' } },
        env: { TOKEN: 't0k' },
        cwd: join(dir, `case-${files}`, 'work', 'sub'),
        timeoutMs: 5000,
        annotations: { readOnlyHint: true },
      },
      plain: { description: 'Just runs', command: 'true', args: [], cwd: join(dir, `case-${files}`, 'work') },
    });
  });

  test('without a server cwd, a tool cwd is relative to the config file', async () => {
    const path = file({ mcpServers: { t: { commands: { pwd: { description: 'x', command: 'pwd', cwd: 'here' } } } } });
    const config = await loadConfig(path);
    assert.equal((config.servers[0] as CommandsServerConfig).commands.pwd?.cwd, join(dir, `case-${files}`, 'here'));
  });

  test('schema problems name their place: a bad tool name, an unknown key, a wrong type, a bad arg', async () => {
    const path = file({
      mcpServers: {
        t: {
          commands: {
            'no spaces': { description: 'x', command: 'true' },
            ls: { description: 'x', command: 'ls', shell: true, timeoutMs: -1, args: [5], parameters: { p: { type: 'str' } } },
          },
        },
      },
    });
    const error = await configErrorOf(loadConfig(path));
    const paths = error.problems.map((problem) => problem.path);
    assert.ok(paths.some((p) => p.startsWith('mcpServers.t.commands')) && paths.some((p) => p.includes('no spaces')), error.message);
    for (const where of ['mcpServers.t.commands.ls.shell', 'mcpServers.t.commands.ls.timeoutMs', 'mcpServers.t.commands.ls.args[0]', 'mcpServers.t.commands.ls.parameters.p.type']) {
      assert.ok(paths.includes(where), `${where} in:\n${error.message}`);
    }
  });

  test('definition problems name their place: a placeholder naming no parameter, a bad default', async () => {
    const path = file({
      mcpServers: {
        t: {
          commands: {
            grep: { description: 'x', command: 'grep', args: ['{patern}'], parameters: { pattern: { type: 'string' }, n: { type: 'integer', default: 'ten', minimum: 1 } } },
          },
        },
      },
    });
    const error = await configErrorOf(loadConfig(path));
    assert.deepEqual(
      error.problems.map((problem) => [problem.path, problem.message.slice(0, 36)]),
      [
        ['mcpServers.t.commands.grep.args[0]', 'names the parameter "patern", which '],
        ['mcpServers.t.commands.grep.parameters.n.default', 'expected an integer, got a string'],
      ],
    );
    assert.ok(error.problems.every((problem) => problem.line !== undefined), 'each problem has its line');
  });

  test('commands beside command or url, or with a type, is a problem', async () => {
    const both = await configErrorOf(loadConfig(file({ mcpServers: { t: { command: 'x', commands: { a: { description: 'x', command: 'true' } } } } })));
    assert.match(both.message, /mcpServers\.t: give one of "command", "commands", not both/);
    const typed = await configErrorOf(loadConfig(file({ mcpServers: { t: { type: 'stdio', commands: { a: { description: 'x', command: 'true' } } } } })));
    assert.match(typed.message, /mcpServers\.t\.type: "commands" takes no "type"/);
  });

  test('keys of other kinds of server are ignored with a warning', async () => {
    const log = captureLogger();
    await loadConfig(file({ mcpServers: { t: { args: ['x'], headers: { A: 'b' }, commands: { a: { description: 'x', command: 'true' } } } } }), { log });
    assert.deepEqual(
      log.lines.filter((line) => line.level === 'warn').map((line) => line.message.replace(/^.*: mcpServers/, 'mcpServers')),
      ['mcpServers.t.args: ignored: it applies to a server started with "command"', 'mcpServers.t.headers: ignored: it applies to a remote server ("url")'],
    );
  });

  test('YAML works too, and the gateway serves the tools with its prefix, running the programs', async () => {
    const path = file(
      [
        'mcpServers:',
        '  sh:',
        '    commands:',
        '      argv:',
        '        description: Prints its argv',
        `        command: ${JSON.stringify(node)}`,
        `        args: [${JSON.stringify(ARGV_PROGRAM)}, "{value}"]`,
        '        parameters:',
        '          value: { type: string, required: true }',
        '      where:',
        '        description: Prints its directory',
        `        command: ${JSON.stringify(node)}`,
        `        args: [${JSON.stringify(BEHAVE_PROGRAM)}, cwd]`,
        '        cwd: .',
        '  other:',
        '    commands:',
        '      nothing: { description: Does nothing, command: "true" }',
      ].join('\n'),
      'yaml',
    );
    const gateway = await buildGateway(await loadConfig(path), { log: captureLogger() });
    const h = await harness(gateway.upstream);
    try {
      const { tools } = await h.request('tools/list');
      assert.deepEqual(tools.map((tool) => tool.name), ['sh__argv', 'sh__where', 'other__nothing']);
      const result = await h.request('tools/call', { name: 'sh__argv', arguments: { value: '$(touch pwned); `id`' } });
      assert.deepEqual(result.content, [{ type: 'text', text: '["$(touch pwned); `id`"]\n' }]);
      const where = await h.request('tools/call', { name: 'sh__where', arguments: {} });
      assert.deepEqual(where.content, [{ type: 'text', text: realpathSync(join(dir, `case-${files}`)) }]);
    } finally {
      await h.close();
    }
  });
});

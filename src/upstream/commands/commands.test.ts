import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness, type Harness } from '../../testing/harness.js';
import { alive, ARGV_PROGRAM, BEHAVE_PROGRAM, fixtureChildren, hangingGroup } from './_test/programs.js';
import { commands } from './commands.js';
import { COMMAND_OUTPUT_SCHEMA } from './command-result.js';

const node = process.execPath;
const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-commands-'));
const SECRET = 'MCP_CHAIN_COMMANDS_TEST_SECRET';

const server = commands({
  cwd: dir,
  env: { FROM_SERVER: 'server' },
  killGraceMs: 300,
  tools: {
    argv: {
      description: 'Prints its argv',
      title: 'Argv',
      command: node,
      args: [ARGV_PROGRAM, { param: 'count', flag: '-n' }, { param: 'verbose', flag: '-v' }, '{path}', '{rest}'],
      parameters: {
        path: { type: 'string', required: true, description: 'A path' },
        count: { type: 'integer', minimum: 1 },
        verbose: { type: 'boolean', default: false },
        rest: { type: 'array' },
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    after_dashes: { description: 'Anything after --', command: node, args: [ARGV_PROGRAM, '--', '{value}'], parameters: { value: { type: 'string', required: true } } },
    fail: { description: 'Exits with a code', command: node, args: [BEHAVE_PROGRAM, 'exit', '{code}', '{message}'], parameters: { code: { type: 'integer', required: true }, message: { type: 'string' } } },
    hang: { description: 'Never ends', command: node, args: [BEHAVE_PROGRAM, 'hang'], timeoutMs: 1500 },
    hang_long: { description: 'Never ends either', command: node, args: [BEHAVE_PROGRAM, 'hang'], timeoutMs: 60_000 },
    env: { description: 'Prints variables', command: node, args: [BEHAVE_PROGRAM, 'env', 'FROM_SERVER', 'FROM_TOOL', SECRET, 'PATH'], env: { FROM_TOOL: 'tool' } },
    cwd: { description: 'Prints its directory', command: node, args: [BEHAVE_PROGRAM, 'cwd'] },
    sub_cwd: { description: 'Prints its directory', command: node, args: [BEHAVE_PROGRAM, 'cwd'], cwd: 'sub' },
    cat: { description: 'Copies stdin', command: node, args: [BEHAVE_PROGRAM, 'stdin'], parameters: { text: { type: 'string', required: true } }, stdin: 'text' },
    big: { description: 'Writes a lot', command: node, args: [BEHAVE_PROGRAM, 'bytes', '5000'], maxOutputBytes: 100 },
    missing: { description: 'Not installed', command: 'no-such-program-mcp-chain' },
    one_at_a_time: { description: 'Never ends, one at a time', command: node, args: [BEHAVE_PROGRAM, 'hang'], maxConcurrent: 1 },
  },
});

let h: Harness;
before(async () => {
  h = await harness(server);
});
after(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(name: string, args: JsonObject = {}): Promise<JsonObject> {
  return h.request('tools/call', { name, arguments: args });
}

function texts(result: JsonObject): string[] {
  return (result.content as JsonObject[]).map((item) => String(item.text));
}

async function refused(name: string, args: JsonObject, parameter: string, message: RegExp): Promise<void> {
  await assert.rejects(call(name, args), (error: unknown) => {
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32602);
    assert.match(error.message, message);
    assert.ok(error.message.includes(`"${parameter}"`), error.message);
    return true;
  });
}

describe('commands', () => {
  test('tools/list: each tool with its description, title, argument schema, output schema and annotations', async () => {
    const { tools } = await h.request('tools/list');
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['argv', 'after_dashes', 'fail', 'hang', 'hang_long', 'env', 'cwd', 'sub_cwd', 'cat', 'big', 'missing', 'one_at_a_time'],
    );
    assert.deepEqual(tools[0], {
      name: 'argv',
      description: 'Prints its argv',
      title: 'Argv',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'A path' },
          count: { type: 'integer', minimum: 1 },
          verbose: { type: 'boolean', default: false },
          rest: { type: 'array', items: { type: 'string' } },
        },
        required: ['path'],
        additionalProperties: false,
      },
      outputSchema: COMMAND_OUTPUT_SCHEMA,
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  });

  test('a call: the argv built from the arguments, stdout as text and structured content', async () => {
    const result = await call('argv', { path: 'a b', count: 3, verbose: true, rest: ['x', 'y'] });
    assert.deepEqual(JSON.parse(texts(result)[0] ?? ''), ['-n', '3', '-v', 'a b', 'x', 'y']);
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { exitCode: 0, signal: null, stdout: '["-n","3","-v","a b","x","y"]\n', stderr: '', timedOut: false, truncated: false });
  });

  const injections = ['; rm -rf /', '$(touch pwned)', '`touch pwned`', 'x | touch pwned', 'x && touch pwned', 'x\ntouch pwned', '> pwned', "'; touch pwned; '"];
  test('injection attempts arrive as literal argv elements and run nothing', async () => {
    for (const value of injections) {
      const result = await call('argv', { path: value, rest: [value, '*'] });
      assert.deepEqual(JSON.parse(texts(result)[0] ?? ''), [value, value, '*'], value);
    }
    assert.deepEqual(readdirSync(dir), [], 'nothing was created in the working directory');
    assert.equal(existsSync('pwned'), false);
  });

  test('an option smuggled into a positional argument is refused with -32602 naming the parameter', async () => {
    await refused('argv', { path: '--output=/etc/x' }, 'path', /starting with "-"/);
    await refused('argv', { path: 'ok', rest: ['fine', '-rf'] }, 'rest', /starting with "-"/);
  });

  test('after a literal --, a value starting with - is passed as it is', async () => {
    assert.deepEqual(JSON.parse(texts(await call('after_dashes', { value: '--output=/etc/x' }))[0] ?? ''), ['--', '--output=/etc/x']);
  });

  test('a NUL byte, a wrong type, a missing or unknown argument: -32602 naming the parameter', async () => {
    await refused('argv', { path: 'a\0b' }, 'path', /NUL/);
    await refused('argv', { path: 'a', count: 'three' }, 'count', /expected an integer/);
    await refused('argv', { path: 'a', count: 0 }, 'count', /at least 1/);
    await refused('argv', {}, 'path', /required/);
    await refused('argv', { path: 'a', shell: 'sh' }, 'shell', /unknown parameter/);
  });

  test('a non-zero exit: isError, stderr labelled, the exit code said and in structured content', async () => {
    const result = await call('fail', { code: 2, message: 'no such thing' });
    assert.equal(result.isError, true);
    assert.deepEqual(texts(result), ['out', 'stderr:\nno such thing', '[exited with code 2]']);
    assert.deepEqual(result.structuredContent, { exitCode: 2, signal: null, stdout: 'out', stderr: 'no such thing', timedOut: false, truncated: false });
  });

  test('a command that hangs is killed at its timeout, with its grandchild: isError saying so', async () => {
    const running = call('hang');
    // What its group holds while it runs (the program and its grandchild), from the process table.
    const members = await hangingGroup();
    const result = await running;
    assert.equal(result.isError, true);
    assert.equal(texts(result).at(-1), '[timed out after 1500 ms: the process and its group were killed]');
    const structured = result.structuredContent as JsonObject;
    assert.equal(structured.timedOut, true);
    assert.equal(structured.signal, 'SIGTERM');
    assert.deepEqual(members.filter(alive), []);
  });

  test('a call the client cancels kills the process group', async () => {
    const id = 'cancel-me';
    void h.call('tools/call', { name: 'hang_long', arguments: {} }, id).catch(() => undefined);
    const members = await hangingGroup();
    h.notify('notifications/cancelled', { requestId: id, reason: 'test' });
    const deadline = Date.now() + 10_000;
    while (members.some(alive)) {
      assert.ok(Date.now() < deadline, `still running: ${members.filter(alive).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  test('maxConcurrent: a second call waits for the first to end before its program starts', async () => {
    const waitFor = async <T>(check: () => T | undefined, what: string): Promise<T> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const value = check();
        if (value !== undefined) return value;
        assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    void h.call('tools/call', { name: 'one_at_a_time', arguments: {} }, 'first').catch(() => undefined);
    const [first] = await waitFor(() => (fixtureChildren().length === 1 ? fixtureChildren() : undefined), 'the first run');
    void h.call('tools/call', { name: 'one_at_a_time', arguments: {} }, 'second').catch(() => undefined);
    // A ping sent after the second call has been answered: the second call has been read, and must wait.
    await h.request('ping');
    assert.deepEqual(fixtureChildren(), [first]);
    h.notify('notifications/cancelled', { requestId: 'first' });
    const [second] = await waitFor(() => {
      const now = fixtureChildren();
      return now.length === 1 && now[0] !== first ? now : undefined;
    }, 'the second run, once the first has ended');
    assert.equal(alive(first as number), false);
    h.notify('notifications/cancelled', { requestId: 'second' });
    await waitFor(() => (alive(second as number) ? undefined : true), 'the second run to end');
  });

  test("the environment: a safe default set, the server's and the tool's variables, none of our secrets", async () => {
    process.env[SECRET] = 'hunter2';
    try {
      const env = JSON.parse(texts(await call('env'))[0] ?? '') as Record<string, string | null>;
      assert.equal(env.FROM_SERVER, 'server');
      assert.equal(env.FROM_TOOL, 'tool');
      assert.equal(env[SECRET], null);
      assert.equal(env.PATH, process.env.PATH);
    } finally {
      Reflect.deleteProperty(process.env, SECRET);
    }
  });

  test("the working directory: the server's, and a tool's relative to it", async () => {
    assert.equal(texts(await call('cwd'))[0], realpathSync(dir));
    const missing = await call('sub_cwd');
    assert.equal(missing.isError, true);
    assert.match(texts(missing).at(-1) ?? '', /its working directory .*sub does not exist/);
  });

  test('stdin: the named parameter is written to the program', async () => {
    assert.deepEqual(texts(await call('cat', { text: 'line 1\nline 2' })), ['line 1\nline 2']);
  });

  test('output over the cap is cut with a note; truncated in structured content', async () => {
    const result = await call('big');
    assert.equal(result.isError, undefined);
    const [stdout, stderr] = texts(result);
    assert.equal(stdout, `${'x'.repeat(100)}\n[… stdout truncated: 5,000 bytes, over the limit of 100]`);
    assert.equal(stderr, `stderr:\n${'e'.repeat(100)}\n[… stderr truncated: 5,000 bytes, over the limit of 100]`);
    assert.equal((result.structuredContent as JsonObject).truncated, true);
  });

  test('a program that is not installed: isError naming it', async () => {
    const result = await call('missing');
    assert.equal(result.isError, true);
    assert.deepEqual(texts(result), ['[cannot run "no-such-program-mcp-chain": not found on PATH]']);
    assert.deepEqual(result.structuredContent, { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, truncated: false });
  });

  test('a definition that does not hold together throws, naming each problem', () => {
    assert.throws(
      () =>
        commands({
          tools: {
            'bad name!': { description: 'x', command: 'true' },
            grep: {
              description: 'x',
              command: 'grep',
              args: ['{patern}'],
              parameters: { pattern: { type: 'string', default: 5 as unknown as string }, unused: { type: 'string' } },
              stdin: 'unused',
            },
            count: { description: 'x', command: 'wc', args: ['{n}'], parameters: { n: { type: 'string', pattern: '(' } }, timeoutMs: 0 },
          },
        }),
      (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(error.message, /bad name!: a tool name is 1 to 128 letters/);
        assert.match(error.message, /grep\.parameters\.pattern\.default: expected a string, got a number/);
        assert.match(error.message, /grep\.args\.0: names the parameter "patern", which is not declared \(parameters: pattern, unused\)/);
        assert.match(error.message, /count\.parameters\.n\.pattern: not a valid regular expression/);
        assert.match(error.message, /count\.timeoutMs: expected a positive integer/);
        return true;
      },
    );
    assert.throws(() => commands({ tools: { t: { description: 'x', command: 'true', parameters: { a: { type: 'number' } } } } }), /t\.parameters\.a: is used nowhere/);
    assert.throws(() => commands({ tools: { t: { description: 'x', command: 'true', parameters: { a: { type: 'number' } }, stdin: 'a' } } }), /t\.stdin: names "a", which is a number: stdin takes a string parameter/);
  });
});

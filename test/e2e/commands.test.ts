// `commands` end to end: `mcp-chain serve` of a JSON config file with a server made of command-line
// programs (node running fixture scripts, `ls`, `git --version`) beside server-everything, reached
// by the official SDK client on stdio and on --http. The tools are listed with their schemas;
// injection attempts arrive as literal argv elements and run nothing; a smuggled option is -32602;
// a command that hangs is killed at its timeout with nothing of it left running.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { commandLine, descendantsOf, eventually, gatewayTarget, referenceEntry, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, proxyBuilt, repoRoot, type Connection } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';
import { processAlive } from '../integration/_process.js';

const T = { timeout: 40_000 };
const ARGV = join(repoRoot, 'test/fixtures/programs/argv.mjs');
const BEHAVE = join(repoRoot, 'test/fixtures/programs/behave.mjs');
const HANG_TIMEOUT_MS = 2000;

function configFile(ws: Workspace): string {
  ws.write('files/a.txt', 'a');
  ws.write('files/b.txt', 'b');
  ws.mkdir('scratch');
  return ws.write(
    'mcp-chain.json',
    JSON.stringify({
      mcpServers: {
        everything: referenceEntry('server-everything'),
        sh: {
          cwd: 'scratch',
          commands: {
            argv: {
              description: 'Prints the arguments it was given, as JSON',
              command: process.execPath,
              args: [ARGV, { param: 'lines', flag: '-n' }, '{value}', '{more}'],
              parameters: {
                value: { type: 'string', required: true, description: 'Any text' },
                more: { type: 'array', description: 'More text' },
                lines: { type: 'integer', minimum: 1 },
              },
              annotations: { readOnlyHint: true },
            },
            ls: {
              description: 'Lists a directory of the workspace',
              command: 'ls',
              args: ['-1', '--', '{dir}'],
              parameters: { dir: { type: 'string', default: '.', pattern: '^[A-Za-z0-9_./-]+$' } },
              cwd: '..',
              annotations: { readOnlyHint: true },
            },
            git_version: { description: "git's version", command: 'git', args: ['--version'] },
            hang: { description: 'Never ends', command: process.execPath, args: [BEHAVE, 'hang'], timeoutMs: HANG_TIMEOUT_MS },
          },
        },
      },
    }),
  );
}

forEachTransport(({ http, flag }) => {
  describe(`commands through mcp-chain serve${flag}`, () => {
    let ws: Workspace;
    let gateway: Connection;

    before(async () => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-commands-');
      gateway = await connectClient(gatewayTarget(configFile(ws), { http }), { capabilities: {} });
    });

    after(async () => {
      await gateway?.close();
      ws?.remove();
    });

    it("lists the programs as tools with their argument and output schemas, beside server-everything's", T, async () => {
      const { tools } = await gateway.client.listTools();
      const names = tools.map((tool) => tool.name);
      for (const name of ['sh__argv', 'sh__ls', 'sh__git_version', 'sh__hang', 'everything__echo']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      const argv = tools.find((tool) => tool.name === 'sh__argv');
      assert.deepEqual(argv?.inputSchema, {
        type: 'object',
        properties: {
          value: { type: 'string', description: 'Any text' },
          more: { type: 'array', items: { type: 'string' }, description: 'More text' },
          lines: { type: 'integer', minimum: 1 },
        },
        required: ['value'],
        additionalProperties: false,
      });
      assert.deepEqual(argv?.outputSchema?.required, ['exitCode', 'signal', 'stdout', 'stderr', 'timedOut', 'truncated']);
      assert.deepEqual(argv?.annotations, { readOnlyHint: true });
    });

    it('runs them: argv from the arguments, structured content by its schema; ls in its cwd; git --version', T, async () => {
      const result = await callTool(gateway.client, { name: 'sh__argv', arguments: { value: 'hello world', more: ['a', 'b'], lines: 2 } });
      assert.deepEqual(JSON.parse(textOf(result)), ['-n', '2', 'hello world', 'a', 'b']);
      assert.deepEqual(result.structuredContent, { exitCode: 0, signal: null, stdout: '["-n","2","hello world","a","b"]\n', stderr: '', timedOut: false, truncated: false });
      assert.equal(textOf(await callTool(gateway.client, { name: 'sh__ls', arguments: { dir: 'files' } })), 'a.txt\nb.txt\n');
      assert.match(textOf(await callTool(gateway.client, { name: 'sh__git_version', arguments: {} })), /^git version \d/);
      const missing = await callTool(gateway.client, { name: 'sh__ls', arguments: { dir: 'nope' } });
      assert.equal(missing.isError, true);
      assert.match(textOf(missing), /stderr:\n.*nope.*\n\[exited with code 2\]$/s);
    });

    it('injection attempts arrive as literal arguments and run nothing', T, async () => {
      const attempts = ['; rm -rf /', '$(touch pwned)', '`touch pwned`', 'x | touch pwned', 'x && touch pwned', 'x\ntouch pwned', '> pwned'];
      for (const value of attempts) {
        const result = await callTool(gateway.client, { name: 'sh__argv', arguments: { value, more: [value] } });
        assert.deepEqual(JSON.parse(textOf(result)), [value, value], value);
      }
      assert.deepEqual(readdirSync(ws.path('scratch')), []);
      assert.deepEqual(readdirSync(ws.dir).sort(), ['files', 'mcp-chain.json', 'scratch']);
    });

    it('an option smuggled into a positional argument, or a NUL byte, is -32602 naming the parameter', T, async () => {
      for (const [args, parameter] of [
        [{ value: '--output=/etc/x' }, 'value'],
        [{ value: 'ok', more: ['-rf'] }, 'more'],
        [{ value: 'a\0b' }, 'value'],
      ] as const) {
        const error = await gateway.client.callTool({ name: 'sh__argv', arguments: args }).then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof McpError, String(error));
        assert.equal(error.code, -32602);
        assert.match(error.message, new RegExp(`Invalid argument "${parameter}"`));
      }
      // After a literal "--" a leading dash is just a name.
      const dashed = await callTool(gateway.client, { name: 'sh__ls', arguments: { dir: '-la' } });
      assert.match(textOf(dashed), /cannot access '-la'/);
    });

    it('a command that hangs is killed at its timeout, with what it started: nothing is left running', T, async () => {
      const running = callTool(gateway.client, { name: 'sh__hang', arguments: {} });
      // The fixture and its grandchild, below the gateway, while it hangs.
      const pids = await eventually(
        () => {
          const found = descendantsOf(gateway.pid).filter((pid) => commandLine(pid).includes(BEHAVE) || commandLine(pid).includes('setInterval'));
          return found.length >= 2 ? found : undefined;
        },
        () => `the hanging fixture and its grandchild below ${gateway.pid}`,
      );
      const result = await running;
      assert.equal(result.isError, true);
      assert.match(textOf(result), new RegExp(`\\[timed out after ${HANG_TIMEOUT_MS} ms: the process and its group were killed\\]$`));
      assert.equal((result.structuredContent as { timedOut?: boolean }).timedOut, true);
      assert.deepEqual(pids.filter(processAlive), []);
      // The gateway still serves.
      assert.equal(textOf(await callTool(gateway.client, { name: 'everything__echo', arguments: { message: 'still here' } })), 'Echo: still here');
    });
  });
});

// `mcp-chain validate` and config errors, through a real `node dist/cli/main.js` (build first):
// what a person checking a config file sees — what would be served, with no secret in it — and
// what anyone whose file has a mistake sees, from `validate` and from `serve` alike (every
// problem on stderr, where it is, a suggestion; exit code 1; nothing on stdout; nothing started).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { proxyEnv, proxyMain } from '../helpers/targets.js';

const T = { timeout: 30_000 };
const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-validate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its exit with a minimal environment plus `env` (stdin closed at once). */
function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [proxyMain, ...args],
      { cwd: options.cwd ?? dir, env: { PATH: process.env.PATH ?? '', ...proxyEnv(), ...options.env }, timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** Writes `text` to a new file in a directory of its own; returns its path. */
function file(name: string, text: string): string {
  const folder = mkdtempSync(join(dir, 'case-'));
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const SECRETS = { REMOTE_TOKEN: 'tok-from-env-4567', API_KEY: 'key-from-env-7890' };

/** A claude_desktop_config.json as people have them, with a literal secret and two from the environment. */
const CLAUDE_DESKTOP = `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_literalSecret0123" }
    },
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    },
    "remote": {
      "url": "https://mcp.example.com/mcp",
      "headers": { "Authorization": "Bearer \${REMOTE_TOKEN}" }
    },
    "api": { "command": "api-server", "args": ["--key", "\${API_KEY}"] },
    "old": { "command": "old-server", "disabled": true }
  }
}
`;

describe('mcp-chain validate', () => {
  test('a Claude Desktop file: every server in file order with what would be served; header, env and variable values are absent', T, async () => {
    const path = file('claude_desktop_config.json', CLAUDE_DESKTOP);
    const { code, stdout, stderr } = await run(['validate', path], { env: SECRETS });
    assert.equal(code, 0, stderr);
    const lines = stdout.split('\n');
    assert.equal(lines[0], `${path}: valid, 5 servers (1 disabled)`);
    assert.ok(lines.includes('front: stdio'), stdout);
    const servers = lines.filter((l) => /^ {2}\S/.test(l));
    assert.deepEqual(servers, ['  github: stdio', '  filesystem: stdio', '  remote: Streamable HTTP', '  api: stdio', '  old: stdio, disabled']);
    for (const expected of [
      '    command: npx -y @modelcontextprotocol/server-github',
      '    env: GITHUB_PERSONAL_ACCESS_TOKEN',
      '    command: npx -y @modelcontextprotocol/server-filesystem /Users/me/Desktop',
      '    url: https://mcp.example.com/mcp',
      '    headers: Authorization',
      '    command: api-server --key ${API_KEY}',
      '    names: github__<name>',
      '    isolation: session (one connection per client session)',
    ]) {
      assert.ok(lines.includes(expected), `${expected}\nin:\n${stdout}`);
    }
    for (const secret of ['ghp_literalSecret0123', ...Object.values(SECRETS)]) {
      assert.ok(!stdout.includes(secret) && !stderr.includes(secret), `${secret} is printed nowhere`);
    }
  });

  test('without a file: the mcp-chain.config.json of the working directory', T, async () => {
    const folder = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(folder, 'mcp-chain.config.json'), '{ "mcpServers": { "one": { "command": "one-server" } } }\n');
    const { code, stdout, stderr } = await run(['validate'], { cwd: folder });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^\S*mcp-chain\.config\.json: valid, 1 server\n/);
    assert.match(stdout, /^ {4}names: as the server gives them \(the only server\)$/m);
  });

  test('without a file and none in the working directory: a usage error naming the names looked for (exit 2)', T, async () => {
    const empty = mkdtempSync(join(dir, 'empty-'));
    for (const command of ['validate', 'serve']) {
      const { code, stdout, stderr } = await run([command], { cwd: empty });
      assert.equal(code, 2, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, /^mcp-chain: no config file given, and no mcp-chain\.config\.\{ts,mts,js,mjs,json,jsonc,yaml,yml,toml\} in /);
      assert.match(stderr, new RegExp(`see mcp-chain ${command} --help`));
    }
  });

  test('--help shows the command with an example; the global help lists serve and validate', T, async () => {
    const own = await run(['validate', '--help']);
    assert.equal(own.code, 0);
    assert.match(own.stderr, /^ {2}mcp-chain validate \[file\] \[options\]$/m);
    assert.match(own.stderr, /Example: `mcp-chain validate /);
    const global = await run(['--help']);
    assert.match(global.stderr, /^ {2}mcp-chain serve \[config-file\] \[options\] /m);
    assert.match(global.stderr, /^ {2}mcp-chain validate \[file\] \[options\] /m);
  });
});

describe('config errors, from validate and from serve', () => {
  // Line 3: an unknown key one letter off; line 5: a list given a string.
  const MISTAKES = `{
  "mcpServers": {
    "github": { "comand": "npx" },
    "fs": {
      "command": "node", "args": "--version"
    }
  }
}
`;

  for (const command of ['validate', 'serve']) {
    test(`${command}: every problem on stderr as file:line:column, path, what was wrong and a suggestion; exit 1; nothing on stdout`, T, async () => {
      const path = file('mcp.json', MISTAKES);
      const { code, stdout, stderr } = await run([command, path]);
      assert.equal(code, 1, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, /^mcp-chain: .*\(\d+ problems\):$/m);
      assert.match(stderr, new RegExp(`^${literal(path)}:3:\\d+: mcpServers\\.github\\.comand: .*did you mean "command"\\?`, 'm'));
      assert.match(stderr, new RegExp(`^${literal(path)}:5:\\d+: mcpServers\\.fs\\.args: `, 'm'));
    });
  }

  test('bad JSON: the line and column of the mistake (exit 1)', T, async () => {
    const path = file('broken.json', '{\n  "mcpServers": {\n    "a": { "command": "x" },,\n  }\n}\n');
    const { code, stdout, stderr } = await run(['serve', path]);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^${literal(path)}:3:\\d+: `, 'm'));
  });

  test('an unset variable names the variable and where it is used, and the file is not served (exit 1)', T, async () => {
    const path = file('vars.json', '{ "mcpServers": { "api": { "command": "api", "env": { "KEY": "${CLI_VALIDATE_UNSET}" } } } }\n');
    const { code, stdout, stderr } = await run(['serve', path]);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /mcpServers\.api\.env\.KEY: .*CLI_VALIDATE_UNSET/);
  });

  test('an unreadable file (exit 1)', T, async () => {
    const missing = join(dir, 'nowhere', 'mcp.json');
    mkdirSync(join(dir, 'nowhere'), { recursive: true });
    const { code, stdout, stderr } = await run(['validate', missing]);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`^${literal(missing)}: `, 'm'));
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

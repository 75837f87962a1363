// `mcp-chain serve [config-file]`: a real `node dist/cli/main.js` (build first) serving the
// servers of a config file as one MCP server, to the official SDK client: on stdio (and nothing
// left running once the client goes away), found in the working directory, and on HTTP (with
// --http, or from the file's own http section).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectClient, withTimeout } from '../helpers/client.js';
import { initializeRequest, openSession, send } from '../helpers/http.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { fixtureCommand, proxyEnv, proxyMain, repoRoot } from '../helpers/targets.js';
import { processAlive, processGone } from './_process.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;
const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-serve-config-'));
/** Server pids seen, killed in `after` if a failed test left them running. */
const seen = new Set<number>();
after(() => {
  for (const pid of seen) {
    try {
      if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a config file in a directory of its own; returns its path. */
function configFile(config: unknown, name = 'claude_desktop_config.json'): string {
  const folder = mkdtempSync(join(dir, 'case-'));
  const path = join(folder, name);
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

/** crashy's echo answers `<text>\nstart=N\npid=P`: the pid of the process that answered. */
function pidOf(text: string): number {
  const pid = Number(/^pid=(\d+)$/m.exec(text)?.[1]);
  assert.ok(Number.isInteger(pid) && pid > 0, `a pid in ${text}`);
  seen.add(pid);
  return pid;
}

const TWO_SERVERS = { mcpServers: { alpha: fixtureCommand('crashy'), beta: fixtureCommand('multiplex') } };

describe('mcp-chain serve <config-file> on stdio', () => {
  test('two servers behind one: names prefixed by server, calls routed to each; when the client goes away, the CLI exits 0 and no server is left', T, async () => {
    const path = configFile(TWO_SERVERS);
    const conn = await connectClient({ name: 'serve', command: process.execPath, args: [proxyMain, 'serve', path], env: proxyEnv() });
    let pids: number[] = [];
    try {
      const { tools } = await conn.client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of ['alpha__echo', 'alpha__crash', 'beta__echo', 'beta__pid']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      assert.ok(names.every((n) => n.startsWith('alpha__') || n.startsWith('beta__')), names.join(', '));

      const alpha = pidOf(textOf(await callTool(conn.client, { name: 'alpha__echo', arguments: { text: 'to alpha' } })));
      assert.equal(textOf(await callTool(conn.client, { name: 'beta__echo', arguments: { text: 'to beta' } })), 'to beta');
      const beta = Number(textOf(await callTool(conn.client, { name: 'beta__pid', arguments: {} })));
      seen.add(beta);
      assert.notEqual(alpha, beta);
      pids = [alpha, beta];
    } finally {
      const report = await conn.close();
      assert.deepEqual([report.exitCode, report.escalation], [0, 'none'], conn.stderrTail());
    }
    for (const pid of pids) await processGone(pid, EVENT_MS);
  });

  test('without a file: the mcp-chain.config.json of the working directory', T, async () => {
    const path = configFile({ mcpServers: { only: fixtureCommand('crashy') } }, 'mcp-chain.config.json');
    const client = new Client({ name: 'cwd-test', version: '0.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [proxyMain, 'serve'],
      cwd: join(path, '..'),
      env: { PATH: process.env.PATH ?? '', ...proxyEnv() },
      stderr: 'ignore',
    });
    try {
      await withTimeout(client.connect(transport), EVENT_MS, () => 'initialize');
      const { tools } = await client.listTools();
      // A single server keeps its own names.
      assert.deepEqual(tools.map((t) => t.name).sort(), ['crash', 'echo']);
      pidOf(textOf(await callTool(client, { name: 'echo', arguments: { text: 'found' } })));
    } finally {
      await client.close();
    }
  });

  test('--help shows the command with examples', T, async () => {
    const { code, stderr } = await runToExit(['serve', '--help']);
    assert.equal(code, 0);
    assert.match(stderr, /^ {2}mcp-chain serve \[config-file\] \[options\]$/m);
    assert.match(stderr, /^ {2}mcp-chain serve \[config-file\] --http \[host:\]port \[options\]$/m);
    assert.match(stderr, /Examples: `mcp-chain serve claude_desktop_config\.json`/);
    assert.match(stderr, /^ {2}--watch /m);
  });
});

describe('mcp-chain serve <config-file> on HTTP', () => {
  test('--http serves the file on Streamable HTTP; SIGTERM stops it and its servers', T, async () => {
    const path = configFile(TWO_SERVERS);
    const conn = await connectClient({ name: 'serve --http', command: process.execPath, args: [proxyMain, 'serve', path, '--http', '127.0.0.1:0'], env: proxyEnv(), http: true });
    let alpha = 0;
    try {
      const names = (await conn.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('alpha__echo') && names.includes('beta__pid'), names.join(', '));
      alpha = pidOf(textOf(await callTool(conn.client, { name: 'alpha__echo', arguments: { text: 'over http' } })));
    } finally {
      const report = await conn.close();
      assert.deepEqual([report.exitCode, report.escalation], [0, 'SIGTERM'], conn.stderrTail());
    }
    await processGone(alpha, EVENT_MS);
  });

  test("a file with an http section serves HTTP without --http, and the command line's HTTP options replace the file's", T, async () => {
    const path = configFile(
      { ...TWO_SERVERS, http: { host: '127.0.0.1', port: 0, path: '/gateway', tokens: [{ id: 'file', token: '${SERVE_FILE_TOKEN}' }], maxSessions: 1 } },
      'mcp-chain.config.json',
    );
    const env = { SERVE_FILE_TOKEN: 'file-secret-1234', SERVE_CLI_TOKEN: 'cli-secret-5678' };
    const server = await startHttp(['serve', path, '--token-env', 'SERVE_CLI_TOKEN', '--max-sessions', '2'], env);
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/gateway$/, "the file's path");
      const as = (token: string): { headers: Record<string, string> } => ({ headers: { authorization: `Bearer ${token}` } });
      assert.equal((await send(server.url, { body: initializeRequest(), ...as(env.SERVE_FILE_TOKEN) })).status, 401, "--token-env replaced the file's tokens");
      await openSession(server.url, as(env.SERVE_CLI_TOKEN));
      await openSession(server.url, as(env.SERVE_CLI_TOKEN));
      assert.equal((await send(server.url, { body: initializeRequest(), ...as(env.SERVE_CLI_TOKEN) })).status, 503, '--max-sessions 2 replaced the file\'s 1');
    } finally {
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
    }
    for (const secret of Object.values(env)) assert.ok(!server.stderr().includes(secret), 'no token in the log');
  });

  test('beyond loopback without a token is refused before anything listens (exit 2)', T, async () => {
    const path = configFile({ ...TWO_SERVERS, http: { host: '192.0.2.1', port: 0 } });
    const { code, stderr } = await runToExit(['serve', path]);
    assert.equal(code, 2);
    assert.match(stderr, /^mcp-chain: serving on 192\.0\.2\.1 listens beyond this machine without a token: .*\(see mcp-chain serve --help\)$/m);
  });
});

/** A CLI serving HTTP: where it listens, its stderr so far, and `stop()` (SIGTERM, then its exit). */
interface HttpServer {
  readonly url: string;
  stderr(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the CLI with `args` (a minimal environment plus `env`) and waits until it says where it listens. */
async function startHttp(args: string[], env: Record<string, string>): Promise<HttpServer> {
  const child = spawn(process.execPath, [proxyMain, ...args], { env: { PATH: process.env.PATH ?? '', ...proxyEnv(), ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const listening = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const url = /"url":"([^"]+)","msg":"listening"/.exec(text)?.[1];
      if (url !== undefined) resolve(url);
    });
    void exited.then(() => reject(new Error(`the CLI exited before listening: ${text}`)));
  });
  const stop = async (): Promise<{ code: number | null; signal: NodeJS.Signals | null }> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return withTimeout(exited, EVENT_MS, () => `the CLI to exit after SIGTERM: ${text}`);
  };
  try {
    const url = await withTimeout(listening, EVENT_MS, () => `the CLI to listen: ${text}`);
    return { url, stderr: () => text, stop };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Runs the CLI to its exit (stdin closed at once). */
function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [proxyMain, ...args], { env: { PATH: process.env.PATH ?? '', ...proxyEnv() }, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

describe('the one-liners and config files', () => {
  test("the command and the one-liners' serving code never load the config formats' libraries: only the config commands' entry reaches them", T, () => {
    // esbuild marks where each bundled module starts (`// node_modules/yaml/dist/...`): follow the
    // static imports from each entry and look for those marks.
    const CONFIG_LIBRARIES = /^\/\/ node_modules\/(yaml|zod|smol-toml|jsonc-parser)\//m;
    const staticGraph = (entry: string): string[] => {
      const files = new Set<string>();
      const visit = (file: string): void => {
        if (files.has(file)) return;
        files.add(file);
        // `from "./chunk.js"`, `import "./chunk.js"` (either quote); a dynamic `import("...")` is not followed.
        for (const [, , specifier] of readFileSync(file, 'utf8').matchAll(/(?:\bfrom|^import)\s*(["'])(\.[^"']+)\1/gm)) {
          if (specifier !== undefined) visit(resolve(dirname(file), specifier));
        }
      };
      visit(entry);
      return [...files];
    };
    const bundle = join(repoRoot, 'dist', 'bundle');
    for (const entry of [proxyMain, join(bundle, 'serve', 'serve.js'), join(bundle, 'index.js')]) {
      const files = staticGraph(entry);
      assert.ok(files.length > 1 || entry === proxyMain, `${entry} imports its chunks`);
      for (const file of files) assert.doesNotMatch(readFileSync(file, 'utf8'), CONFIG_LIBRARIES, `${file} (loaded by ${entry})`);
    }
    const configCommands = staticGraph(join(bundle, 'cli', 'config-commands.js'));
    assert.ok(configCommands.some((file) => CONFIG_LIBRARIES.test(readFileSync(file, 'utf8'))), 'config-commands.js has them (the check finds them)');
  });
});

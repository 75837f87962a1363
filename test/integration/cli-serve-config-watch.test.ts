// `mcp-chain serve <config-file> --watch`: a real `node dist/cli/main.js` (build first) with the
// official SDK client connected throughout, while the file is edited under it: a server added,
// removed and changed reaches the running session (with list_changed), the other servers keep
// their processes, a file with a mistake is reported and changes nothing, and a change that needs
// a restart says so.
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, type Connection } from '../helpers/client.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { fixtureCommand, proxyEnv, proxyMain } from '../helpers/targets.js';
import { processAlive, processGone } from './_process.js';

const T = { timeout: 60_000 };
const EVENT_MS = 15_000;
const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-watch-cli-'));
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

const path = join(dir, 'mcp.json');

/** Saves the file as editors do: a new file renamed over the old one. */
function save(config: unknown): void {
  writeFileSync(`${path}.tmp`, `${JSON.stringify(config, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** The tool names the client sees now. */
async function toolNames(conn: Connection): Promise<string[]> {
  return (await conn.client.listTools()).tools.map((t) => t.name).sort();
}

/** Resolves at the next tools/list_changed after now. */
function nextListChanged(conn: Connection): Promise<Notification> {
  const before = new Set(conn.notifications);
  return conn.waitForNotification('notifications/tools/list_changed', (n) => !before.has(n), EVENT_MS);
}

/** crashy's echo answers `<text>\nstart=N\npid=P`. */
async function alphaPid(conn: Connection): Promise<number> {
  const text = textOf(await callTool(conn.client, { name: 'alpha__echo', arguments: { text: 'who' } }));
  const pid = Number(/^pid=(\d+)$/m.exec(text)?.[1]);
  assert.ok(Number.isInteger(pid) && pid > 0, text);
  seen.add(pid);
  return pid;
}

const alpha = fixtureCommand('crashy');
const beta = fixtureCommand('multiplex');
const gamma = fixtureCommand('hang');

describe('mcp-chain serve --watch', () => {
  test('a server added, removed and changed while a client stays connected; a broken file keeps the running config; a new front needs a restart', T, async () => {
    save({ mcpServers: { alpha, beta } });
    const conn = await connectClient({ name: 'serve --watch', command: process.execPath, args: [proxyMain, 'serve', path, '--watch'], env: proxyEnv() });
    const pids: number[] = [];
    try {
      await conn.waitForStderr(/"msg":"watching the config file"/, EVENT_MS);
      assert.deepEqual((await toolNames(conn)).filter((n) => n.endsWith('__echo')), ['alpha__echo', 'beta__echo']);
      const alphaBefore = await alphaPid(conn);
      const betaPid = Number(textOf(await callTool(conn.client, { name: 'beta__pid', arguments: {} })));
      seen.add(betaPid);
      pids.push(alphaBefore, betaPid);

      // Added: gamma's tools appear in the running session; alpha keeps its process.
      let changed = nextListChanged(conn);
      save({ mcpServers: { alpha, beta, gamma } });
      await conn.waitForStderr(/"msg":"config reloaded: added gamma"/, EVENT_MS);
      await changed;
      assert.ok((await toolNames(conn)).includes('gamma__hang'));
      assert.equal(textOf(await callTool(conn.client, { name: 'gamma__echo', arguments: { text: 'new' } })), 'new');
      assert.equal(await alphaPid(conn), alphaBefore, 'alpha was not restarted');

      // Removed: beta's tools go, and so does its process.
      changed = nextListChanged(conn);
      save({ mcpServers: { alpha, gamma } });
      await conn.waitForStderr(/"msg":"config reloaded: removed beta"/, EVENT_MS);
      await changed;
      assert.ok(!(await toolNames(conn)).some((n) => n.startsWith('beta__')));
      await processGone(betaPid, EVENT_MS);
      assert.equal(await alphaPid(conn), alphaBefore, 'alpha was not restarted');

      // Changed: alpha restarts with its new environment; gamma is left alone.
      save({ mcpServers: { alpha: { ...alpha, env: { CRASHY_STATE_FILE: join(dir, 'alpha-starts') } }, gamma } });
      await conn.waitForStderr(/"msg":"config reloaded: restarted alpha"/, EVENT_MS);
      const alphaAfter = await alphaPid(conn);
      pids.push(alphaAfter);
      assert.notEqual(alphaAfter, alphaBefore);
      await processGone(alphaBefore, EVENT_MS);

      // A mistake: reported with where it is, and the running config is kept.
      save({ mcpServers: { alpha: { ...alpha, env: { CRASHY_STATE_FILE: join(dir, 'alpha-starts') } }, gamma: { comand: 'oops' } } });
      await conn.waitForStderr(/"problems":\[.*mcpServers\.gamma\.comand: .*did you mean \\"command\\"\?.*"msg":"the config file has problems: kept the running config"/, EVENT_MS);
      assert.equal(textOf(await callTool(conn.client, { name: 'gamma__echo', arguments: { text: 'still here' } })), 'still here');
      assert.equal(await alphaPid(conn), alphaAfter);

      // The front cannot change while serving: a warning says a restart is needed.
      save({ mcpServers: { alpha: { ...alpha, env: { CRASHY_STATE_FILE: join(dir, 'alpha-starts') } }, gamma }, http: { port: 0 } });
      await conn.waitForStderr(/"level":40,.*"msg":"the config file changes the front \(http\): restart mcp-chain to apply that/, EVENT_MS);
      assert.equal(await alphaPid(conn), alphaAfter, 'the servers that did not change keep running');
    } finally {
      const report = await conn.close();
      assert.deepEqual([report.exitCode, report.escalation], [0, 'none'], conn.stderrTail());
    }
    for (const pid of pids) await processGone(pid, EVENT_MS);
  });
});

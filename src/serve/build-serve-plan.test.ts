import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../config/load-config.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ChainError } from '../errors/chain-error.js';
import { silentLogger } from '../log/stderr-logger.js';
import { buildServePlan, type PlanContext } from './build-serve-plan.js';
import type { ServeFlags } from './serve-flags.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-plan-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const context: PlanContext = { env: { TEAM_TOKEN: 's3cr3t' }, version: '9.9.9' };
const servers = { everything: { command: 'node', args: ['server.js'] } };

async function config(name: string, body: object): Promise<GatewayConfig> {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(body));
  return loadConfig(file, { log: silentLogger });
}

const noFlags: ServeFlags = { http: {} };

describe('buildServePlan: one plan, from a config file or from flags', () => {
  test('the same setup said in the file and said with flags makes the same plan', async () => {
    const inFile = await config('in-file.json', {
      mcpServers: servers,
      http: { host: '0.0.0.0', port: 8080, tokens: [{ id: 'TEAM_TOKEN', token: 's3cr3t' }], sessionTtl: 60_000, maxSessions: 5, sse: true },
      timeouts: { request: 5000, max: 20000 },
      drainMs: 2500,
      serverInfo: { name: 'team', version: '9.9.9' },
    });
    const onFlags = await config('on-flags.json', { mcpServers: servers });
    const flags: ServeFlags = {
      name: 'team',
      timeoutMs: 5000,
      maxTimeoutMs: 20000,
      drainMs: 2500,
      http: { listen: { host: '0.0.0.0', port: 8080 }, tokenEnv: ['TEAM_TOKEN'], sessionTtlMs: 60_000, maxSessions: 5, sse: true },
    };
    const fromFile = buildServePlan({ kind: 'config', config: inFile }, noFlags, context);
    const fromFlags = buildServePlan({ kind: 'config', config: onFlags }, flags, context);
    const withoutFile = <T extends { upstream: unknown }>(plan: T) => ({ ...plan, upstream: undefined });
    assert.deepEqual(withoutFile(fromFlags), withoutFile(fromFile));
  });

  test('a one-liner and a config file with the same front, deadlines and drain agree on all of them', async () => {
    const file = await config('front.json', { mcpServers: servers, http: { port: 9000, tokens: [{ id: 'TEAM_TOKEN', token: 's3cr3t' }] }, timeouts: { request: 7000 }, drainMs: 0 });
    const fromFile = buildServePlan({ kind: 'config', config: file }, noFlags, context);
    const oneLiner = buildServePlan(
      { kind: 'chain', server: { kind: 'stdio', command: { command: 'node', args: ['server.js'], env: {} } }, shared: false },
      { timeoutMs: 7000, drainMs: 0, http: { listen: { host: '127.0.0.1', port: 9000 }, tokenEnv: ['TEAM_TOKEN'] } },
      context,
    );
    assert.deepEqual(oneLiner.front, fromFile.front);
    assert.deepEqual(oneLiner.session.timeouts, fromFile.session.timeouts);
    assert.equal(oneLiner.drainMs, fromFile.drainMs);
  });

  test("flags win over the file, field by field: what the flags do not say stays the file's", async () => {
    const file = await config('override.json', { mcpServers: servers, http: { port: 8080, allowedOrigins: ['https://a.example'], maxSessions: 3 }, drainMs: 100 });
    const plan = buildServePlan({ kind: 'config', config: file }, { drainMs: 0, http: { listen: { host: '127.0.0.1', port: 0 } } }, context);
    assert.equal(plan.drainMs, 0);
    assert.ok(plan.front.kind === 'http');
    assert.equal(plan.front.port, 0);
    assert.deepEqual(plan.front.allowedOrigins, ['https://a.example']);
    assert.equal(plan.front.maxSessions, 3);
  });

  test('defaults: stdio, a 10 s drain; a gateway is mcp-chain at its version, a one-liner shows its server unless --name', async () => {
    const gateway = buildServePlan({ kind: 'config', config: await config('plain.json', { mcpServers: servers }) }, noFlags, context);
    assert.deepEqual(gateway.front, { kind: 'stdio' });
    assert.equal(gateway.drainMs, 10_000);
    assert.deepEqual(gateway.session, { serverInfo: { name: 'mcp-chain', version: '9.9.9' }, timeouts: {} });
    const oneLiner = buildServePlan({ kind: 'chain', shared: false }, noFlags, context);
    assert.deepEqual(oneLiner.session, { timeouts: {} });
    assert.deepEqual(buildServePlan({ kind: 'chain', shared: false }, { name: 'x', http: {} }, context).session.serverInfo, { name: 'x', version: '9.9.9' });
  });

  test('what cannot be served is refused before anything starts: HTTP flags without HTTP, an unset token variable, an open bind beyond loopback', async () => {
    const file = await config('refusals.json', { mcpServers: servers });
    const refused = (source: Parameters<typeof buildServePlan>[0], flags: ServeFlags, message: RegExp) =>
      assert.throws(() => buildServePlan(source, flags, context), (error: unknown) => error instanceof ChainError && error.code === 'USAGE' && message.test(error.message));
    refused({ kind: 'config', config: file }, { http: { maxSessions: 3 } }, /^HTTP options need HTTP: add --http \[host:\]port, or an http section to the file$/);
    refused({ kind: 'config', config: file }, { http: { listen: { host: '127.0.0.1', port: 0 }, tokenEnv: ['UNSET_VAR'] } }, /^--token-env UNSET_VAR: the variable is not set$/);
    refused({ kind: 'chain', shared: false }, { http: { listen: { host: '0.0.0.0', port: 0 } } }, /^--http 0\.0\.0\.0:0 listens beyond this machine without a token: add --token-env/);
    refused({ kind: 'config', config: await config('open.json', { mcpServers: servers, http: { host: '192.0.2.1', port: 1 } }) }, noFlags, /^serving on 192\.0\.2\.1 listens beyond this machine without a token: add tokens/);
    const allowed = buildServePlan({ kind: 'chain', shared: false }, { http: { listen: { host: '::', port: 0 }, allowUnauthenticated: true } }, context);
    assert.equal(allowed.front.kind, 'http');
  });

  test('--watch on a gateway: whether the command line chose where to listen (then the file\'s front changes need no restart warning)', async () => {
    const file = await config('watch.json', { mcpServers: servers });
    assert.equal(buildServePlan({ kind: 'config', config: file }, noFlags, context).watch, undefined);
    assert.deepEqual(buildServePlan({ kind: 'config', config: file }, { watch: true, http: {} }, context).watch, { frontFromFlags: false });
    assert.deepEqual(buildServePlan({ kind: 'config', config: file }, { watch: true, http: { listen: { host: '127.0.0.1', port: 0 } } }, context).watch, { frontFromFlags: true });
  });
});

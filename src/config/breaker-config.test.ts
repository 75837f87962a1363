// The config file's `breaker`: the circuit breaker of each gateway member that is up but keeps
// failing calls (see AggregateOptions.breaker for what counts as a failure).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { harness, type Harness } from '../testing/harness.js';
import { ScriptedMember } from '../upstream/aggregate/_test/scripted-member.js';
import { captureLogger, configErrorOf, tempDir, write } from './_test/config-files.js';
import { buildGateway, type BuiltGateway } from './build-gateway.js';
import type { GatewayConfig } from './gateway-config.js';
import { loadConfig } from './load-config.js';

const dir = tempDir();
const log = captureLogger();
let files = 0;
function file(text: object): string {
  return write(dir, join(`case-${++files}`, 'config.json'), text);
}
const servers = { mcpServers: { a: { command: 'a' } } };

const open: Harness[] = [];
const built: BuiltGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
  await Promise.all(built.splice(0).map((gateway) => gateway.upstream.close?.()));
});

/** A member that is up, lists one tool, and answers every call as a broken connection (HTTP 502) would. */
function failingMember(): ScriptedMember & { calls: () => number } {
  const member = new ScriptedMember({ tools: {} }, {
    'tools/list': () => ({ tools: [{ name: 'work', inputSchema: { type: 'object' } }] }),
    'tools/call': () => {
      throw new McpError(ErrorCode.ConnectionClosed, 'Upstream flaky answered HTTP 502', { status: 502 });
    },
  });
  return Object.assign(member, { calls: () => member.received.filter((m) => m.method === 'tools/call').length });
}

/** A gateway of the one failing member, with the `breaker` the config file gave. */
async function gatewayWith(breaker: GatewayConfig['breaker'], member: ScriptedMember): Promise<Harness> {
  const config: GatewayConfig = {
    file: join(dir, 'mcp-chain.config.json'),
    servers: [{ name: 'flaky', path: 'mcpServers.flaky', disabled: false, isolation: 'session', middleware: [], transport: 'upstream', upstream: member }],
    front: { kind: 'stdio' },
    naming: { separator: '__', maxNameLength: 64 },
    middleware: [],
    ...(breaker === undefined ? {} : { breaker }),
  };
  const gateway = await buildGateway(config, { log });
  built.push(gateway);
  const h = await harness(gateway.upstream, gateway.sessionOptions);
  open.push(h);
  h.notify('notifications/initialized');
  return h;
}

async function errorOf(promise: Promise<unknown>): Promise<Error & { code?: unknown }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error);
    return error;
  }
  assert.fail('expected an error');
}

describe('config: breaker', () => {
  test('is read into the aggregate\'s terms; false turns it off; absent, it is left to the defaults', async () => {
    const config = await loadConfig(file({ ...servers, breaker: { failures: 3, open: 500, factor: 3, maxOpen: 9000 } }));
    assert.deepEqual(config.breaker, { failureThreshold: 3, openMs: 500, factor: 3, maxOpenMs: 9000 });
    assert.deepEqual((await loadConfig(file({ ...servers, breaker: { failures: 2 } }))).breaker, { failureThreshold: 2 });
    assert.equal((await loadConfig(file({ ...servers, breaker: false }))).breaker, false);
    assert.equal(Object.hasOwn(await loadConfig(file(servers)), 'breaker'), false);
  });

  test('a file names its keys as code does (failureThreshold, openMs, factor, maxOpenMs); the older spellings give way to them', async () => {
    const config = await loadConfig(file({ ...servers, breaker: { failureThreshold: 4, openMs: 200, factor: 2, maxOpenMs: 800 } }));
    assert.deepEqual(config.breaker, { failureThreshold: 4, openMs: 200, factor: 2, maxOpenMs: 800 });
    assert.deepEqual((await loadConfig(file({ ...servers, breaker: { failureThreshold: 4, failures: 9 } }))).breaker, { failureThreshold: 4 });
  });

  test('a value out of range, or an unknown key, is a problem naming it (a misspelt key with the right one)', async () => {
    for (const [breaker, path] of [
      [{ failures: 0 }, 'breaker.failures'],
      [{ open: -1 }, 'breaker.open'],
      [{ factor: 0.5 }, 'breaker.factor'],
      [{ failure: 3 }, 'breaker.failure'],
      [true, 'breaker'],
    ] as const) {
      const error = await configErrorOf(loadConfig(file({ ...servers, breaker })));
      assert.ok(error.problems.some((problem) => problem.path === path), `${JSON.stringify(breaker)}: ${error.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    }
    const misspelt = await configErrorOf(loadConfig(file({ ...servers, breaker: { failure: 3 } })));
    assert.match(misspelt.problems[0]?.message ?? '', /did you mean "failures"/);
  });

  test('the gateway opens a member\'s circuit after the configured failures: the next call fails at once, naming it, without reaching it', async () => {
    const member = failingMember();
    const h = await gatewayWith({ failureThreshold: 2, openMs: 60_000 }, member);
    for (let i = 0; i < 2; i++) assert.equal((await errorOf(h.request('tools/call', { name: 'work', arguments: {} }))).code, ErrorCode.ConnectionClosed);
    assert.equal(member.calls(), 2);
    const fast = await errorOf(h.request('tools/call', { name: 'work', arguments: {} }));
    assert.match(fast.message, /Server "flaky" is unavailable: circuit open after 2 failures/);
    assert.equal(member.calls(), 2, 'the open circuit kept the call from the member');
  });

  test('breaker: false lets every call reach the member, however often it fails', async () => {
    const member = failingMember();
    const h = await gatewayWith(false, member);
    for (let i = 0; i < 8; i++) await errorOf(h.request('tools/call', { name: 'work', arguments: {} }));
    assert.equal(member.calls(), 8);
  });
});

// buildGateway: a config made into an aggregate of its enabled servers, each behind its tool
// filter and its own middleware (and shared() when asked), with the gateway's middleware in
// front; rebuildMembers: what --watch reuses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { Middleware } from '../chain/middleware.js';
import type { JsonObject } from '../message/jsonrpc.js';
import { harness, type Harness } from '../testing/harness.js';
import { local, type LocalTool } from '../upstream/local.js';
import { SharedUpstream } from '../upstream/shared/shared.js';
import { captureLogger, configErrorOf, tempDir, write } from './_test/config-files.js';
import { buildGateway, rebuildMembers, type BuiltGateway } from './build-gateway.js';
import type { GatewayConfig, InProcessServerConfig, MiddlewareConfig, ServerConfig } from './gateway-config.js';
import { loadConfig } from './load-config.js';

const dir = tempDir();
const log = captureLogger();
const open: Harness[] = [];
const built: BuiltGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
  await Promise.all(built.splice(0).map((gateway) => gateway.upstream.close?.()));
});

function tool(name: string, answer = name): LocalTool {
  return { name, description: `the ${name} tool`, inputSchema: { type: 'object' }, handler: () => ({ content: [{ type: 'text', text: answer }] }) };
}

function server(name: string, tools: string[], settings: Partial<InProcessServerConfig> = {}): InProcessServerConfig {
  return {
    name,
    path: `mcpServers.${name}`,
    disabled: false,
    isolation: 'session',
    middleware: [],
    transport: 'upstream',
    upstream: local({ name, version: '1.0.0', tools: tools.map((t) => tool(t, `${name}:${t}`)) }),
    ...settings,
  };
}

function config(servers: ServerConfig[], more: Partial<GatewayConfig> = {}): GatewayConfig {
  return { file: join(dir, 'mcp-chain.config.json'), servers, front: { kind: 'stdio' }, naming: { separator: '__', maxNameLength: 64 }, middleware: [], ...more };
}

async function build(gatewayConfig: GatewayConfig, previous?: BuiltGateway): Promise<BuiltGateway> {
  const gateway = await buildGateway(gatewayConfig, { log, previous });
  built.push(gateway);
  return gateway;
}

async function connect(gateway: BuiltGateway): Promise<Harness> {
  const h = await harness(gateway.upstream, gateway.sessionOptions);
  open.push(h);
  return h;
}

async function toolNames(h: Harness): Promise<string[]> {
  return (await h.request('tools/list')).tools.map((t) => t.name);
}

function text(result: JsonObject): string | undefined {
  return (result.content as { text?: string }[] | undefined)?.[0]?.text;
}

describe('buildGateway', () => {
  test('one member per enabled server, in file order, with its prefix and timeouts (the gateway\'s start-up timeout by default)', async () => {
    const gateway = await build(
      config(
        [
          server('alpha', ['a'], { prefix: 'A', timeoutMs: 500 }),
          server('off', ['o'], { disabled: true }),
          server('beta', ['b'], { startupTimeoutMs: 2000 }),
        ],
        { timeouts: { startupMs: 9000 } },
      ),
    );
    assert.deepEqual(
      gateway.members.map(({ name, prefix, startupTimeoutMs, timeoutMs }) => ({ name, prefix, startupTimeoutMs, timeoutMs })),
      [
        { name: 'alpha', prefix: 'A', startupTimeoutMs: 9000, timeoutMs: 500 },
        { name: 'beta', prefix: undefined, startupTimeoutMs: 2000, timeoutMs: undefined },
      ],
    );
    assert.equal(gateway.upstream, gateway.aggregate, 'no global middleware: the aggregate itself');
    const h = await connect(gateway);
    assert.deepEqual(await toolNames(h), ['A__a', 'beta__b']);
    assert.equal(text(await h.request('tools/call', { name: 'beta__b', arguments: {} })), 'beta:b');
  });

  test("a server's allow/deny lists name its tools as it does, its own middleware come in front; the gateway's middleware sees the merged names", async () => {
    const seen: string[] = [];
    const record: Middleware = async (ctx, next) => {
      if (ctx.method === 'tools/call') seen.push(String(ctx.message.params?.name));
      return next();
    };
    const shout: MiddlewareConfig = {
      kind: 'function',
      path: 'mcpServers.alpha.middleware[1]',
      middleware: async (ctx, next) => {
        const reply = await next();
        if (ctx.method !== 'tools/list') return reply;
        return { ...reply, tools: (reply?.tools as JsonObject[]).map((t) => ({ ...t, description: String(t.description).toUpperCase() })) };
      },
    };
    const gateway = await build(
      config(
        [
          server('alpha', ['read_a', 'read_b', 'write_a'], {
            tools: { allow: ['read_*'], deny: ['read_b'] },
            middleware: [{ kind: 'builtin', name: 'rename', options: { tools: { read_a: 'fetch' } }, path: 'mcpServers.alpha.middleware[0]' }, shout],
          }),
          server('beta', ['x']),
        ],
        { middleware: [{ kind: 'function', middleware: record, path: 'middleware[0]' }], serverInfo: { name: 'gw', version: '2.0.0' }, timeouts: { requestMs: 4000 } },
      ),
    );
    assert.deepEqual(gateway.sessionOptions, { serverInfo: { name: 'gw', version: '2.0.0' }, timeouts: { request: 4000 } });
    const h = await connect(gateway);
    const { tools } = await h.request('tools/list');
    assert.deepEqual(
      tools.map((t) => [t.name, t.description]),
      [
        ['alpha__fetch', 'THE READ_A TOOL'],
        ['beta__x', 'the x tool'],
      ],
    );
    assert.equal(text(await h.request('tools/call', { name: 'alpha__fetch', arguments: {} })), 'alpha:read_a');
    await assert.rejects(h.request('tools/call', { name: 'alpha__write_a', arguments: {} }));
    assert.deepEqual(seen, ['alpha__fetch', 'alpha__write_a']);
  });

  test('isolation "shared": the member is one shared connection', async () => {
    const gateway = await build(config([server('alpha', ['a'], { isolation: 'shared' }), server('beta', ['b'])]));
    assert.ok(gateway.members[0]?.upstream instanceof SharedUpstream);
    assert.ok(!(gateway.members[1]?.upstream instanceof SharedUpstream));
    const [one, two] = [await connect(gateway), await connect(gateway)];
    assert.deepEqual(await toolNames(one), ['alpha__a', 'beta__b']);
    assert.deepEqual(await toolNames(two), ['alpha__a', 'beta__b']);
    assert.equal((gateway.members[0]?.upstream as SharedUpstream).sessions, 2);
  });

  test('from a JSON file to a call: a stdio server, a module middleware with options, a built-in writing where the file says', async () => {
    const notifier = join(import.meta.dirname, '../../test/fixtures/servers/notifier.ts');
    const path = write(dir, 'json-project/mcp-chain.config.json', {
      middleware: [{ module: './tag.mjs', options: { tag: '[gw]' } }, { log: { destination: 'calls.jsonl' } }],
      mcpServers: {
        notes: { command: process.execPath, args: ['--import', 'tsx', notifier], cwd: join(import.meta.dirname, '../..'), tools: { allow: ['echo'] } },
        local: { command: process.execPath, args: ['--import', 'tsx', notifier], cwd: join(import.meta.dirname, '../..'), disabled: true },
      },
    });
    write(dir, 'json-project/tag.mjs', 'export default ({ tag }) => async (ctx, next) => {\n  const reply = await next();\n  return ctx.method === "tools/list" ? { ...reply, tools: reply.tools.map((t) => ({ ...t, description: `${tag} ${t.description}` })) } : reply;\n};\n');
    const gateway = await build(await loadConfig(path));
    assert.deepEqual(gateway.members.map((m) => m.name), ['notes']);
    const h = await connect(gateway);
    const { tools } = await h.request('tools/list');
    assert.deepEqual(tools.map((t) => [t.name, t.description]), [['echo', '[gw] Returns its text argument']]);
    assert.equal(text(await h.request('tools/call', { name: 'echo', arguments: { text: 'hello' } })), 'hello');
    await h.close();
    await gateway.upstream.close?.(); // flushes the log
    const lines = readFileSync(join(path, '..', 'calls.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { method: string; tool?: string });
    assert.deepEqual(lines.map((line) => [line.method, line.tool]).at(-1), ['tools/call', 'echo']);
  });

  test('a middleware module without the export named, or exporting no middleware; options a built-in refuses', async () => {
    write(dir, 'modules/nothing.mjs', 'export const value = 1;\nexport default 5;\n');
    const module = (name: string, options: Record<string, unknown> = {}): MiddlewareConfig => ({ kind: 'module', module: join(dir, 'modules/nothing.mjs'), export: name, options, path: 'middleware[0]' });
    const missing = await configErrorOf(buildGateway(config([server('a', ['x'])], { middleware: [module('audit')] }), { log }));
    assert.match(missing.message, /mcp-chain\.config\.json: middleware\[0\]: .*nothing\.mjs has no export named "audit"$/);
    const notFunction = await configErrorOf(buildGateway(config([server('a', ['x'])], { middleware: [module('default')] }), { log }));
    assert.match(notFunction.message, /nothing\.mjs exports "default", which is not a function$/);
    const rename: MiddlewareConfig = { kind: 'builtin', name: 'rename', options: { tools: { a: 'b', c: 'b' } }, path: 'mcpServers.a.middleware[0]' };
    const refused = await configErrorOf(buildGateway(config([server('a', ['x'], { middleware: [rename] })]), { log }));
    assert.equal(refused.message, `${join(dir, 'mcp-chain.config.json')}: mcpServers.a.middleware[0]: rename: tools "a" and "c" would both be named "b"`);
  });
});

describe('rebuildMembers', () => {
  test('reuses the upstream of a server whose config did not change (prefix and timeouts aside), remakes the changed, adds the new, drops the removed', async () => {
    const same = local({ name: 'same', version: '1', tools: [tool('s')] });
    const before = config([
      server('kept', ['k'], { upstream: same, prefix: 'k1' }),
      { name: 'cmd', path: 'mcpServers.cmd', disabled: false, isolation: 'session', middleware: [], transport: 'stdio', command: 'server', args: ['--a'], env: { K: '1' } },
      { name: 'gone', path: 'mcpServers.gone', disabled: false, isolation: 'session', middleware: [], transport: 'http', url: 'https://x.example/mcp', headers: {} },
    ]);
    const gateway = await build(before);
    const members = await rebuildMembers(
      config([
        server('kept', ['k'], { upstream: same, prefix: 'k2', path: 'servers.kept', timeoutMs: 10 }),
        { name: 'cmd', path: 'mcpServers.cmd', disabled: false, isolation: 'session', middleware: [], transport: 'stdio', command: 'server', args: ['--a'], env: { K: '2' } },
        server('new', ['n']),
      ]),
      gateway,
      log,
    );
    assert.deepEqual(members.map((m) => m.name), ['kept', 'cmd', 'new']);
    assert.equal(members[0]?.upstream, gateway.members[0]?.upstream, 'unchanged: the same upstream object');
    assert.deepEqual([members[0]?.prefix, members[0]?.timeoutMs], ['k2', 10], 'with the new settings');
    assert.notEqual(members[1]?.upstream, gateway.members[1]?.upstream, 'its env changed: a new upstream');
    // Unchanged again, the remade one is reused next time.
    const again = await rebuildMembers(config([{ name: 'cmd', path: 'mcpServers.cmd', disabled: false, isolation: 'session', middleware: [], transport: 'stdio', command: 'server', args: ['--a'], env: { K: '2' } }]), { ...gateway, members }, log);
    assert.equal(again[0]?.upstream, members[1]?.upstream);
  });

  test('functions and objects of a TypeScript config compare by identity; a running session sees a remade member through update()', async () => {
    const notes = local({ name: 'notes', version: '1', tools: [tool('x')] });
    const stamp: Middleware = async (_ctx, next) => next();
    const withStamp = (middleware: Middleware, upstream = notes): GatewayConfig =>
      config([server('a', [], { upstream, middleware: [{ kind: 'function', middleware, path: 'mcpServers.a.middleware[0]' }] })]);
    const gateway = await build(withStamp(stamp));
    const h = await connect(gateway);
    assert.deepEqual(await toolNames(h), ['x']);
    assert.equal((await rebuildMembers(withStamp(stamp), gateway, log))[0]?.upstream, gateway.members[0]?.upstream);
    const sameText: Middleware = async (_ctx, next) => next();
    assert.notEqual((await rebuildMembers(withStamp(sameText), gateway, log))[0]?.upstream, gateway.members[0]?.upstream);
    const changed = await rebuildMembers(withStamp(stamp, local({ name: 'notes', version: '2', tools: [tool('x'), tool('y')] })), gateway, log);
    assert.notEqual(changed[0]?.upstream, gateway.members[0]?.upstream);
    await gateway.aggregate.update(changed);
    assert.deepEqual(await toolNames(h), ['x', 'y']);
  });
});

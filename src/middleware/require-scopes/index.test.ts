import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { Identity } from '../../core/session-info.js';
import { ChainError } from '../../errors/chain-error.js';
import { createContext } from '../../chain/context.js';
import type { Downstream } from '../../core/downstream.js';
import type { Upstream } from '../../core/upstream.js';
import { ErrorCode } from '../../errors/error-code.js';
import { silentLogger } from '../../log/stderr-logger.js';
import type { JsonObject, McpMessage, Reply } from '../../message/jsonrpc.js';
import { harness, type Harness } from '../../testing/harness.js';
import { local, type LocalTool } from '../../upstream/local.js';
import { scripted } from '../_test/scripted.js';
import { INSUFFICIENT_SCOPE, requireScopes, type RequireScopesOptions } from './index.js';

const tool = (name: string): LocalTool => ({ name, handler: () => ({ content: [{ type: 'text', text: name }] }) });
const server = local({
  tools: ['github__search', 'github__create_issue', 'github__delete_repo', 'jira__search', 'admin_reset', 'ping'].map(tool),
  prompts: ['review', 'payroll'].map((name) => ({
    name,
    handler: () => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: name } }] }),
  })),
  resources: ['file:///docs/readme.md', 'file:///secrets/key.txt'].map((uri) => ({ uri, name: uri, read: () => [{ uri, text: uri }] })),
});

const oauth = (...scopes: string[]): Identity => ({ id: 'alice', method: 'oauth', issuer: 'https://idp.test', clientId: 'app', scopes });
const staticToken: Identity = { id: 'ops', method: 'bearer' };

async function open(options: RequireScopesOptions, identity?: Identity, upstream: Upstream = server): Promise<Harness> {
  return harness(chain().use(requireScopes(options)).to(upstream), identity === undefined ? {} : { identity });
}

const names = (list: unknown, key = 'name'): unknown[] => (list as JsonObject[]).map((item) => item[key]);
const toolNames = async (h: Harness): Promise<unknown[]> => names((await h.request('tools/list')).tools);
const errorOf = async (h: Harness, name: string): Promise<unknown> => (await h.call('tools/call', { name, arguments: {} })).error;
const ok = async (h: Harness, name: string): Promise<void> => {
  assert.deepEqual((await h.request('tools/call', { name, arguments: {} })).content, [{ type: 'text', text: name }]);
};

const github: RequireScopesOptions = { tools: { 'github__create_*': ['repo', 'write'], 'github__delete_*': 'admin', 'github__*': 'repo' } };

describe('requireScopes', () => {
  test('with no options every session may use everything', async () => {
    const h = await open({}, oauth());
    assert.deepEqual((await h.request('tools/list')).tools, server.listTools());
    await ok(h, 'admin_reset');
    await h.close();
  });

  test('hide (the default): a tool the scopes do not cover is missing from tools/list, and calling it fails as an unknown tool', async () => {
    const h = await open(github, oauth('repo'));
    assert.deepEqual(await toolNames(h), ['github__search', 'jira__search', 'admin_reset', 'ping']);
    assert.deepEqual(await errorOf(h, 'github__delete_repo'), { code: -32602, message: 'Unknown tool: github__delete_repo' });
    assert.deepEqual(await errorOf(h, 'github__create_issue'), { code: -32602, message: 'Unknown tool: github__create_issue' });
    await ok(h, 'github__search');
    await ok(h, 'ping');
    await h.close();
  });

  test('a list of scopes needs all of them; the first matching key wins, in the order given', async () => {
    const both = await open(github, oauth('write', 'repo'));
    assert.deepEqual(await toolNames(both), ['github__search', 'github__create_issue', 'jira__search', 'admin_reset', 'ping']);
    await ok(both, 'github__create_issue');
    await both.close();

    // 'github__*' first: create_issue needs only "repo", delete_repo too.
    const broad = await open({ tools: { 'github__*': 'repo', 'github__create_*': ['repo', 'write'], 'github__delete_*': 'admin' } }, oauth('repo'));
    assert.deepEqual(await toolNames(broad), ['github__search', 'github__create_issue', 'github__delete_repo', 'jira__search', 'admin_reset', 'ping']);
    await ok(broad, 'github__delete_repo');
    await broad.close();
  });

  test('refuse: the tool is listed, and calling it is -32004 naming the scopes it needs, with { scopes, tool } in data', async () => {
    const h = await open({ ...github, onMissing: 'refuse' }, oauth('repo'));
    assert.deepEqual(await toolNames(h), server.listTools().map((t) => t.name));
    assert.equal(INSUFFICIENT_SCOPE, -32004);
    assert.deepEqual(await errorOf(h, 'github__create_issue'), {
      code: -32004,
      message: 'Insufficient scope: the tool "github__create_issue" needs the scopes "repo" and "write"; the caller lacks "write"',
      data: { scopes: ['repo', 'write'], tool: 'github__create_issue' },
    });
    assert.deepEqual(await errorOf(h, 'github__delete_repo'), {
      code: -32004,
      message: 'Insufficient scope: the tool "github__delete_repo" needs the scope "admin"; the caller lacks "admin"',
      data: { scopes: ['admin'], tool: 'github__delete_repo' },
    });
    await assert.rejects(h.request('tools/call', { name: 'github__delete_repo' }), { code: INSUFFICIENT_SCOPE, data: { scopes: ['admin'], tool: 'github__delete_repo' } });
    await ok(h, 'github__search');
    await h.close();
  });

  test('an OAuth token with no scopes at all gets only what needs none', async () => {
    const h = await open(github, oauth());
    assert.deepEqual(await toolNames(h), ['jira__search', 'admin_reset', 'ping']);
    await h.close();
  });

  test('default: scopes for everything no key matches; a key with an empty list needs none', async () => {
    const options: RequireScopesOptions = { tools: { ping: [], 'admin_*': 'admin' }, default: 'mcp:use', onMissing: 'refuse' };
    const none = await open(options, oauth('other'));
    await ok(none, 'ping');
    assert.deepEqual(await errorOf(none, 'jira__search'), {
      code: -32004,
      message: 'Insufficient scope: the tool "jira__search" needs the scope "mcp:use"; the caller lacks "mcp:use"',
      data: { scopes: ['mcp:use'], tool: 'jira__search' },
    });
    await none.close();

    const user = await open({ ...options, onMissing: 'hide' }, oauth('mcp:use'));
    assert.deepEqual(await toolNames(user), ['github__search', 'github__create_issue', 'github__delete_repo', 'jira__search', 'ping']);
    await user.close();

    const admin = await open({ ...options, onMissing: 'hide' }, oauth('admin'));
    assert.deepEqual(await toolNames(admin), ['admin_reset', 'ping']);
    await admin.close();
  });

  test('a `*` key is a catch-all; a default list needs every scope in it', async () => {
    const star = await open({ tools: { ping: [], '*': 'tools' } }, oauth('x'));
    assert.deepEqual(await toolNames(star), ['ping']);
    await star.close();
    const list = await open({ default: ['a', 'b'] }, oauth('a'));
    assert.deepEqual(await toolNames(list), []);
    await list.close();
    const both = await open({ default: ['a', 'b'] }, oauth('b', 'a'));
    assert.equal((await toolNames(both)).length, 6);
    await both.close();
  });

  test('unscoped allow (the default): a static token and a session without identity (stdio) may use everything', async () => {
    for (const identity of [staticToken, { id: 'k', method: 'api-key' }, undefined]) {
      const h = await open({ ...github, default: 'mcp:use' }, identity);
      assert.equal((await toolNames(h)).length, 6);
      await ok(h, 'github__delete_repo');
      await h.close();
    }
  });

  test('unscoped deny: a static token and a session without identity get nothing that needs a scope', async () => {
    for (const identity of [staticToken, undefined]) {
      const hidden = await open({ ...github, unscoped: 'deny' }, identity);
      assert.deepEqual(await toolNames(hidden), ['jira__search', 'admin_reset', 'ping']);
      assert.deepEqual(await errorOf(hidden, 'github__search'), { code: -32602, message: 'Unknown tool: github__search' });
      await ok(hidden, 'ping');
      await hidden.close();

      const refused = await open({ ...github, unscoped: 'deny', onMissing: 'refuse' }, identity);
      assert.deepEqual(await errorOf(refused, 'github__search'), {
        code: -32004,
        message: 'Insufficient scope: the tool "github__search" needs the scope "repo"; the caller has no scopes (a session without an OAuth token)',
        data: { scopes: ['repo'], tool: 'github__search' },
      });
      await refused.close();
    }
  });

  test('sessions sharing one middleware are each judged by their own identity', async () => {
    const mw = requireScopes(github);
    const reader = await harness(chain().use(mw).to(server), { identity: oauth('repo') });
    const admin = await harness(chain().use(mw).to(server), { identity: oauth('admin') });
    assert.deepEqual(await errorOf(admin, 'github__search'), { code: -32602, message: 'Unknown tool: github__search' });
    await ok(reader, 'github__search');
    await ok(admin, 'github__delete_repo');
    assert.deepEqual(await errorOf(reader, 'github__delete_repo'), { code: -32602, message: 'Unknown tool: github__delete_repo' });
    await reader.close();
    await admin.close();
  });

  test('every page of a list is filtered, its cursor kept', async () => {
    const schema = { type: 'object' };
    const upstream = scripted({
      'tools/list': (params) =>
        params.cursor === undefined
          ? { tools: [{ name: 'a__read', inputSchema: schema }, { name: 'a__write', inputSchema: schema }], nextCursor: 'page-2' }
          : params.cursor === 'page-2'
            ? { tools: [{ name: 'b__write', inputSchema: schema }], nextCursor: 'page-3' }
            : { tools: [{ name: 'b__read', inputSchema: schema }, { name: 'c__write', inputSchema: schema }] },
    });
    const h = await open({ tools: { '*__write': 'write' } }, oauth('read'), upstream);
    const first = await h.request('tools/list');
    assert.deepEqual(names(first.tools), ['a__read']);
    assert.equal(first.nextCursor, 'page-2');
    const second = await h.request('tools/list', { cursor: 'page-2' });
    assert.deepEqual(names(second.tools), []);
    assert.equal(second.nextCursor, 'page-3');
    const third = await h.request('tools/list', { cursor: 'page-3' });
    assert.deepEqual(names(third.tools), ['b__read']);
    assert.equal(third.nextCursor, undefined);
    await h.close();
  });

  test('prompts: hidden from prompts/list, prompts/get and completions fail as unknown; refuse names the scope', async () => {
    const options: RequireScopesOptions = { prompts: { payroll: 'hr' } };
    const h = await open(options, oauth('repo'));
    assert.deepEqual(names((await h.request('prompts/list')).prompts), ['review']);
    await assert.rejects(h.request('prompts/get', { name: 'payroll' }), { code: -32602, message: 'Unknown prompt: payroll' });
    await assert.rejects(
      h.request('completion/complete', { ref: { type: 'ref/prompt', name: 'payroll' }, argument: { name: 'x', value: '' } }),
      { code: -32602, message: 'Unknown prompt: payroll' },
    );
    assert.ok((await h.request('prompts/get', { name: 'review' })).messages);
    await h.close();

    const refused = await open({ ...options, onMissing: 'refuse' }, oauth('repo'));
    assert.deepEqual(names((await refused.request('prompts/list')).prompts), ['review', 'payroll']);
    assert.deepEqual((await refused.call('prompts/get', { name: 'payroll' })).error, {
      code: -32004,
      message: 'Insufficient scope: the prompt "payroll" needs the scope "hr"; the caller lacks "hr"',
      data: { scopes: ['hr'], prompt: 'payroll' },
    });
    const completion = await refused.call('completion/complete', { ref: { type: 'ref/prompt', name: 'payroll' }, argument: { name: 'x', value: '' } });
    assert.deepEqual(completion.error, {
      code: -32004,
      message: 'Insufficient scope: the prompt "payroll" needs the scope "hr"; the caller lacks "hr"',
      data: { scopes: ['hr'], prompt: 'payroll' },
    });
    await refused.close();

    const hr = await open(options, oauth('hr'));
    assert.ok((await hr.request('prompts/get', { name: 'payroll' })).messages);
    await hr.close();
  });

  test('resources by uri or glob: hidden from resources/list, read is -32002; refuse names the scope with { scopes, uri }', async () => {
    const options: RequireScopesOptions = { resources: { 'file:///secrets/*': 'secrets:read' } };
    const h = await open(options, oauth('repo'));
    assert.deepEqual(names((await h.request('resources/list')).resources, 'uri'), ['file:///docs/readme.md']);
    const uri = 'file:///secrets/key.txt';
    assert.deepEqual((await h.call('resources/read', { uri })).error, { code: ErrorCode.ResourceNotFound, message: `Resource not found: ${uri}`, data: { uri } });
    assert.ok((await h.request('resources/read', { uri: 'file:///docs/readme.md' })).contents);
    await h.close();

    const refused = await open({ ...options, onMissing: 'refuse' }, oauth('repo'));
    assert.equal((await refused.request('resources/list')).resources.length, 2);
    assert.deepEqual((await refused.call('resources/read', { uri })).error, {
      code: -32004,
      message: `Insufficient scope: the resource "${uri}" needs the scope "secrets:read"; the caller lacks "secrets:read"`,
      data: { scopes: ['secrets:read'], uri },
    });
    await refused.close();

    const allowed = await open(options, oauth('secrets:read'));
    assert.deepEqual((await allowed.request('resources/read', { uri })).contents, [{ uri, text: uri }]);
    await allowed.close();
  });

  test('a resource uri needs the scopes of every spelling a server could read it as; the upstream gets it as sent', async () => {
    const upstream = scripted({
      'resources/read': (params) => ({ contents: [{ uri: String(params.uri), text: 'content' }] }),
      'resources/subscribe': () => ({}),
    });
    const options: RequireScopesOptions = { resources: { 'file:///public/*': [], 'file:///secrets/*': 'secrets:read' }, default: 'admin' };
    const h = await open(options, oauth('docs'), upstream);
    const refusedUris = [
      'file:///public/../secrets/key.txt',
      'file:///public/%2e%2e/secrets/key.txt',
      'FILE:///secrets/key.txt',
      'file:///public/..%2Fsecrets/key.txt',
      'file:///public/..%2Fother',
      'file:///public\\..\\other',
      'file://localhost/secrets/key.txt',
      'file:////secrets/key.txt',
    ];
    for (const uri of refusedUris) {
      for (const method of ['resources/read', 'resources/subscribe'] as const) {
        await assert.rejects(h.request(method, { uri }), { code: ErrorCode.ResourceNotFound, message: `Resource not found: ${uri}` }, `${method} ${uri}`);
      }
    }
    const allowedUris = ['file:///public/a.txt', 'FILE:///public/%61.txt', 'file://localhost/public/x/../a.txt', 'file:///public/a%2Fb'];
    for (const uri of allowedUris) assert.deepEqual((await h.request('resources/read', { uri })).contents, [{ uri, text: 'content' }]);
    assert.deepEqual(
      upstream.received.filter((m) => m.method === 'resources/read').map((m) => m.params?.uri),
      allowedUris,
    );
    assert.equal(upstream.received.filter((m) => m.method === 'resources/subscribe').length, 0);
    await h.close();

    const refused = await open({ ...options, onMissing: 'refuse' }, oauth('docs'), upstream);
    const uri = 'file:///public/..%2Fsecrets/key.txt';
    assert.deepEqual((await refused.call('resources/read', { uri })).error, {
      code: -32004,
      message: `Insufficient scope: the resource "${uri}" needs the scope "secrets:read"; the caller lacks "secrets:read"`,
      data: { scopes: ['secrets:read'], uri },
    });
    await refused.close();
  });

  test('resource templates by uriTemplate; subscribe checked; resources/updated of a hidden resource does not reach the client', async () => {
    const upstream = scripted({
      'resources/templates/list': () => ({
        resourceTemplates: [
          { uriTemplate: 'db://public/{id}', name: 'public' },
          { uriTemplate: 'db://private/{id}', name: 'private' },
        ],
      }),
      'resources/subscribe': () => ({}),
    });
    const h = await open({ resources: { 'db://private/*': 'db:private' } }, oauth('db:public'), upstream);
    assert.deepEqual(names((await h.request('resources/templates/list')).resourceTemplates), ['public']);
    await assert.rejects(h.request('resources/subscribe', { uri: 'db://private/1' }), { code: ErrorCode.ResourceNotFound, message: 'Resource not found: db://private/1' });
    await assert.rejects(h.request('resources/unsubscribe', { uri: 'db://private/1' }), { code: ErrorCode.ResourceNotFound, message: 'Resource not found: db://private/1' });
    assert.ok(await h.request('resources/subscribe', { uri: 'db://public/1' }));
    assert.equal(upstream.received.filter((m) => m.method === 'resources/subscribe').length, 1);

    const visible = h.notification('notifications/resources/updated');
    await upstream.notify('notifications/resources/updated', { uri: 'db://private/1' });
    await upstream.notify('notifications/resources/updated', { uri: 'db://public/1' });
    assert.deepEqual((await visible).params, { uri: 'db://public/1' });
    assert.equal(h.notifications('notifications/resources/updated').length, 1);
    await h.close();
  });

  test('refuse lets resources/updated through, and lists whole', async () => {
    const upstream = scripted({ 'resources/templates/list': () => ({ resourceTemplates: [{ uriTemplate: 'db://private/{id}', name: 'private' }] }) });
    const h = await open({ resources: { 'db://private/*': 'db:private' }, onMissing: 'refuse' }, oauth(), upstream);
    assert.deepEqual(names((await h.request('resources/templates/list')).resourceTemplates), ['private']);
    const updated = h.notification('notifications/resources/updated');
    await upstream.notify('notifications/resources/updated', { uri: 'db://private/1' });
    assert.deepEqual((await updated).params, { uri: 'db://private/1' });
    await h.close();
  });

  test('other messages pass untouched, and a call without a string name is left to the server', async () => {
    const upstream = scripted({ 'tools/call': (params) => ({ content: [{ type: 'text', text: JSON.stringify(params.name ?? null) }] }) });
    const h = await open({ default: 'x' }, oauth(), upstream);
    assert.deepEqual(await h.request('ping'), {});
    assert.deepEqual((await h.request('tools/call', { name: 7 } as unknown as { name: string })).content, [{ type: 'text', text: '7' }]);
    await h.close();
  });

  test('a message it lets through gets next()\'s own promise back (no extra await)', () => {
    const mw = requireScopes({ ...github, default: 'x', unscoped: 'deny' });
    const downstream: Downstream = { request: () => Promise.resolve({}), notify: () => Promise.resolve() };
    const session = { id: 's', protocolVersion: '2025-11-25', clientInfo: undefined, clientCapabilities: undefined, log: silentLogger, identity: oauth('repo', 'x') };
    const run = (message: McpMessage, direction: 'toUpstream' | 'toDownstream' = 'toUpstream'): boolean => {
      const own: Promise<Reply> = Promise.resolve({});
      const kind = message.method.startsWith('notifications/') ? 'notification' : 'request';
      return mw(createContext({ message, kind, direction, session, downstream }), () => own) === own;
    };
    assert.ok(run({ method: 'ping' }));
    assert.ok(run({ method: 'tools/call', params: { name: 'github__search' } }));
    assert.ok(run({ method: 'notifications/tools/list_changed' }, 'toDownstream'));
    assert.ok(run({ method: 'sampling/createMessage', params: {} }, 'toDownstream'));
  });

  test('a scope that is empty or has a space in it is a CONFIG error naming its place', () => {
    assert.throws(() => requireScopes({ tools: { 'a*': '' } }), (error: unknown) => error instanceof ChainError && error.code === 'CONFIG' && error.message.startsWith('requireScopes.tools["a*"]: "" is not a scope'));
    assert.throws(() => requireScopes({ default: ['ok', 'two words'] }), { message: /^requireScopes\.default: "two words" is not a scope/ });
    assert.throws(() => requireScopes({ resources: { 'x://*': 'a"b' } }), { message: /^requireScopes\.resources\["x:\/\/\*"\]/ });
  });
});

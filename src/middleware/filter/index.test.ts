import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { ErrorCode } from '../../errors/error-code.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local, type LocalTool } from '../../upstream/local.js';
import { scripted } from '../_test/scripted.js';
import { filter } from './index.js';

const tool = (name: string): LocalTool => ({ name, handler: () => ({ content: [{ type: 'text', text: name }] }) });
const tools = ['read_file', 'write_file', 'delete_file', 'delete_all', 'a.b', 'ls'].map(tool);
const prompts = ['review', 'secret_prompt'].map((name) => ({
  name,
  handler: () => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: name } }] }),
}));
const resources = [
  { uri: 'file:///docs/readme.md', name: 'readme' },
  { uri: 'file:///docs/keys.txt', name: 'keys' },
  { uri: 'file:///etc/passwd', name: 'passwd' },
].map((resource) => ({ ...resource, read: () => [{ uri: resource.uri, text: resource.name }] }));
const server = local({ tools, prompts, resources });

function names(list: unknown): unknown[] {
  return (list as JsonObject[]).map((item) => item.name);
}

describe('filter', () => {
  test('with no rules every message passes untouched', async () => {
    const h = await harness(chain().use(filter()).to(server));
    assert.deepEqual((await h.request('tools/list')).tools, server.listTools());
    assert.deepEqual((await h.request('resources/list')).resources, server.listResources());
    await h.close();
  });

  test('a denied tool is missing from tools/list and calling it fails as an unknown tool would', async () => {
    const h = await harness(chain().use(filter({ tools: { deny: ['delete_*'] } })).to(server));
    assert.deepEqual(names((await h.request('tools/list')).tools), ['read_file', 'write_file', 'a.b', 'ls']);

    const hidden = await h.call('tools/call', { name: 'delete_all', arguments: {} });
    const unknown = await h.call('tools/call', { name: 'no_such_tool', arguments: {} });
    assert.deepEqual(hidden.error, { code: -32602, message: 'Unknown tool: delete_all' });
    assert.deepEqual(unknown.error, { code: -32602, message: 'Unknown tool: no_such_tool' });

    assert.deepEqual((await h.request('tools/call', { name: 'ls' })).content, [{ type: 'text', text: 'ls' }]);
    await h.close();
  });

  test('allow keeps only what it names; deny wins over allow; ? is one character; . is literal', async () => {
    const h = await harness(chain().use(filter({ tools: { allow: ['*_file', 'a?b', 'l.'], deny: ['delete_file'] } })).to(server));
    assert.deepEqual(names((await h.request('tools/list')).tools), ['read_file', 'write_file', 'a.b']);
    await assert.rejects(h.request('tools/call', { name: 'delete_file' }), { code: -32602, message: 'Unknown tool: delete_file' });
    await assert.rejects(h.request('tools/call', { name: 'ls' }), { code: -32602, message: 'Unknown tool: ls' });
    await h.close();
  });

  test('every page of a list is filtered, and its cursor kept', async () => {
    const schema = { type: 'object' };
    const upstream = scripted({
      'tools/list': (params) =>
        params.cursor === undefined
          ? { tools: [{ name: 'a', inputSchema: schema }, { name: 'secret_1', inputSchema: schema }], nextCursor: 'page-2' }
          : { tools: [{ name: 'secret_2', inputSchema: schema }, { name: 'b', inputSchema: schema }] },
    });
    const h = await harness(chain().use(filter({ tools: { deny: ['secret_*'] } })).to(upstream));
    const first = await h.request('tools/list');
    assert.deepEqual(names(first.tools), ['a']);
    assert.equal(first.nextCursor, 'page-2');
    assert.deepEqual(names((await h.request('tools/list', { cursor: 'page-2' })).tools), ['b']);
    await h.close();
  });

  test('a hidden prompt is missing from prompts/list, and prompts/get and its completions fail', async () => {
    const h = await harness(chain().use(filter({ prompts: { deny: ['secret_*'] } })).to(server));
    assert.deepEqual(names((await h.request('prompts/list')).prompts), ['review']);
    await assert.rejects(h.request('prompts/get', { name: 'secret_prompt' }), {
      code: -32602,
      message: 'Unknown prompt: secret_prompt',
    });
    await assert.rejects(
      h.request('completion/complete', { ref: { type: 'ref/prompt', name: 'secret_prompt' }, argument: { name: 'x', value: '' } }),
      { code: -32602, message: 'Unknown prompt: secret_prompt' },
    );
    assert.equal((await h.request('prompts/get', { name: 'review' })).messages !== undefined, true);
    await h.close();
  });

  test('resources are matched by uri or by name; reading a hidden one is -32002 (ResourceNotFound)', async () => {
    const h = await harness(chain().use(filter({ resources: { deny: ['file:///etc/*', 'keys'] } })).to(server));
    assert.deepEqual(names((await h.request('resources/list')).resources), ['readme']);

    for (const uri of ['file:///etc/passwd', 'file:///docs/keys.txt']) {
      const response = await h.call('resources/read', { uri });
      assert.deepEqual(response.error, { code: ErrorCode.ResourceNotFound, message: `Resource not found: ${uri}`, data: { uri } });
    }
    const readme = await h.request('resources/read', { uri: 'file:///docs/readme.md' });
    assert.deepEqual(readme.contents, [{ uri: 'file:///docs/readme.md', text: 'readme' }]);
    await h.close();
  });

  test('an allow list by name lets a client read what it names, and nothing else', async () => {
    const h = await harness(chain().use(filter({ resources: { allow: ['readme'] } })).to(server));
    assert.deepEqual(names((await h.request('resources/list')).resources), ['readme']);
    assert.ok(await h.request('resources/read', { uri: 'file:///docs/readme.md' }));
    await assert.rejects(h.request('resources/read', { uri: 'file:///etc/passwd' }), { code: ErrorCode.ResourceNotFound });
    await h.close();
  });

  test('names are listed once per session, again after resources/list_changed; subscribe is checked too', async () => {
    const upstream = scripted({
      'resources/list': () => ({ resources: [{ uri: 'db://a', name: 'public' }, { uri: 'db://b', name: 'private' }] }),
      'resources/read': (params) => ({ contents: [{ uri: String(params.uri), text: 'row' }] }),
      'resources/subscribe': () => ({}),
    });
    const lists = (): number => upstream.received.filter((m) => m.method === 'resources/list').length;
    const h = await harness(chain().use(filter({ resources: { deny: ['private'] } })).to(upstream));

    assert.ok(await h.request('resources/read', { uri: 'db://a' }));
    await assert.rejects(h.request('resources/subscribe', { uri: 'db://b' }), { code: ErrorCode.ResourceNotFound, message: 'Resource not found: db://b' });
    assert.ok(await h.request('resources/subscribe', { uri: 'db://a' }));
    assert.equal(lists(), 1);

    const changed = h.notification('notifications/resources/list_changed');
    await upstream.notify('notifications/resources/list_changed');
    await changed;
    await assert.rejects(h.request('resources/read', { uri: 'db://b' }), { code: ErrorCode.ResourceNotFound });
    assert.equal(lists(), 2);
    assert.equal(upstream.received.filter((m) => m.method === 'resources/subscribe').length, 1);
    await h.close();
  });

  test('resources/updated for a hidden resource does not reach the client', async () => {
    const upstream = scripted({ 'resources/list': () => ({ resources: [{ uri: 'db://b', name: 'private' }] }) });
    const h = await harness(chain().use(filter({ resources: { deny: ['db://b', 'private'] } })).to(upstream));
    const visible = h.notification('notifications/resources/updated');
    await upstream.notify('notifications/resources/updated', { uri: 'db://b' });
    await upstream.notify('notifications/resources/updated', { uri: 'db://a' });
    assert.deepEqual((await visible).params, { uri: 'db://a' });
    assert.equal(h.notifications('notifications/resources/updated').length, 1);
    await h.close();
  });

  test('resource templates are filtered by name or uriTemplate', async () => {
    const upstream = scripted({
      'resources/templates/list': () => ({
        resourceTemplates: [
          { uriTemplate: 'db://rows/{id}', name: 'rows' },
          { uriTemplate: 'db://users/{id}', name: 'users' },
          { uriTemplate: 'file:///{path}', name: 'files' },
        ],
      }),
    });
    const h = await harness(chain().use(filter({ resources: { deny: ['db://users/*', 'files'] } })).to(upstream));
    assert.deepEqual(names((await h.request('resources/templates/list')).resourceTemplates), ['rows']);
    await h.close();
  });

  test('notifications/tools/list_changed passes through', async () => {
    const upstream = scripted({});
    const h = await harness(chain().use(filter({ tools: { deny: ['*'] } })).to(upstream));
    const changed = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    assert.equal((await changed).method, 'notifications/tools/list_changed');
    await h.close();
  });

  describe('resource uris are judged in normal form; the upstream gets the uri as sent', () => {
    const BYPASSES = [
      'file:///allowed/../etc/passwd',
      'file:///allowed/%2e%2e/etc/passwd',
      'file:///allowed/.%2E/etc/passwd',
      'FILE:///allowed/..%2Fetc/passwd',
      'file:///allowed/..%2fetc/passwd',
      'file:///allowed/..%5Cetc/passwd',
      'file:///allowed\\..\\etc\\passwd',
      'file://localhost/allowed/../etc/passwd',
      'file:/allowed/x/../../etc/passwd',
    ];
    const files = (): ReturnType<typeof scripted> =>
      scripted({
        'resources/list': () => ({ resources: [{ uri: 'file:///allowed/a.txt', name: 'a' }, { uri: 'file:///etc/passwd', name: 'passwd' }] }),
        'resources/read': (params) => ({ contents: [{ uri: String(params.uri), text: 'content' }] }),
        'resources/subscribe': () => ({}),
      });
    const forwarded = (upstream: ReturnType<typeof scripted>, method: string): unknown[] =>
      upstream.received.filter((m) => m.method === method).map((m) => m.params?.uri);

    test('an allow rule: every spelling that leaves the allowed tree is refused for read and subscribe, and never reaches the upstream', async () => {
      const upstream = files();
      const h = await harness(chain().use(filter({ resources: { allow: ['file:///allowed/*'] } })).to(upstream));
      for (const uri of BYPASSES) {
        for (const method of ['resources/read', 'resources/subscribe'] as const) {
          const response = await h.call(method, { uri });
          assert.deepEqual(response.error, { code: ErrorCode.ResourceNotFound, message: `Resource not found: ${uri}`, data: { uri } }, `${method} ${uri}`);
        }
      }
      assert.deepEqual(forwarded(upstream, 'resources/read'), []);
      assert.deepEqual(forwarded(upstream, 'resources/subscribe'), []);
      await h.close();
    });

    test('an allow rule: allowed uris still work, in any spelling, and reach the upstream exactly as the client sent them', async () => {
      const upstream = files();
      const h = await harness(chain().use(filter({ resources: { allow: ['file:///allowed/*'] } })).to(upstream));
      const allowed = ['file:///allowed/a.txt', 'FILE:///allowed/%61.txt', 'file://localhost/allowed/./a.txt', 'file:///allowed/x/../a.txt', 'file:///allowed/a%2Fb'];
      for (const uri of allowed) {
        assert.deepEqual((await h.request('resources/read', { uri })).contents, [{ uri, text: 'content' }]);
        assert.deepEqual(await h.request('resources/subscribe', { uri }), {});
      }
      assert.deepEqual(forwarded(upstream, 'resources/read'), allowed);
      assert.deepEqual(forwarded(upstream, 'resources/subscribe'), allowed);
      assert.deepEqual(names((await h.request('resources/list')).resources), ['a']);
      await h.close();
    });

    test('a deny rule, by uri or by name: every spelling of the denied resource is refused', async () => {
      for (const deny of [['file:///etc/*'], ['passwd']]) {
        const upstream = files();
        const h = await harness(chain().use(filter({ resources: { deny } })).to(upstream));
        for (const uri of ['file:///etc/passwd', 'FILE:///etc/passwd', 'file:///etc/%70asswd', 'file:///allowed/../etc/passwd', 'file:////etc/passwd', 'file:///allowed/..%2Fetc/passwd', 'file://localhost/etc/./passwd']) {
          for (const method of ['resources/read', 'resources/subscribe'] as const) {
            await assert.rejects(h.request(method, { uri }), { code: ErrorCode.ResourceNotFound }, `${JSON.stringify(deny)} ${method} ${uri}`);
          }
        }
        assert.deepEqual(forwarded(upstream, 'resources/read'), []);
        assert.ok(await h.request('resources/read', { uri: 'file:///allowed/a.txt' }));
        await h.close();
      }
    });

    test('a listed resource whose uri leaves the allowed tree is hidden; resources/updated is judged by its normal form', async () => {
      const upstream = scripted({
        'resources/list': () => ({ resources: [{ uri: 'file:///allowed/a.txt', name: 'a' }, { uri: 'file:///allowed/../etc/passwd', name: 'b' }] }),
      });
      const h = await harness(chain().use(filter({ resources: { allow: ['file:///allowed/*'] } })).to(upstream));
      assert.deepEqual(names((await h.request('resources/list')).resources), ['a']);
      const updated = h.notification('notifications/resources/updated');
      await upstream.notify('notifications/resources/updated', { uri: 'file:///allowed/%2e%2e/etc/passwd' });
      await upstream.notify('notifications/resources/updated', { uri: 'FILE:///allowed/a.txt' });
      assert.deepEqual((await updated).params, { uri: 'FILE:///allowed/a.txt' });
      assert.equal(h.notifications('notifications/resources/updated').length, 1);
      await h.close();
    });
  });
});

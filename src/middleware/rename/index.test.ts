import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { ChainError } from '../../errors/chain-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local, type LocalTool } from '../../upstream/local.js';
import { scripted } from '../_test/scripted.js';
import { rename } from './index.js';

/** A tool that answers with its own (upstream) name. */
const tool = (name: string, description = `upstream ${name}`): LocalTool => ({
  name,
  description,
  handler: () => ({ content: [{ type: 'text', text: name }] }),
});
const server = local({
  tools: [tool('search_issues'), tool('get_issue'), tool('a'), tool('b')],
  prompts: [{ name: 'summarize', handler: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'summarize' } }] }) }],
});

async function textOf(result: Promise<JsonObject>): Promise<unknown> {
  const content = (await result).content as JsonObject[];
  return content[0]?.text;
}

function byName(list: unknown): Map<unknown, JsonObject> {
  return new Map((list as JsonObject[]).map((item) => [item.name, item]));
}

describe('rename', () => {
  test('tools/list shows the new names and overrides; the others are untouched', async () => {
    const mw = rename({ tools: { search_issues: { name: 'jira_search', title: 'Search', description: 'Searches ACME Jira' }, get_issue: 'jira_get' } });
    const h = await harness(chain().use(mw).to(server));
    const tools = byName((await h.request('tools/list')).tools);
    assert.deepEqual([...tools.keys()], ['jira_search', 'jira_get', 'a', 'b']);
    assert.deepEqual(tools.get('jira_search'), {
      name: 'jira_search',
      title: 'Search',
      description: 'Searches ACME Jira',
      inputSchema: { type: 'object' },
    });
    assert.equal(tools.get('jira_get')?.description, 'upstream get_issue');
    assert.deepEqual(tools.get('a'), server.listTools()[2]);
    await h.close();
  });

  test('a call to the new name reaches the upstream under the old one; the old name is unknown', async () => {
    const h = await harness(chain().use(rename({ tools: { search_issues: 'jira_search' } })).to(server));
    assert.equal(await textOf(h.request('tools/call', { name: 'jira_search', arguments: {} })), 'search_issues');
    const old = await h.call('tools/call', { name: 'search_issues', arguments: {} });
    assert.deepEqual(old.error, { code: -32602, message: 'Unknown tool: search_issues' });
    assert.equal(await textOf(h.request('tools/call', { name: 'get_issue' })), 'get_issue');
    await h.close();
  });

  test('an override without a new name keeps the tool callable under its name', async () => {
    const h = await harness(chain().use(rename({ tools: { a: { description: 'The letter a' } } })).to(server));
    assert.equal(byName((await h.request('tools/list')).tools).get('a')?.description, 'The letter a');
    assert.equal(await textOf(h.request('tools/call', { name: 'a' })), 'a');
    await h.close();
  });

  test('names can be swapped, and an upstream tool with a taken name is hidden behind the renamed one', async () => {
    const swap = await harness(chain().use(rename({ tools: { a: 'b', b: 'a' } })).to(server));
    assert.equal(await textOf(swap.request('tools/call', { name: 'a' })), 'b');
    assert.equal(await textOf(swap.request('tools/call', { name: 'b' })), 'a');
    assert.equal(byName((await swap.request('tools/list')).tools).get('a')?.description, 'upstream b');
    await swap.close();

    const shadow = await harness(chain().use(rename({ tools: { a: 'b' } })).to(server));
    const names = (await shadow.request('tools/list')).tools.map((t) => t.name);
    assert.deepEqual(names, ['search_issues', 'get_issue', 'b']);
    assert.equal(await textOf(shadow.request('tools/call', { name: 'b' })), 'a');
    await shadow.close();
  });

  test('prompts are renamed in prompts/list, prompts/get and completion/complete', async () => {
    const upstream = scripted({
      'prompts/list': () => ({ prompts: [{ name: 'summarize', description: 'old' }], nextCursor: 'next' }),
      'prompts/get': () => ({ messages: [] }),
      'completion/complete': () => ({ completion: { values: [] } }),
    });
    const h = await harness(chain().use(rename({ prompts: { summarize: { name: 'Summarize a thread', description: 'new' } } })).to(upstream));
    assert.deepEqual(await h.request('prompts/list'), {
      prompts: [{ name: 'Summarize a thread', description: 'new' }],
      nextCursor: 'next',
    });
    await h.request('prompts/get', { name: 'Summarize a thread' });
    await h.request('completion/complete', { ref: { type: 'ref/prompt', name: 'Summarize a thread' }, argument: { name: 'x', value: '' } });
    await assert.rejects(h.request('prompts/get', { name: 'summarize' }), { code: -32602, message: 'Unknown prompt: summarize' });
    const sent = upstream.received.filter((m) => m.method !== 'initialize' && m.method !== 'notifications/initialized');
    assert.deepEqual(sent.map((m) => m.params), [
      undefined,
      { name: 'summarize' },
      { ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'x', value: '' } },
    ]);
    await h.close();
  });

  test('notifications/tools/list_changed passes through to the client', async () => {
    const upstream = scripted({});
    const h = await harness(chain().use(rename({ tools: { a: 'b' } })).to(upstream));
    const changed = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    assert.equal((await changed).method, 'notifications/tools/list_changed');
    await h.close();
  });

  test('a config where two items end with the same name, or with an invalid tool name, is refused', () => {
    const refused = (options: Parameters<typeof rename>[0], message: RegExp): void => {
      assert.throws(() => rename(options), (error: unknown) => {
        assert.ok(error instanceof ChainError);
        assert.equal(error.code, 'CONFIG');
        assert.match(error.message, message);
        return true;
      });
    };
    refused({ tools: { a: 'c', b: 'c' } }, /tools "a" and "b" would both be named "c"/);
    refused({ tools: { a: 'b', b: { description: 'kept as b' } } }, /would both be named "b"/);
    refused({ prompts: { x: 'p', y: { name: 'p' } } }, /prompts "x" and "y"/);
    refused({ tools: { a: 'has space' } }, /"has space" is not a valid tool name/);
    refused({ tools: { a: 'ns:tool' } }, /not a valid tool name/);
    refused({ tools: { a: 'x'.repeat(129) } }, /not a valid tool name/);
    refused({ tools: { a: '' } }, /not a valid tool name/);
    assert.doesNotThrow(() => rename({ tools: { a: 'x'.repeat(128), b: 'ns.tool-name_2' } }));
  });
});

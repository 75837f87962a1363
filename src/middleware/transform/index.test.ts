import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { ChainError } from '../../errors/chain-error.js';
import type { Logger } from '../../log/logger.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness, type Harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { scripted, type Scripted } from '../_test/scripted.js';
import { transform, type TransformOptions } from './index.js';

/** The server's tools: a search with a schema worth transforming, and two plain ones. */
const SEARCH = {
  name: 'search_issues',
  description: 'Searches issues.',
  annotations: { readOnlyHint: false, openWorldHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      project: { type: 'string', description: 'The project key' },
      q: { type: 'string', description: 'Words' },
      limit: { type: 'integer', minimum: 0, maximum: 100 },
      state: { type: 'string', enum: ['open', 'closed', 'all'] },
      label: { type: 'string', pattern: '^[a-z]' },
    },
    required: ['project', 'q', 'limit'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
};
const PLAIN = (name: string): JsonObject => ({ name, description: `upstream ${name}`, inputSchema: { type: 'object' } });

/** A server that lists `tools` (in pages of two when `paged`) and answers calls with what it got. */
function server(tools: JsonObject[] = [SEARCH, PLAIN('get_issue'), PLAIN('delete_issue')], paged = false): Scripted {
  return scripted({
    'tools/list': (params) => {
      if (!paged) return { tools };
      const start = typeof params.cursor === 'string' ? Number(params.cursor) : 0;
      const page = { tools: tools.slice(start, start + 2) };
      return start + 2 < tools.length ? { ...page, nextCursor: String(start + 2) } : page;
    },
    'tools/call': (params) => ({
      content: [{ type: 'text', text: JSON.stringify(params) }],
      structuredContent: { count: 3, got: params },
    }),
  });
}

function capture(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger & { warnings: string[] } = {
    warnings,
    error: () => undefined,
    warn: (message) => void warnings.push(message),
    info: () => undefined,
    debug: () => undefined,
    child: () => logger,
  };
  return logger;
}

async function open(options: TransformOptions, upstream: Scripted = server(), log: Logger = capture()): Promise<Harness> {
  return harness(chain().use(transform(options)).to(upstream), { log });
}

function byName(tools: unknown): Map<unknown, JsonObject> {
  return new Map((tools as JsonObject[]).map((tool) => [tool.name, tool]));
}

/** The params of the calls that reached the server. */
function calls(upstream: Scripted): unknown[] {
  return upstream.received.filter((message) => message.method === 'tools/call').map((message) => message.params);
}

const ACME: TransformOptions = {
  tools: {
    search_issues: {
      name: 'acme_search',
      title: 'Search ACME issues',
      description: "{description} Only for ACME's staging data.",
      annotations: { readOnlyHint: true },
      arguments: {
        project: { hide: true, value: 'ACME-STAGING' },
        q: { name: 'query', description: '{description} to look for' },
        limit: { default: 10, minimum: 1, maximum: 50 },
        state: { enum: ['open', 'closed'] },
        label: { pattern: '^acme-', maxLength: 12, minLength: 7 },
      },
    },
    delete_issue: { enabled: false },
  },
};

describe('transform: what the client sees', () => {
  test('a tool gets its new name, title, templated description, merged annotations and a valid schema; outputSchema is untouched', async () => {
    const h = await open(ACME);
    const tools = byName((await h.request('tools/list')).tools);
    assert.deepEqual([...tools.keys()], ['acme_search', 'get_issue']);
    assert.deepEqual(tools.get('acme_search'), {
      name: 'acme_search',
      title: 'Search ACME issues',
      description: "Searches issues. Only for ACME's staging data.",
      annotations: { readOnlyHint: true, openWorldHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words to look for' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
          state: { type: 'string', enum: ['open', 'closed'] },
          label: { type: 'string', pattern: '^acme-', allOf: [{ pattern: '^[a-z]' }], minLength: 7, maxLength: 12 },
        },
        required: ['query'],
        additionalProperties: false,
      },
      outputSchema: SEARCH.outputSchema,
    });
    assert.deepEqual(tools.get('get_issue'), PLAIN('get_issue'));
    await h.close();
  });

  test('limits narrow to the tighter of the tool\'s and the option\'s; an empty required goes away', async () => {
    const h = await open({
      tools: { search_issues: { arguments: { limit: { minimum: -5, maximum: 500 }, project: { default: 'X' }, q: { default: '' } } } },
    });
    const schema = byName((await h.request('tools/list')).tools).get('search_issues')?.inputSchema as JsonObject;
    assert.deepEqual((schema.properties as JsonObject).limit, { type: 'integer', minimum: 0, maximum: 100 });
    assert.deepEqual(schema.required, ['limit']);
    await h.close();

    const none = await open({ tools: { search_issues: { arguments: { project: { hide: true, value: 'P' }, q: { default: '' }, limit: { default: 1 } } } } });
    const bare = byName((await none.request('tools/list')).tools).get('search_issues')?.inputSchema as JsonObject;
    assert.equal('required' in bare, false);
    await none.close();
  });

  test('a description without {description} replaces the original; a tool without one templates from empty', async () => {
    const h = await open({ tools: { search_issues: { description: 'Plain.' }, get_issue: { description: '{description} (ACME)' } } }, server([SEARCH, { name: 'get_issue', inputSchema: { type: 'object' } }]));
    const tools = byName((await h.request('tools/list')).tools);
    assert.equal(tools.get('search_issues')?.description, 'Plain.');
    assert.equal(tools.get('get_issue')?.description, '(ACME)');
    await h.close();
  });

  test('every page of a paged list is transformed, and the cursor is kept', async () => {
    const upstream = server([PLAIN('a'), PLAIN('b'), PLAIN('c'), SEARCH], true);
    const h = await open({ tools: { a: { enabled: false }, c: { name: 'see' }, search_issues: { arguments: { q: { name: 'query' } } } } }, upstream);
    const first = await h.request('tools/list');
    assert.deepEqual(first.tools.map((tool) => tool.name), ['b']);
    assert.equal(first.nextCursor, '2');
    const second = await h.request('tools/list', { cursor: '2' });
    assert.deepEqual(second.tools.map((tool) => tool.name), ['see', 'search_issues']);
    assert.ok('query' in ((second.tools[1]?.inputSchema.properties ?? {}) as JsonObject));
    assert.equal(second.nextCursor, undefined);
    await h.close();
  });

  test('a server tool with the name a renamed tool took is hidden behind it, with one warning', async () => {
    const log = capture();
    const upstream = server([PLAIN('a'), PLAIN('b')]);
    const h = await open({ tools: { a: { name: 'b' } } }, upstream, log);
    for (let i = 0; i < 2; i++) assert.deepEqual((await h.request('tools/list')).tools, [{ ...PLAIN('a'), name: 'b' }]);
    assert.deepEqual(log.warnings, ['transform: tool "b" is hidden: "a" is renamed to its name']);
    await h.request('tools/call', { name: 'b' });
    assert.deepEqual(calls(upstream), [{ name: 'a' }]);
    await h.close();
  });

  test('options that do not fit the tool\'s schema hide the tool, with one warning each', async () => {
    const log = capture();
    const h = await open(
      {
        tools: {
          search_issues: { arguments: { state: { enum: ['open', 'stale'] } } },
          get_issue: { arguments: { id: { description: 'x' } } },
          delete_issue: { arguments: { a: { name: 'b' } } },
        },
      },
      server([SEARCH, PLAIN('get_issue'), { name: 'delete_issue', inputSchema: { type: 'object', properties: { a: {}, b: {} } } }, PLAIN('other')]),
      log,
    );
    for (let i = 0; i < 2; i++) assert.deepEqual((await h.request('tools/list')).tools.map((tool) => tool.name), ['other']);
    assert.deepEqual(log.warnings, [
      'transform: tool "search_issues" is hidden: argument "state": its enum has "stale", which the tool\'s own enum does not',
      'transform: tool "get_issue" is hidden: argument "id" is not in the tool\'s inputSchema',
      'transform: tool "delete_issue" is hidden: argument "a" would be named "b", which the tool already has',
    ]);
    await h.close();
  });

  test('server→client traffic passes: list_changed reaches the client', async () => {
    const upstream = server();
    const h = await open(ACME, upstream);
    const changed = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    assert.equal((await changed).method, 'notifications/tools/list_changed');
    await h.close();
  });
});

describe('transform: calls', () => {
  test('a call is mapped back: original tool and argument names, hidden values pinned, defaults filled in; the result is untouched', async () => {
    const upstream = server();
    const h = await open(ACME, upstream);
    const result = await h.request('tools/call', { name: 'acme_search', arguments: { query: 'bug', state: 'open' }, _meta: { progressToken: 7 } });
    const sent = { name: 'search_issues', arguments: { q: 'bug', state: 'open', project: 'ACME-STAGING', limit: 10 }, _meta: { progressToken: 7 } };
    assert.deepEqual(result.structuredContent, { count: 3, got: sent });
    await h.request('tools/call', { name: 'acme_search', arguments: { query: 'x', limit: 50, label: 'acme-ui' } });
    await h.request('tools/call', { name: 'acme_search' });
    assert.deepEqual(calls(upstream), [
      sent,
      { name: 'search_issues', arguments: { q: 'x', limit: 50, label: 'acme-ui', project: 'ACME-STAGING' } },
      { name: 'search_issues', arguments: { project: 'ACME-STAGING', limit: 10 } },
    ]);
    await h.close();
  });

  test('a hidden argument pinned by its default, and a call to a tool left alone, go as they are', async () => {
    const upstream = server();
    const h = await open({ tools: { search_issues: { arguments: { project: { hide: true, default: 'DEF' } } } } }, upstream);
    await h.request('tools/call', { name: 'search_issues', arguments: { q: 'a' } });
    await h.request('tools/call', { name: 'get_issue', arguments: { id: 1 } });
    assert.deepEqual(calls(upstream), [
      { name: 'search_issues', arguments: { q: 'a', project: 'DEF' } },
      { name: 'get_issue', arguments: { id: 1 } },
    ]);
    await h.close();
  });

  test('a renamed tool without argument options is called under its old name', async () => {
    const upstream = server();
    const h = await open({ tools: { get_issue: { name: 'jira_get' } } }, upstream);
    await h.request('tools/call', { name: 'jira_get', arguments: { id: 1 } });
    assert.deepEqual(calls(upstream), [{ name: 'get_issue', arguments: { id: 1 } }]);
    await h.close();
  });

  test('refusals: -32602 naming the argument and the rule, and nothing reaches the server', async () => {
    const upstream = server();
    const h = await open(ACME, upstream);
    const refused = async (args: JsonObject, message: string, argument: string, rule: string): Promise<void> => {
      const reply = await h.call('tools/call', { name: 'acme_search', arguments: args });
      assert.deepEqual(reply.error, { code: -32602, message: `Invalid arguments for tool acme_search: ${message}`, data: { tool: 'acme_search', argument, rule } });
    };
    await refused({ query: 'a', project: 'OTHER' }, '"project" is fixed and cannot be set', 'project', 'hidden');
    await refused({ q: 'a' }, 'unknown argument "q" (it is called "query")', 'q', 'name');
    await refused({ query: 'a', state: 'all' }, '"state" must be one of "open", "closed"', 'state', 'enum');
    await refused({ query: 'a', limit: 0 }, '"limit" must be at least 1', 'limit', 'minimum');
    await refused({ query: 'a', limit: 51 }, '"limit" must be at most 50', 'limit', 'maximum');
    await refused({ query: 'a', label: 'acme-' }, '"label" must be at least 7 characters long', 'label', 'minLength');
    await refused({ query: 'a', label: 'acme-abcdefgh' }, '"label" must be at most 12 characters long', 'label', 'maxLength');
    await refused({ query: 'a', label: 'other-x' }, '"label" must match the pattern "^acme-"', 'label', 'pattern');
    const notObject = await h.call('tools/call', { name: 'acme_search', arguments: [] as unknown as JsonObject });
    assert.deepEqual(notObject.error, { code: -32602, message: 'Invalid arguments for tool acme_search: arguments must be an object' });
    assert.deepEqual(calls(upstream), []);
    await h.close();
  });

  test('lengths count characters (code points), not UTF-16 units', async () => {
    const upstream = server();
    const h = await open({ tools: { search_issues: { arguments: { q: { maxLength: 2 } } } } }, upstream);
    await h.request('tools/call', { name: 'search_issues', arguments: { q: '😀😀' } });
    assert.equal(calls(upstream).length, 1);
    await h.close();
  });

  test('a renamed-away or disabled tool is unknown', async () => {
    const upstream = server();
    const h = await open(ACME, upstream);
    for (const name of ['search_issues', 'delete_issue']) {
      const reply = await h.call('tools/call', { name, arguments: {} });
      assert.deepEqual(reply.error, { code: -32602, message: `Unknown tool: ${name}` });
    }
    assert.deepEqual(calls(upstream), []);
    await h.close();
  });

  test('two tools can swap names', async () => {
    const upstream = server([PLAIN('a'), PLAIN('b')]);
    const h = await open({ tools: { a: { name: 'b' }, b: { name: 'a' } } }, upstream);
    assert.deepEqual((await h.request('tools/list')).tools.map((tool) => [tool.name, tool.description]), [
      ['b', 'upstream a'],
      ['a', 'upstream b'],
    ]);
    await h.request('tools/call', { name: 'a' });
    assert.deepEqual(calls(upstream), [{ name: 'b' }]);
    await h.close();
  });

  test('works in front of a local() server: the tool runs with the original arguments', async () => {
    const upstream = local({
      tools: [
        {
          name: 'greet',
          inputSchema: { type: 'object', properties: { who: { type: 'string' }, greeting: { type: 'string' } }, required: ['who', 'greeting'] },
          handler: (args) => ({ content: [{ type: 'text', text: `${String(args.greeting)}, ${String(args.who)}` }] }),
        },
      ],
    });
    const h = await harness(chain().use(transform({ tools: { greet: { name: 'hello', arguments: { greeting: { hide: true, value: 'Hello' }, who: { name: 'name' } } } } })).to(upstream));
    const result = await h.request('tools/call', { name: 'hello', arguments: { name: 'Ada' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada' }]);
    await h.close();
  });
});

describe('transform: options', () => {
  const refused = (options: TransformOptions, message: RegExp): void => {
    assert.throws(() => transform(options), (error: unknown) => {
      assert.ok(error instanceof ChainError);
      assert.equal(error.code, 'CONFIG');
      assert.match(error.message, message);
      return true;
    });
  };

  test('options that cannot work are refused when the middleware is made, each with its place', () => {
    refused({ tools: { a: { name: 'b' }, b: {} } }, /^transform: tools\.b: tools "a" and "b" would both be named "b"$/);
    refused({ tools: { a: { name: 'has space' } } }, /^transform: tools\.a\.name: "has space" is not a valid tool name/);
    refused({ tools: { a: { arguments: { x: { hide: true } } } } }, /^transform: tools\.a\.arguments\.x\.hide: a hidden argument needs a value \(or a default\)/);
    refused({ tools: { a: { arguments: { x: { hide: true, value: 1, name: 'y' } } } } }, /arguments\.x\.name: a hidden argument is not shown, so it cannot be renamed/);
    refused({ tools: { a: { arguments: { x: { hide: true, value: 1, maximum: 3 } } } } }, /arguments\.x\.maximum: a hidden argument is not shown, so it cannot be narrowed/);
    refused({ tools: { a: { arguments: { x: { value: 1 } } } } }, /arguments\.x\.value: value pins a hidden argument/);
    refused({ tools: { a: { arguments: { x: { name: 'z' }, y: { name: 'z' } } } } }, /arguments\.y\.name: arguments "x" and "y" would both be named "z"/);
    refused({ tools: { a: { arguments: { x: { name: 'y' }, y: {} } } } }, /arguments\.y: arguments "x" and "y" would both be named "y"/);
    refused({ tools: { a: { arguments: { x: { enum: [] } } } } }, /arguments\.x\.enum: an empty enum/);
    refused({ tools: { a: { arguments: { x: { minimum: 3, maximum: 2 } } } } }, /arguments\.x\.maximum: maximum 2 is below minimum 3/);
    refused({ tools: { a: { arguments: { x: { minLength: 3, maxLength: 2 } } } } }, /arguments\.x\.maxLength: maxLength 2 is below minLength 3/);
    refused({ tools: { a: { arguments: { x: { minLength: 1.5 } } } } }, /arguments\.x\.minLength: minLength must be a whole number/);
    refused({ tools: { a: { arguments: { x: { pattern: '(' } } } } }, /arguments\.x\.pattern: not a valid regular expression/);
    refused({ tools: { a: { arguments: { x: { default: 'c', enum: ['a', 'b'] } } } } }, /arguments\.x\.default: the default must be one of "a", "b"/);
    refused({ tools: { a: { name: 'c' }, b: { name: 'c' } } }, /tools "a" and "b" would both be named "c"/);
  });

  test('what is allowed: a disabled tool frees its name, a renamed argument may take a hidden one\'s name', () => {
    assert.doesNotThrow(() => transform());
    assert.doesNotThrow(() => transform({ tools: { a: { enabled: false }, b: { name: 'a' } } }));
    assert.doesNotThrow(() => transform({ tools: { a: { arguments: { owner: { hide: true, value: 'me' }, org: { name: 'owner' } } } } }));
  });
});

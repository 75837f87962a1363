import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { Middleware } from '../../chain/middleware.js';
import type { LogFields, Logger } from '../../log/logger.js';
import { silentLogger } from '../../log/stderr-logger.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local, type LocalTool } from '../../upstream/local.js';
import { scripted } from '../_test/scripted.js';
import { CATALOG } from './_test/catalog.js';
import { QUERIES } from './_test/queries.js';
import { discover, type DiscoverOptions } from './index.js';

/** The catalog as local tools that answer with their name and arguments. */
function catalogTools(tools: readonly JsonObject[] = CATALOG): LocalTool[] {
  return tools.map((tool) => ({
    ...(tool as unknown as LocalTool),
    handler: (args) => ({ content: [{ type: 'text', text: `${String(tool.name)} ${JSON.stringify(args)}` }] }),
  }));
}

async function open(options: DiscoverOptions = {}, tools: LocalTool[] = catalogTools(), log?: Logger) {
  return harness(chain(discover(options)).to(local({ tools })), log ? { log } : {});
}

interface Found {
  tools: Array<{ name: string; description: string; score: number }>;
}

const names = (tools: unknown): string[] => (tools as JsonObject[]).map((tool) => tool.name as string);
const textOf = (result: JsonObject): string => ((result.content as JsonObject[])[0]?.text as string | undefined) ?? '';

/** A scripted server that lists `tools` in pages of `size` (recording each request). */
function paged(tools: () => JsonObject[], size: number) {
  return scripted({
    'tools/list': (params) => {
      const start = typeof params.cursor === 'string' ? Number(params.cursor) : 0;
      const all = tools();
      const page: JsonObject = { tools: all.slice(start, start + size) };
      if (start + size < all.length) page.nextCursor = String(start + size);
      return page;
    },
    'tools/call': (params) => ({ content: [{ type: 'text', text: `called ${String(params.name)}` }] }),
  });
}

function recorder(): Logger & { warnings: Array<[string, LogFields | undefined]> } {
  const warnings: Array<[string, LogFields | undefined]> = [];
  const log: Logger & { warnings: typeof warnings } = { ...silentLogger, warnings, warn: (message, fields) => void warnings.push([message, fields]), child: () => log };
  return log;
}

describe('discover: finding the right tool among 500', () => {
  test(`every one of the ${QUERIES.length} plain-English queries written before the ranking finds its tool in the top 3 (or is a known miss)`, async () => {
    const h = await open();
    const misses: string[] = [];
    for (const { query, expected } of QUERIES) {
      const result = await h.request('tools/call', { name: 'search_tools', arguments: { query, limit: 3 } });
      const found = (result.structuredContent as unknown as Found).tools.map((tool) => tool.name);
      if (!found.includes(expected)) misses.push(`${query} → ${expected} (got ${found.join(', ')})`);
    }
    // Two queries still miss (create_event ranks 11th; Linear's update_issue 9th, behind Jira's
    // transition_issue, "Move a Jira issue to another status ... Done"): kept as they were written.
    const known = ['schedule a meeting with Alice next week', 'move a Linear issue to done'];
    assert.deepEqual(misses.filter((miss) => !known.includes(miss.split(' → ')[0] ?? '')), []);
    assert.ok(QUERIES.length - misses.length >= 38, misses.join('\n'));
    await h.close();
  });

  test('the catalog is 500 tools of 15 servers, and the client sees only the three meta-tools', async () => {
    assert.equal(CATALOG.length, 500);
    assert.equal(new Set(CATALOG.map((tool) => tool.name.split('__')[0])).size, 15);
    const h = await open();
    const { tools } = await h.request('tools/list');
    assert.deepEqual(names(tools), ['search_tools', 'describe_tool', 'call_tool']);
    await h.close();
  });
});

describe('discover: tools/list', () => {
  test('the meta-tools have descriptions that say how to use them, input and output schemas, and annotations', async () => {
    const h = await open({ maxLimit: 20, defaultLimit: 5 });
    const { tools } = await h.request('tools/list');
    const [search, describeTool, call] = tools as unknown as JsonObject[];
    assert.match(String(search?.description), /search them by what you want to do.*describe_tool.*call_tool/s);
    assert.deepEqual(search?.inputSchema, {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What you want to do, in a few words' },
        limit: { type: 'integer', minimum: 1, maximum: 20, description: 'How many tools to return (default 5, at most 20)' },
      },
      required: ['query'],
    });
    assert.equal((search?.outputSchema as JsonObject).type, 'object');
    assert.deepEqual(search?.annotations, { title: 'Search tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.equal((describeTool?.annotations as JsonObject).readOnlyHint, true);
    assert.deepEqual((describeTool?.inputSchema as JsonObject).required, ['name']);
    assert.deepEqual((call?.inputSchema as JsonObject).required, ['name']);
    assert.equal((call?.annotations as JsonObject).readOnlyHint, false);
    await h.close();
  });

  test('names renames the meta-tools, everywhere they name each other too', async () => {
    const h = await open({ names: { search: 'find', call: 'run' } });
    const { tools } = await h.request('tools/list');
    assert.deepEqual(names(tools), ['find', 'describe_tool', 'run']);
    assert.match(String((tools[0] as unknown as JsonObject).description), /then call describe_tool .* and run to run it/);
    const found = await h.request('tools/call', { name: 'find', arguments: { query: 'open a pull request', limit: 1 } });
    assert.deepEqual((found.structuredContent as unknown as Found).tools.map((tool) => tool.name), ['github__create_pull_request']);
    await assert.rejects(h.request('tools/call', { name: 'search_tools', arguments: { query: 'x' } }), { code: -32602, message: 'Unknown tool: search_tools' });
    await h.close();
  });

  test('alwaysShow lists the tools it names (names and globs) as they are, after the meta-tools', async () => {
    const h = await open({ alwaysShow: ['slack__post_message', 'postgres__list_*'] });
    const { tools } = await h.request('tools/list');
    const expected = CATALOG.filter((tool) => tool.name === 'slack__post_message' || tool.name.startsWith('postgres__list_')).map((tool) => tool.name);
    assert.equal(expected.length, 12);
    assert.deepEqual(names(tools), ['search_tools', 'describe_tool', 'call_tool', ...expected]);
    assert.deepEqual(tools[3], CATALOG.find((tool) => tool.name === 'slack__post_message'));
    await h.close();
  });

  test('minTools: a catalog of at most that many tools is listed unchanged, and the meta-tools are not there', async () => {
    const small = catalogTools(CATALOG.slice(0, 40));
    const h = await open({ minTools: 40 }, small);
    const { tools } = await h.request('tools/list');
    assert.deepEqual(names(tools), names(CATALOG.slice(0, 40)));
    await assert.rejects(h.request('tools/call', { name: 'search_tools', arguments: { query: 'x' } }), { code: -32602, message: 'Unknown tool: search_tools' });
    await h.close();
    const big = await open({ minTools: 39 }, small);
    assert.deepEqual(names((await big.request('tools/list')).tools), ['search_tools', 'describe_tool', 'call_tool']);
    await big.close();
  });

  test('minTools with a server that pages its list: the client gets the pages as the server sends them', async () => {
    const upstream = paged(() => CATALOG.slice(0, 30), 20);
    const h = await harness(chain(discover({ minTools: 50 })).to(upstream));
    const first = await h.request('tools/list');
    assert.equal(first.tools.length, 20);
    assert.equal(first.nextCursor, '20');
    const second = await h.request('tools/list', { cursor: '20' });
    assert.equal(second.tools.length, 10);
    await h.close();
  });

  test('the catalog is read through every page of the list, and a cursor the client makes up is refused', async () => {
    const upstream = paged(() => [...CATALOG], 100);
    const h = await harness(chain(discover({ alwaysShow: ['zendesk__get_ticket'] })).to(upstream));
    assert.deepEqual(names((await h.request('tools/list')).tools), ['search_tools', 'describe_tool', 'call_tool', 'zendesk__get_ticket']);
    const cursors = upstream.received.filter((m) => m.method === 'tools/list').map((m) => m.params?.cursor);
    assert.deepEqual(cursors, [undefined, '100', '200', '300', '400']);
    const found = await h.request('tools/call', { name: 'search_tools', arguments: { query: 'reply to a customer support ticket', limit: 1 } });
    assert.deepEqual((found.structuredContent as unknown as Found).tools.map((tool) => tool.name), ['zendesk__reply_to_ticket']);
    assert.equal(upstream.received.filter((m) => m.method === 'tools/list').length, 5, 'read once per session');
    await assert.rejects(h.request('tools/list', { cursor: '100' }), { code: -32602, message: 'Invalid params: unknown cursor (the tool list has one page)' });
    await h.close();
  });

  test('a tool named like a meta-tool is reported once and stays reachable through call_tool', async () => {
    const log = recorder();
    const tools = catalogTools([{ name: 'search_tools', description: 'The server own search', inputSchema: { type: 'object' } }, ...CATALOG.slice(0, 3)]);
    const h = await open({ alwaysShow: ['*'] }, tools, log);
    assert.deepEqual(names((await h.request('tools/list')).tools), ['search_tools', 'describe_tool', 'call_tool', ...names(CATALOG.slice(0, 3))]);
    await h.request('tools/list');
    assert.deepEqual(log.warnings, [['discover: tools named like the meta-tools are reachable only through call_tool; rename the meta-tools (names)', { tools: ['search_tools'] }]]);
    const own = await h.request('tools/call', { name: 'call_tool', arguments: { name: 'search_tools', arguments: { q: 1 } } });
    assert.equal(textOf(own), 'search_tools {"q":1}');
    await h.close();
  });
});

describe('discover: search_tools', () => {
  test('the top matches as text (name and first line of the description) and as structured content with scores, best first', async () => {
    const h = await open();
    const result = await h.request('tools/call', { name: 'search_tools', arguments: { query: 'open a pull request', limit: 3 } });
    const { tools } = result.structuredContent as unknown as Found;
    assert.equal(tools.length, 3);
    assert.equal(tools[0]?.name, 'github__create_pull_request');
    assert.equal(tools[0]?.description, 'Create a new pull request in a GitHub repository, from a head branch into a base branch.');
    assert.ok(tools.every((tool, i) => i === 0 || (tools[i - 1]?.score ?? 0) >= tool.score));
    const lines = textOf(result).split('\n');
    assert.equal(lines[0], '3 tools for "open a pull request", best first:');
    assert.equal(lines[1], '- github__create_pull_request: Create a new pull request in a GitHub repository, from a head branch into a base branch.');
    assert.equal(lines[4], 'Call describe_tool for a tool\'s arguments, then call_tool to run it.');
    assert.equal(result.isError, undefined);
    await h.close();
  });

  test('limit defaults to defaultLimit and is capped at maxLimit', async () => {
    const h = await open({ defaultLimit: 4, maxLimit: 6 });
    const count = async (args: JsonObject): Promise<number> =>
      ((await h.request('tools/call', { name: 'search_tools', arguments: args })).structuredContent as unknown as Found).tools.length;
    assert.equal(await count({ query: 'issue' }), 4);
    assert.equal(await count({ query: 'issue', limit: 100 }), 6);
    assert.equal(await count({ query: 'issue', limit: 2 }), 2);
    await h.close();
    const defaults = await open();
    assert.equal(((await defaults.request('tools/call', { name: 'search_tools', arguments: { query: 'issue' } })).structuredContent as unknown as Found).tools.length, 10);
    await defaults.close();
  });

  test('an empty query, or a limit that is not a whole number, is refused with -32602', async () => {
    const h = await open();
    for (const args of [{}, { query: '' }, { query: '   ' }, { query: 3 }]) {
      await assert.rejects(h.request('tools/call', { name: 'search_tools', arguments: args }), {
        code: -32602,
        message: 'Invalid params: search_tools needs a query (what you want to do, in a few words)',
      });
    }
    for (const limit of [0, 1.5, '3']) {
      await assert.rejects(h.request('tools/call', { name: 'search_tools', arguments: { query: 'x', limit } }), {
        code: -32602,
        message: "Invalid params: search_tools's limit must be a whole number of at least 1",
      });
    }
    await assert.rejects(h.request('tools/call', { name: 'search_tools', arguments: 'query' as unknown as JsonObject }), { code: -32602 });
    await h.close();
  });

  test('no match is a readable answer, not an error', async () => {
    const h = await open();
    const result = await h.request('tools/call', { name: 'search_tools', arguments: { query: 'xylophone quantum' } });
    assert.equal(textOf(result), 'No tools match "xylophone quantum". Search again with other words: what you want to do, or the name of a service.');
    assert.deepEqual(result.structuredContent, { tools: [] });
    assert.equal(result.isError, undefined);
    await h.close();
  });

  test('a query that names a server prefers its tools; words match across snake_case, camelCase and plurals', async () => {
    const h = await open();
    const top = async (query: string): Promise<string[]> =>
      ((await h.request('tools/call', { name: 'search_tools', arguments: { query, limit: 3 } })).structuredContent as unknown as Found).tools.map((tool) => tool.name);
    assert.ok((await top('gitlab create issue')).every((name) => name.startsWith('gitlab__')));
    assert.equal((await top('createPullRequest'))[0], 'github__create_pull_request');
    assert.equal((await top('merge requests'))[0]?.startsWith('gitlab__'), true);
    await h.close();
  });
});

describe('discover: describe_tool', () => {
  test("a tool's full definition as JSON text and structured content", async () => {
    const h = await open();
    const result = await h.request('tools/call', { name: 'describe_tool', arguments: { name: 'stripe__create_refund' } });
    const tool = CATALOG.find((t) => t.name === 'stripe__create_refund');
    assert.deepEqual(result.structuredContent, tool);
    assert.deepEqual(JSON.parse(textOf(result)), tool);
    await h.close();
  });

  test('title and outputSchema are part of the definition; a meta-tool can be described too', async () => {
    const outputSchema = { type: 'object', properties: { n: { type: 'number' } } };
    const tools = catalogTools([{ name: 'count', title: 'Count things', description: 'Counts', inputSchema: { type: 'object' }, outputSchema, annotations: { readOnlyHint: true } }]);
    const h = await open({}, tools);
    const result = await h.request('tools/call', { name: 'describe_tool', arguments: { name: 'count' } });
    assert.deepEqual(result.structuredContent, { name: 'count', title: 'Count things', description: 'Counts', inputSchema: { type: 'object' }, outputSchema, annotations: { readOnlyHint: true } });
    const meta = await h.request('tools/call', { name: 'describe_tool', arguments: { name: 'call_tool' } });
    assert.equal((meta.structuredContent as JsonObject).name, 'call_tool');
    await h.close();
  });

  test('an unknown name is an isError result that suggests close names', async () => {
    const h = await open();
    const typo = await h.request('tools/call', { name: 'describe_tool', arguments: { name: 'github__create_pull_requst' } });
    assert.equal(typo.isError, true);
    assert.equal(textOf(typo), 'Unknown tool "github__create_pull_requst". Did you mean github__create_pull_request, github__update_pull_request, github__get_pull_request? Use search_tools to find tools.');
    const words = await h.request('tools/call', { name: 'describe_tool', arguments: { name: 'refund' } });
    assert.equal(words.isError, true);
    assert.equal(textOf(words), 'Unknown tool "refund". Did you mean stripe__list_refunds, stripe__create_refund? Use search_tools to find tools.');
    const nothing = await h.request('tools/call', { name: 'describe_tool', arguments: { name: 'zzzz' } });
    assert.equal(textOf(nothing), 'Unknown tool "zzzz". Use search_tools to find tools.');
    await assert.rejects(h.request('tools/call', { name: 'describe_tool', arguments: {} }), { code: -32602, message: 'Invalid params: describe_tool needs the name of a tool' });
    await h.close();
  });
});

describe('discover: call_tool', () => {
  test('runs the named tool with its arguments and returns its result as it is', async () => {
    const h = await open();
    const result = await h.request('tools/call', { name: 'call_tool', arguments: { name: 'calendar__list_events', arguments: { time_min: 'a', time_max: 'b' } } });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'calendar__list_events {"time_min":"a","time_max":"b"}' }] });
    const bare = await h.request('tools/call', { name: 'call_tool', arguments: { name: 'slack__list_reminders' } });
    assert.equal(textOf(bare), 'slack__list_reminders {}');
    await h.close();
  });

  test('the rest of the chain sees an ordinary tools/call of the real tool, with the original _meta', async () => {
    const seen: JsonObject[] = [];
    const spy: Middleware = (ctx, next) => {
      if (ctx.method === 'tools/call') seen.push(ctx.message.params ?? {});
      return next();
    };
    const h = await harness(chain(discover(), spy).to(local({ tools: catalogTools() })));
    await h.request('tools/call', { name: 'call_tool', arguments: { name: 'jira__start_sprint', arguments: { sprint_id: 4 } }, _meta: { trace: 'x' } });
    assert.deepEqual(seen, [{ name: 'jira__start_sprint', arguments: { sprint_id: 4 }, _meta: { trace: 'x' } }]);
    await h.close();
  });

  test("progress of the tool reaches the client under the original call's progress token", async () => {
    const slow: LocalTool = {
      name: 'slow',
      handler: async (_args, ctx) => {
        await ctx.progress(1, 2, 'half');
        await ctx.progress(2, 2, 'done');
        return { content: [{ type: 'text', text: 'finished' }] };
      },
    };
    const h = await open({}, [slow]);
    const result = await h.request('tools/call', { name: 'call_tool', arguments: { name: 'slow' }, _meta: { progressToken: 'p1' } });
    assert.equal(textOf(result), 'finished');
    assert.deepEqual(
      h.notifications('notifications/progress').map((m) => m.params),
      [
        { progressToken: 'p1', progress: 1, total: 2, message: 'half' },
        { progressToken: 'p1', progress: 2, total: 2, message: 'done' },
      ],
    );
    await h.close();
  });

  test('an unknown tool gets the answer the server gives; bad call_tool params are -32602', async () => {
    const h = await open();
    await assert.rejects(h.request('tools/call', { name: 'call_tool', arguments: { name: 'nope' } }), { code: -32602, message: 'Unknown tool: nope' });
    await assert.rejects(h.request('tools/call', { name: 'call_tool', arguments: {} }), { code: -32602, message: 'Invalid params: call_tool needs the name of the tool to run' });
    await assert.rejects(h.request('tools/call', { name: 'call_tool', arguments: { name: 'slack__list_reminders', arguments: [1] } }), {
      code: -32602,
      message: 'Invalid params: call_tool\'s arguments must be an object (the arguments of slack__list_reminders)',
    });
    await h.close();
  });

  test('call_tool naming a meta-tool runs it', async () => {
    const h = await open();
    const result = await h.request('tools/call', { name: 'call_tool', arguments: { name: 'search_tools', arguments: { query: 'refund a payment', limit: 1 } } });
    assert.deepEqual((result.structuredContent as unknown as Found).tools.map((tool) => tool.name), ['stripe__create_refund']);
    await h.close();
  });

  test('a direct call of a real tool by name still passes through', async () => {
    const h = await open();
    const result = await h.request('tools/call', { name: 'github__get_me', arguments: {} });
    assert.equal(textOf(result), 'github__get_me {}');
    await h.close();
  });
});

describe('discover: the catalog per session', () => {
  test('concurrent first uses share one reading of the list', async () => {
    const upstream = paged(() => [...CATALOG], 250);
    const h = await harness(chain(discover()).to(upstream));
    await Promise.all([
      h.request('tools/call', { name: 'search_tools', arguments: { query: 'a' } }),
      h.request('tools/call', { name: 'search_tools', arguments: { query: 'b' } }),
      h.request('tools/call', { name: 'describe_tool', arguments: { name: 'github__get_me' } }),
    ]);
    assert.equal(upstream.received.filter((m) => m.method === 'tools/list').length, 2, 'two pages, read once');
    await h.close();
  });

  test('list_changed reaches the client and makes the next search read the new catalog', async () => {
    let tools: JsonObject[] = [{ name: 'old_tool', description: 'Frobnicates widgets', inputSchema: { type: 'object' } }];
    const upstream = paged(() => tools, 10);
    const h = await harness(chain(discover()).to(upstream));
    await h.request('tools/list');
    const search = async (): Promise<string[]> =>
      ((await h.request('tools/call', { name: 'search_tools', arguments: { query: 'frobnicate widgets' } })).structuredContent as unknown as Found).tools.map((tool) => tool.name);
    assert.deepEqual(await search(), ['old_tool']);
    tools = [{ name: 'new_tool', description: 'Frobnicates widgets better', inputSchema: { type: 'object' } }];
    assert.deepEqual(await search(), ['old_tool'], 'kept until the server says the list changed');
    const changed = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    await changed;
    assert.deepEqual(await search(), ['new_tool']);
    await h.close();
  });

  test('a failed reading is not kept: the next use reads again', async () => {
    let fail = true;
    const upstream = scripted({
      'tools/list': () => {
        if (fail) throw new Error('boom');
        return { tools: [{ name: 'only', description: 'The only tool', inputSchema: { type: 'object' } }] };
      },
    });
    const h = await harness(chain(discover()).to(upstream));
    await assert.rejects(h.request('tools/call', { name: 'search_tools', arguments: { query: 'only' } }));
    fail = false;
    const result = await h.request('tools/call', { name: 'search_tools', arguments: { query: 'only' } });
    assert.deepEqual((result.structuredContent as unknown as Found).tools.map((tool) => tool.name), ['only']);
    await h.close();
  });

  test('other methods pass untouched, and tools/list costs no reading without minTools or alwaysShow', async () => {
    const upstream = paged(() => [...CATALOG], 500);
    const h = await harness(chain(discover()).to(upstream));
    await h.request('tools/list');
    await assert.rejects(h.request('prompts/list'), { code: -32601 });
    assert.deepEqual(upstream.received.map((m) => m.method).filter((m) => m !== 'notifications/initialized' && m !== 'initialize'), ['prompts/list']);
    await h.close();
  });
});

describe('discover: options', () => {
  test('wrong options throw a ChainError that names them', () => {
    assert.throws(() => discover({ names: { search: 'x', call: 'x' } }), /discover.names: expected three different non-empty names/);
    assert.throws(() => discover({ names: { describe: '' } }), /discover.names/);
    assert.throws(() => discover({ minTools: -1 }), /discover.minTools: expected a whole number of at least 0, found -1/);
    assert.throws(() => discover({ maxLimit: 0 }), /discover.maxLimit/);
    assert.throws(() => discover({ defaultLimit: 20, maxLimit: 10 }), /discover.defaultLimit \(20\) is more than maxLimit \(10\)/);
  });
});

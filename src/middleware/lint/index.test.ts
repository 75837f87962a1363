import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { Middleware } from '../../chain/middleware.js';
import { McpError } from '../../errors/mcp-error.js';
import type { LogFields, Logger } from '../../log/logger.js';
import { silentLogger } from '../../log/stderr-logger.js';
import type { JsonObject, Result } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { scripted, type Handler } from '../_test/scripted.js';
import { lint } from './index.js';

const schema = { type: 'object' };
const text = { type: 'text', text: 'hi' };
const task = { taskId: 't1', status: 'working', createdAt: '2025-11-25T00:00:00Z', lastUpdatedAt: '2025-11-25T00:00:00Z', ttl: null };

/** A request, and the valid answer the upstream gives it. */
const VALID: Array<[method: string, params: JsonObject | undefined, result: Result]> = [
  ['tools/list', undefined, { tools: [{ name: 'a', inputSchema: schema, outputSchema: schema, description: 'A', x: 1 }], nextCursor: 'p2' }],
  ['tools/list', { cursor: 'p2' }, { tools: [] }],
  ['tools/call', { name: 'a', arguments: { q: 1 }, _meta: { progressToken: 7 } }, { content: [text], isError: false, structuredContent: {} }],
  ['tools/call', { name: 'a', task: { ttl: 1000 } }, { task }],
  ['prompts/list', undefined, { prompts: [{ name: 'p', arguments: [{ name: 'x', required: true }] }] }],
  ['prompts/get', { name: 'p', arguments: { x: 'y' } }, { messages: [{ role: 'user', content: text }, { role: 'assistant', content: text }] }],
  ['resources/list', undefined, { resources: [{ uri: 'file:///a', name: 'a' }] }],
  ['resources/templates/list', undefined, { resourceTemplates: [{ uriTemplate: 'file:///{p}', name: 't' }] }],
  ['resources/read', { uri: 'file:///a' }, { contents: [{ uri: 'file:///a', text: 'a' }, { uri: 'file:///b', blob: 'Yg==' }] }],
  ['resources/subscribe', { uri: 'file:///a' }, {}],
  ['completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } }, { completion: { values: ['a'], hasMore: false } }],
  ['completion/complete', { ref: { type: 'ref/resource', uri: 'file:///{p}' }, argument: { name: 'p', value: '' } }, { completion: { values: [] } }],
  ['logging/setLevel', { level: 'warning' }, { _meta: { x: 1 } }],
  ['x-vendor/anything', { whatever: [1] }, { answer: 42 }],
];

/** An upstream answering each request of the table (told apart by its params) with its result. */
function answers(table: typeof VALID): Record<string, Handler> {
  const handlers: Record<string, Handler> = {};
  for (const [method] of table) {
    handlers[method] = (params) => table.find(([m, p]) => m === method && JSON.stringify(p ?? {}) === JSON.stringify(params))?.[2] ?? {};
  }
  return handlers;
}

/** A harness over a lint and a scripted upstream; `problems()` lists what lint found. */
async function linted(handlers: Record<string, Handler>, options: { initialize?: boolean; log?: Logger } = {}) {
  const upstream = scripted(handlers);
  const checked = lint(options.log ? { onViolation: 'log' } : {});
  const h = await harness(chain().use(checked).to(upstream), options);
  const problems = (): string[] => checked.violations.map((v) => v.problem);
  return { h, upstream, checked, problems };
}

const internalError = { code: -32603, message: 'Internal error' };

describe('lint', () => {
  test('valid traffic passes untouched, in both directions, and nothing is found', async () => {
    const { h, upstream, checked } = await linted(answers(VALID));
    for (const [method, params, result] of VALID) assert.deepEqual(await h.request(method, params), result, method);

    h.handle('sampling/createMessage', () => ({ role: 'assistant', content: text, model: 'm', stopReason: 'endTurn' }));
    h.handle('elicitation/create', () => ({ action: 'accept', content: { name: 'x' } }));
    h.handle('roots/list', () => ({ roots: [{ uri: 'file:///home', name: 'home' }] }));
    h.handle('ping', () => ({}));
    assert.equal((await upstream.ask('sampling/createMessage', { messages: [{ role: 'user', content: text }], maxTokens: 5 })).model, 'm');
    assert.equal((await upstream.ask('elicitation/create', { message: 'Name?', requestedSchema: schema })).action, 'accept');
    assert.deepEqual((await upstream.ask('roots/list')).roots, [{ uri: 'file:///home', name: 'home' }]);
    assert.deepEqual(await upstream.ask('ping'), {});

    const logged = h.notification('notifications/message');
    await upstream.notify('notifications/progress', { progressToken: 'tok', progress: 1, total: 2, message: 'half' });
    await upstream.notify('notifications/tools/list_changed');
    await upstream.notify('notifications/resources/updated', { uri: 'file:///a' });
    await upstream.notify('notifications/message', { level: 'info', data: { any: 'thing' } });
    assert.deepEqual((await logged).params, { level: 'info', data: { any: 'thing' } });
    h.notify('notifications/roots/list_changed');
    await h.request('tools/list');

    assert.deepEqual(checked.violations, []);
    await h.close();
  });

  const BROKEN_RESULTS: Array<[what: string, method: string, params: JsonObject | undefined, result: unknown, problem: string]> = [
    ['a result that is not an object', 'tools/list', undefined, [], 'result: expected an object, got an array'],
    ['a non-object _meta', 'tools/list', undefined, { tools: [], _meta: 'x' }, 'result._meta: expected an object, got the string "x"'],
    ['a tool without inputSchema', 'tools/list', undefined, { tools: [{ name: 'a' }] }, 'result.tools[0].inputSchema: expected an object, got nothing'],
    ['an inputSchema not of type object', 'tools/list', undefined, { tools: [{ name: 'a', inputSchema: { type: 'string' } }] }, 'result.tools[0].inputSchema.type: expected "object", got the string "string"'],
    ['a tool without a name', 'tools/list', undefined, { tools: [{ inputSchema: schema }] }, 'result.tools[0].name: expected a string, got nothing'],
    ['a list without its array', 'tools/list', undefined, { items: [] }, 'result.tools: expected an array, got nothing'],
    ['a non-string nextCursor', 'tools/list', undefined, { tools: [], nextCursor: 2 }, 'result.nextCursor: expected a string, got number 2'],
    ['content without a type', 'tools/call', { name: 'a' }, { content: [{ text: 'hi' }] }, 'result.content[0].type: expected a string, got nothing'],
    ['a tool result without content', 'tools/call', { name: 'a' }, { isError: true }, 'result.content: expected an array, got nothing'],
    ['a non-boolean isError', 'tools/call', { name: 'a' }, { content: [], isError: 'yes' }, 'result.isError: expected a boolean, got the string "yes"'],
    ['a task of unknown status', 'tools/call', { name: 'a' }, { task: { ...task, status: 'asleep' } }, 'result.task.status: expected "working" or "input_required" or "completed" or "failed" or "cancelled", got the string "asleep"'],
    ['a prompt without a name', 'prompts/list', undefined, { prompts: [{ description: 'd' }] }, 'result.prompts[0].name: expected a string, got nothing'],
    ['a prompt message from "system"', 'prompts/get', { name: 'p' }, { messages: [{ role: 'system', content: text }] }, 'result.messages[0].role: expected "user" or "assistant", got the string "system"'],
    ['a prompt message without content', 'prompts/get', { name: 'p' }, { messages: [{ role: 'user' }] }, 'result.messages[0].content: expected an object, got nothing'],
    ['a resource without a name', 'resources/list', undefined, { resources: [{ uri: 'file:///a' }] }, 'result.resources[0].name: expected a string, got nothing'],
    ['a template without uriTemplate', 'resources/templates/list', undefined, { resourceTemplates: [{ name: 't' }] }, 'result.resourceTemplates[0].uriTemplate: expected a string, got nothing'],
    ['contents with neither text nor blob', 'resources/read', { uri: 'file:///a' }, { contents: [{ uri: 'file:///a' }] }, 'result.contents[0]: expected a string text or blob, got neither'],
    ['contents without a uri', 'resources/read', { uri: 'file:///a' }, { contents: [{ text: 'a' }] }, 'result.contents[0].uri: expected a string, got nothing'],
    ['more than 100 completions', 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } }, { completion: { values: Array.from({ length: 101 }, String) } }, 'result.completion.values: expected at most 100 items, got 101'],
    ['a non-string completion', 'completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } }, { completion: { values: [1] } }, 'result.completion.values[0]: expected a string, got number 1'],
  ];

  for (const [what, method, params, result, problem] of BROKEN_RESULTS) {
    test(`catches ${what} (${method}) and answers -32603`, async () => {
      const { h, checked } = await linted({ [method]: () => result as Result });
      assert.deepEqual((await h.call(method, params)).error, internalError);
      assert.deepEqual(checked.violations, [{ direction: 'toUpstream', method, problem }]);
      await h.close();
    });
  }

  test('catches a broken initialize result', async () => {
    const initialize = (): Result => ({ protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's' } });
    const { h, problems } = await linted({ initialize }, { initialize: false });
    const response = await h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    assert.deepEqual(response.error, internalError);
    assert.deepEqual(problems(), ['result.serverInfo.version: expected a string, got nothing']);
    await h.close();
  });

  test('catches broken params before they are forwarded', async () => {
    const { h, upstream, problems } = await linted({ 'tools/call': () => ({ content: [] }) }, { initialize: false });
    assert.deepEqual((await h.call('initialize', { protocolVersion: '2025-11-25', capabilities: {} })).error, internalError);
    await h.initialize();
    const calls: Array<[string, JsonObject]> = [
      ['tools/call', { arguments: {} }],
      ['tools/call', { name: 'a', arguments: [] }],
      ['tools/call', { name: 'a', _meta: 'x' }],
      ['prompts/get', { name: 'p', arguments: { x: 1 } }],
      ['resources/read', { uri: 5 }],
      ['completion/complete', { ref: { type: 'ref/tool', name: 'a' }, argument: { name: 'x' } }],
      ['logging/setLevel', { level: 'loud' }],
    ];
    for (const [method, params] of calls) assert.deepEqual((await h.call(method, params)).error, internalError, method);
    assert.deepEqual(problems(), [
      'params.clientInfo: expected an object, got nothing',
      'params.name: expected a string, got nothing',
      'params.arguments: expected an object, got an array',
      'params._meta: expected an object, got the string "x"',
      'params.arguments.x: expected a string, got number 1',
      'params.uri: expected a string, got number 5',
      'params.ref.type: expected "ref/prompt" or "ref/resource", got the string "ref/tool"',
      'params.argument.value: expected a string, got nothing',
      'params.level: expected "debug" or "info" or "notice" or "warning" or "error" or "critical" or "alert" or "emergency", got the string "loud"',
    ]);
    assert.deepEqual(upstream.received.map((m) => m.method), ['initialize', 'notifications/initialized']);
    await h.close();
  });

  test('catches broken client answers to server requests', async () => {
    const { h, upstream, checked } = await linted({});
    h.handle('sampling/createMessage', () => ({ role: 'assistant', content: text }));
    h.handle('elicitation/create', () => ({ action: 'maybe' }));
    h.handle('roots/list', () => ({ roots: [{ uri: 'https://example.com/' }] }));
    await assert.rejects(upstream.ask('sampling/createMessage', { messages: [], maxTokens: 5 }), /^Error: lint: sampling\/createMessage/);
    await assert.rejects(upstream.ask('elicitation/create', { message: 'ok?' }), /lint: elicitation\/create/);
    await assert.rejects(upstream.ask('roots/list'), /lint: roots\/list/);
    assert.deepEqual(checked.violations, [
      { direction: 'toDownstream', method: 'sampling/createMessage', problem: 'result.model: expected a string, got nothing' },
      { direction: 'toDownstream', method: 'elicitation/create', problem: 'result.action: expected "accept" or "decline" or "cancel", got the string "maybe"' },
      { direction: 'toDownstream', method: 'roots/list', problem: 'result.roots[0].uri: expected a string starting with "file://", got the string "https://example.com/"' },
    ]);
    await h.close();
  });

  test('catches broken server notifications, which then do not reach the client', async () => {
    const { h, upstream, problems } = await linted({});
    await assert.rejects(upstream.notify('notifications/progress', { progress: 1 }), /lint: notifications\/progress/);
    await assert.rejects(upstream.notify('notifications/message', { data: 'x' }), /lint: notifications\/message/);
    await assert.rejects(upstream.notify('notifications/resources/updated', {}), /lint/);
    assert.deepEqual(problems(), [
      'params.progressToken: expected a string or a number, got nothing',
      'params.level: expected "debug" or "info" or "notice" or "warning" or "error" or "critical" or "alert" or "emergency", got nothing',
      'params.uri: expected a string, got nothing',
    ]);
    assert.deepEqual(h.notifications(), []);
    await h.close();
  });

  test('catches a method that travels the wrong way or as the wrong kind', async () => {
    const { h, upstream, problems } = await linted({ 'tools/list': () => ({ tools: [] }) });
    await assert.rejects(upstream.ask('tools/call', { name: 'a' }), /lint: tools\/call \(toDownstream\)/);
    assert.deepEqual((await h.call('sampling/createMessage', { messages: [], maxTokens: 1 })).error, internalError);
    h.notify('tools/list');
    await h.request('tools/list');
    assert.deepEqual(problems(), [
      'tools/call travels client→server only, sent server→client',
      'sampling/createMessage travels server→client only, sent client→server',
      'tools/list is a request, sent as a notification',
    ]);
    await h.close();
  });

  test('catches an McpError with a code that is not an integer', async () => {
    const { h, problems } = await linted({
      'tools/call': () => {
        throw new McpError(1.5, 'odd');
      },
    });
    assert.deepEqual((await h.call('tools/call', { name: 'a' })).error, internalError);
    assert.deepEqual(problems(), ['error.code: expected an integer, got 1.5']);
    await h.close();
  });

  test('catches a reply to a notification', async () => {
    const answersEverything: Middleware = async (_ctx, next) => (await next()) ?? {};
    const checked = lint();
    const h = await harness(chain().use(checked, answersEverything).to(scripted({ 'tools/list': () => ({ tools: [] }) })));
    h.notify('notifications/roots/list_changed');
    await h.request('tools/list');
    const problem = 'a notification has no reply, but one was returned';
    assert.deepEqual(checked.violations, [
      { direction: 'toUpstream', method: 'notifications/initialized', problem },
      { direction: 'toUpstream', method: 'notifications/roots/list_changed', problem },
    ]);
    await h.close();
  });

  test("onViolation: 'log' warns on the session log and lets the message pass unchanged", async () => {
    const warnings: Array<[string, LogFields | undefined]> = [];
    const log: Logger = { ...silentLogger, warn: (message, fields) => void warnings.push([message, fields]), child: () => log };
    const broken = { tools: [{ name: 'a' }] };
    const { h, problems } = await linted({ 'tools/list': () => broken }, { log });
    assert.deepEqual(await h.request('tools/list'), broken);
    assert.deepEqual(problems(), ['result.tools[0].inputSchema: expected an object, got nothing']);
    assert.deepEqual(warnings, [
      [
        'lint: the MCP contract was broken',
        { method: 'tools/list', direction: 'toUpstream', problems: ['result.tools[0].inputSchema: expected an object, got nothing'] },
      ],
    ]);
    await h.close();
  });
});

describe('lint: values are not mutated', () => {
  test('a middleware that mutates a reply in place fails, instead of corrupting what is forwarded', async () => {
    const mutator: Middleware = async (ctx, next) => {
      const reply = await next();
      if (ctx.method === 'tools/list' && reply) (reply as { tools: unknown[] }).tools.length = 0;
      return reply;
    };
    const h = await harness(chain(mutator, lint()).to(local({ tools: [{ name: 't', handler: () => ({ content: [] }) }] })));
    assert.deepEqual((await h.call('tools/list')).error, { code: -32603, message: 'Internal error' });
    await h.close();
  });
});

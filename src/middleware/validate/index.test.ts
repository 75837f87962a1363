import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { LogFields, Logger } from '../../log/logger.js';
import { silentLogger } from '../../log/stderr-logger.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local, type LocalTool } from '../../upstream/local.js';
import { scripted, type Handler } from '../_test/scripted.js';
import { validate, type ValidateOptions } from './index.js';

type Schema = JsonObject & { type: 'object' };

/** A tool that answers with the arguments it got (and `structured` as its structured content). */
function echo(name: string, inputSchema: Schema, extra: Partial<LocalTool> = {}, structured?: JsonObject): LocalTool {
  return {
    name,
    inputSchema,
    ...extra,
    handler: (args) => ({
      content: [{ type: 'text', text: JSON.stringify(args) }],
      ...(structured === undefined ? {} : { structuredContent: structured }),
    }),
  };
}

const counter: Schema = {
  type: 'object',
  properties: { count: { type: 'integer', minimum: 0, maximum: 10 }, label: { type: 'string' } },
  required: ['count'],
  additionalProperties: false,
};

function recorder(): Logger & { warnings: Array<[string, LogFields | undefined]> } {
  const warnings: Array<[string, LogFields | undefined]> = [];
  const log: Logger & { warnings: typeof warnings } = { ...silentLogger, warnings, warn: (message, fields) => void warnings.push([message, fields]), child: () => log };
  return log;
}

/** A scripted server whose tools/list answers `tools`, and whose calls answer `call` (recording what reached it). */
function server(tools: () => JsonObject[], call: Handler = (params) => ({ content: [{ type: 'text', text: JSON.stringify(params.arguments) }] })) {
  return scripted({ 'tools/list': () => ({ tools: tools() }), 'tools/call': call });
}

const calls = (upstream: ReturnType<typeof scripted>, method = 'tools/call'): number => upstream.received.filter((m) => m.method === method).length;

/** Most tests check the refusal's shape: as -32602 (`invalidArguments: 'error'`), which carries it in full. */
async function open(tools: LocalTool[], options: ValidateOptions = {}, log?: Logger) {
  return harness(chain().use(validate({ invalidArguments: 'error', ...options })).to(local({ tools })), log ? { log } : {});
}

describe('validate: arguments against inputSchema', () => {
  test('valid arguments reach the tool unchanged', async () => {
    const h = await open([echo('count', counter)]);
    await h.request('tools/list');
    const result = await h.request('tools/call', { name: 'count', arguments: { count: 3, label: 'x' } });
    assert.deepEqual(result.content, [{ type: 'text', text: '{"count":3,"label":"x"}' }]);
    await h.close();
  });

  test('a value out of range is refused with -32602 naming the field and the rule, and never reaches the server', async () => {
    const upstream = server(() => [{ name: 'count', inputSchema: counter }]);
    const h = await harness(chain().use(validate({ invalidArguments: 'error' })).to(upstream));
    await h.request('tools/list');
    const response = await h.call('tools/call', { name: 'count', arguments: { count: 11 } });
    assert.deepEqual(response.error, {
      code: -32602,
      message: 'Invalid params: arguments/count must be <= 10 (maximum)',
      data: {
        tool: 'count',
        errors: [
          {
            path: 'arguments/count',
            keyword: 'maximum',
            message: 'must be <= 10',
            schemaPath: '#/properties/count/maximum',
            params: { comparison: '<=', limit: 10 },
          },
        ],
      },
    });
    assert.equal(calls(upstream), 0);
    await h.close();
  });

  test('a missing required field and an unknown one are named by their paths; absent arguments are {}', async () => {
    const h = await open([echo('count', counter)]);
    await assert.rejects(h.request('tools/call', { name: 'count', arguments: { label: 'x', extra: true } }), {
      code: -32602,
      message: 'Invalid params: arguments/count is required (required); arguments/extra is not allowed (additionalProperties)',
    });
    await assert.rejects(h.request('tools/call', { name: 'count' }), {
      code: -32602,
      message: 'Invalid params: arguments/count is required (required)',
    });
    await h.close();
  });

  test('the message lists at most maxErrors errors (3 by default) and counts the rest; data has them all', async () => {
    const many: Schema = { type: 'object', properties: Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((key) => [key, { type: 'string' }])) };
    const args = { a: 1, b: 2, c: 3, d: 4, e: 5 };
    const h = await open([echo('many', many)]);
    const response = await h.call('tools/call', { name: 'many', arguments: args });
    const error = response.error as { message: string; data: { errors: unknown[] } };
    assert.equal(error.message, 'Invalid params: arguments/a must be string (type); arguments/b must be string (type); arguments/c must be string (type) (and 2 more)');
    assert.equal(error.data.errors.length, 5);
    await h.close();

    const one = await open([echo('many', many)], { maxErrors: 1 });
    await assert.rejects(one.request('tools/call', { name: 'many', arguments: args }), {
      message: 'Invalid params: arguments/a must be string (type) (and 4 more)',
    });
    await one.close();
  });

  test('nested fields are named by their JSON pointer (~1 for a / in a name)', async () => {
    const nested: Schema = {
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'object', properties: { 'a/b': { type: 'number' } } } } },
    };
    const h = await open([echo('nested', nested)]);
    await assert.rejects(h.request('tools/call', { name: 'nested', arguments: { items: [{ 'a/b': 1 }, { 'a/b': 'x' }] } }), {
      message: 'Invalid params: arguments/items/1/a~1b must be number (type)',
    });
    await h.close();
  });

  test('JSON Schema 2020-12 by default: prefixItems, dependentRequired and formats (ajv-formats) apply', async () => {
    const schema: Schema = {
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] }, email: { type: 'string', format: 'email' }, card: { type: 'string' } },
      dependentRequired: { card: ['email'] },
    };
    const h = await open([echo('t', schema)]);
    await assert.rejects(h.request('tools/call', { name: 't', arguments: { pair: ['a', 'b'] } }), { message: 'Invalid params: arguments/pair/1 must be number (type)' });
    await assert.rejects(h.request('tools/call', { name: 't', arguments: { email: 'not an address' } }), {
      message: 'Invalid params: arguments/email must match format "email" (format)',
    });
    await assert.rejects(h.request('tools/call', { name: 't', arguments: { card: '4111' } }), {
      message: 'Invalid params: arguments must have property email when property card is present (dependentRequired)',
    });
    assert.ok(await h.request('tools/call', { name: 't', arguments: { pair: ['a', 1], email: 'a@example.com', card: '4111' } }));
    await h.close();
  });

  test('draft-07 when $schema says so: items as a tuple, and definitions by $ref', async () => {
    const schema: Schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { small: { type: 'integer', maximum: 5 } },
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { $ref: '#/definitions/small' }] } },
    };
    const h = await open([echo('t', schema)]);
    await assert.rejects(h.request('tools/call', { name: 't', arguments: { pair: ['a', 9] } }), { message: 'Invalid params: arguments/pair/1 must be <= 5 (maximum)' });
    assert.ok(await h.request('tools/call', { name: 't', arguments: { pair: ['a', 2] } }));
    await h.close();
  });

  test('by default an invalid call is answered with an isError result the model can read (MCP 2025-11-25, SEP-1303), and never reaches the server', async () => {
    const upstream = server(() => [{ name: 'count', inputSchema: counter }]);
    const h = await harness(chain().use(validate()).to(upstream));
    const result = await h.request('tools/call', { name: 'count', arguments: { count: 11 } });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'Invalid arguments for tool count: arguments/count must be <= 10 (maximum)' }], isError: true });
    assert.equal(calls(upstream), 0);
    await h.close();
  });

  test("invalidArguments: 'result' answers with an isError result (SEP-1303) instead of -32602", async () => {
    const h = await open([echo('count', counter)], { invalidArguments: 'result' });
    const result = await h.request('tools/call', { name: 'count', arguments: { count: -1 } });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'Invalid arguments for tool count: arguments/count must be >= 0 (minimum)' }], isError: true });
    await h.close();
  });

  test('tools.allow and tools.deny choose the tools checked (globs; deny wins); the others pass unchecked', async () => {
    const tools = [echo('db_read', counter), echo('db_drop', counter), echo('fs_read', counter)];
    const h = await open(tools, { tools: { allow: ['db_*'], deny: ['*_drop'] } });
    await assert.rejects(h.request('tools/call', { name: 'db_read', arguments: {} }), { code: -32602 });
    assert.ok(await h.request('tools/call', { name: 'db_drop', arguments: {} }));
    assert.ok(await h.request('tools/call', { name: 'fs_read', arguments: {} }));
    await h.close();
  });

  test('a call to a tool the server does not have gets the server\'s own answer', async () => {
    const h = await open([echo('count', counter)]);
    await assert.rejects(h.request('tools/call', { name: 'nope', arguments: {} }), { code: -32602, message: 'Unknown tool: nope' });
    await h.close();
  });
});

describe('validate: schemas per session, listed once, refreshed', () => {
  test('a call before any tools/list lists the tools once; later calls and unknown names do not list again', async () => {
    const upstream = server(() => [{ name: 'count', inputSchema: counter }]);
    const h = await harness(chain().use(validate({ invalidArguments: 'error' })).to(upstream));
    await Promise.all([
      assert.rejects(h.request('tools/call', { name: 'count', arguments: { count: 99 } }), { code: -32602 }),
      assert.rejects(h.request('tools/call', { name: 'count', arguments: {} }), { code: -32602 }),
    ]);
    assert.ok(await h.request('tools/call', { name: 'count', arguments: { count: 1 } }));
    assert.ok(await h.request('tools/call', { name: 'unlisted', arguments: { anything: true } }));
    assert.equal(calls(upstream, 'tools/list'), 1);
    await h.close();
  });

  test('every page is learned, by the client\'s paging or by the one listing of a call', async () => {
    const page = (cursor: unknown) =>
      cursor === undefined ? { tools: [{ name: 'a', inputSchema: counter }], nextCursor: 'p2' } : { tools: [{ name: 'b', inputSchema: counter }] };
    const upstream = scripted({ 'tools/list': (params) => page(params.cursor), 'tools/call': () => ({ content: [] }) });
    const h = await harness(chain().use(validate({ invalidArguments: 'error' })).to(upstream));
    await assert.rejects(h.request('tools/call', { name: 'b', arguments: {} }), { code: -32602 });
    assert.equal(calls(upstream, 'tools/list'), 2);
    await h.close();
  });

  test('a new tools/list or notifications/tools/list_changed replaces the schemas', async () => {
    let maximum = 10;
    const upstream = server(() => [{ name: 'count', inputSchema: { ...counter, properties: { count: { type: 'integer', maximum } } } }]);
    const h = await harness(chain().use(validate({ invalidArguments: 'error' })).to(upstream));
    await h.request('tools/list');
    await assert.rejects(h.request('tools/call', { name: 'count', arguments: { count: 20 } }), { message: 'Invalid params: arguments/count must be <= 10 (maximum)' });

    maximum = 30;
    await h.request('tools/list');
    assert.ok(await h.request('tools/call', { name: 'count', arguments: { count: 20 } }));

    maximum = 15;
    const changed = h.notification('notifications/tools/list_changed');
    await upstream.notify('notifications/tools/list_changed');
    await changed;
    await assert.rejects(h.request('tools/call', { name: 'count', arguments: { count: 20 } }), { message: 'Invalid params: arguments/count must be <= 15 (maximum)' });
    assert.equal(calls(upstream, 'tools/list'), 3);
    await h.close();
  });

  test('a list_changed while the call lists (a gateway member joining) makes it list again, and the call is checked', async () => {
    let lists = 0;
    const upstream = scripted({
      'tools/list': async () => {
        lists++;
        if (lists === 1) {
          await upstream.notify('notifications/tools/list_changed');
          return { tools: [] };
        }
        return { tools: [{ name: 'count', inputSchema: counter }] };
      },
      'tools/call': () => ({ content: [] }),
    });
    const h = await harness(chain().use(validate({ invalidArguments: 'error' })).to(upstream));
    await assert.rejects(h.request('tools/call', { name: 'count', arguments: { count: 11 } }), {
      message: 'Invalid params: arguments/count must be <= 10 (maximum)',
    });
    assert.equal(lists, 2);
    assert.equal(calls(upstream), 0);
    await h.close();
  });

  test('sessions keep their own schemas: a list_changed in one does not make the other list again', async () => {
    const upstream = server(() => [{ name: 'count', inputSchema: counter }]);
    const shared = chain().use(validate({ invalidArguments: 'error' })).to(upstream);
    const first = await harness(shared);
    const second = await harness(shared);
    await first.request('tools/list');
    await second.request('tools/list');
    await assert.rejects(first.request('tools/call', { name: 'count', arguments: {} }), { code: -32602 });
    await assert.rejects(second.request('tools/call', { name: 'count', arguments: {} }), { code: -32602 });
    assert.equal(calls(upstream, 'tools/list'), 2);
    await first.close();
    await second.close();
  });

  test('other methods pass untouched and list nothing', async () => {
    const upstream = scripted({ 'prompts/list': () => ({ prompts: [] }), 'tools/list': () => ({ tools: [] }) });
    const h = await harness(chain().use(validate({ invalidArguments: 'error' })).to(upstream));
    assert.deepEqual(await h.request('prompts/list'), { prompts: [] });
    assert.equal(calls(upstream, 'tools/list'), 0);
    await h.close();
  });
});

describe('validate: schemas that do not compile', () => {
  const broken: Schema = { type: 'object', properties: { count: { type: 'integr' } } };

  test('are logged once and their calls pass unchecked (the default)', async () => {
    const log = recorder();
    const h = await open([echo('broken', broken)], {}, log);
    assert.ok(await h.request('tools/call', { name: 'broken', arguments: { count: 'x' } }));
    assert.ok(await h.request('tools/call', { name: 'broken', arguments: { count: 'y' } }));
    assert.equal(log.warnings.length, 1);
    assert.equal(log.warnings[0]?.[0], "validate: tool broken's inputSchema does not compile; its calls pass unchecked");
    assert.match(String(log.warnings[0]?.[1]?.reason), /schema is invalid/);
    await h.close();
  });

  test("invalidSchema: 'refuse' refuses their calls with -32603 before they reach the server", async () => {
    const h = await open([echo('broken', broken)], { invalidSchema: 'refuse' }, recorder());
    const response = await h.call('tools/call', { name: 'broken', arguments: {} });
    const error = response.error as { code: number; message: string };
    assert.equal(error.code, -32603);
    assert.match(error.message, /^Tool broken cannot be validated: its inputSchema does not compile: schema is invalid/);
    await h.close();
  });

  test('a $schema other than 2020-12 and draft-07 is not supported', async () => {
    const log = recorder();
    const h = await open([echo('old', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { n: { type: 'number' } } })], {}, log);
    assert.ok(await h.request('tools/call', { name: 'old', arguments: { n: 'x' } }));
    assert.equal(log.warnings[0]?.[1]?.reason, 'unsupported $schema "http://json-schema.org/draft-04/schema#" (2020-12 and draft-07 are)');
    await h.close();
  });

  test('an unknown format is ignored, unless strict: then the schema does not compile', async () => {
    const odd: Schema = { type: 'object', properties: { id: { type: 'string', format: 'acme-id' }, n: { type: 'number' } } };
    const lax = await open([echo('odd', odd)]);
    await assert.rejects(lax.request('tools/call', { name: 'odd', arguments: { id: 'anything', n: 'x' } }), { message: 'Invalid params: arguments/n must be number (type)' });
    assert.ok(await lax.request('tools/call', { name: 'odd', arguments: { id: 'anything' } }));
    await lax.close();

    const strict = await open([echo('odd', odd)], { strict: true, invalidSchema: 'refuse' }, recorder());
    await assert.rejects(strict.request('tools/call', { name: 'odd', arguments: { id: 'x' } }), {
      code: -32603,
      message: 'Tool odd cannot be validated: its inputSchema does not compile: unknown format "acme-id" ignored in schema at path "#/properties/id"',
    });
    await strict.close();
  });
});

describe('validate: structuredContent against outputSchema', () => {
  const outputSchema = { type: 'object' as const, properties: { temperature: { type: 'number' } }, required: ['temperature'] };
  const weather = (structured: JsonObject | undefined, isError?: boolean): LocalTool => ({
    name: 'weather',
    inputSchema: { type: 'object' },
    outputSchema,
    handler: () => ({
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      ...(structured === undefined ? {} : { structuredContent: structured }),
      ...(isError === undefined ? {} : { isError }),
      _meta: { trace: 't1' },
    }),
  });

  test('a result that conforms passes untouched', async () => {
    const h = await open([weather({ temperature: 21.5 })]);
    const result = await h.request('tools/call', { name: 'weather', arguments: {} });
    assert.deepEqual(result, { content: [{ type: 'text', text: '{"temperature":21.5}' }], structuredContent: { temperature: 21.5 }, _meta: { trace: 't1' } });
    await h.close();
  });

  test('structuredContent that breaks the outputSchema becomes an isError result saying where and why', async () => {
    const log = recorder();
    const h = await open([weather({ temperature: 'warm' })], {}, log);
    const result = await h.request('tools/call', { name: 'weather', arguments: {} });
    const text = 'Tool weather returned structuredContent that does not match its outputSchema: structuredContent/temperature must be number (type)';
    assert.deepEqual(result, { content: [{ type: 'text', text }], isError: true, _meta: { trace: 't1' } });
    assert.deepEqual(log.warnings, [[`validate: ${text}`, { tool: 'weather' }]]);
    await h.close();
  });

  test('no structuredContent from a tool that declares an outputSchema is an isError result too', async () => {
    const h = await open([weather(undefined)], {}, recorder());
    const result = await h.request('tools/call', { name: 'weather', arguments: {} });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Tool weather declares an outputSchema but returned no structuredContent' }]);
    assert.equal(result.isError, true);
    await h.close();
  });

  test('a result that is already an error, and every result with output: false, pass as they are', async () => {
    const failed = await open([weather({ temperature: 'n/a' }, true)]);
    assert.deepEqual((await failed.request('tools/call', { name: 'weather', arguments: {} })).structuredContent, { temperature: 'n/a' });
    await failed.close();

    const off = await open([weather({ temperature: 'warm' })], { output: false });
    const result = await off.request('tools/call', { name: 'weather', arguments: {} });
    assert.deepEqual(result.structuredContent, { temperature: 'warm' });
    assert.equal(result.isError, undefined);
    await off.close();
  });
});

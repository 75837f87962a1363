// Smoke test of the conformance upstream fixture (test/fixtures/servers/conformance.ts) over
// stdio with the SDK client. The full contract is measured by scripts/conformance.mjs (the
// official suite over Streamable HTTP); this checks the stdio side a proxy runs it through.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { CreateMessageRequest, ElicitRequest, LoggingMessageNotification, Progress } from '@modelcontextprotocol/sdk/types.js';
import { at, blocks, callTool, droppedProgress, mcpErrorWithCode, only, textOf } from '../helpers/mcp.js';
import { connectClient, fixtureTarget } from '../helpers/targets.js';
import type { Connection } from '../helpers/targets.js';

const T = { timeout: 30_000 };
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// The 2025-11-25 scenarios' tools, and (session-era implementations of) the 2026-07-28 ones that
// the chain's bridge serves to a 2026-07-28 client.
const TOOL_NAMES = [
  'json_schema_2020_12_tool',
  'test_audio_content',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_embedded_resource',
  'test_error_handling',
  'test_header_param',
  'test_image_content',
  'test_input_required_result_capabilities',
  'test_input_required_result_elicitation',
  'test_input_required_result_list_roots',
  'test_input_required_result_multi_round',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_request_state',
  'test_input_required_result_sampling',
  'test_input_required_result_tampered_state',
  'test_logging_tool',
  'test_missing_capability',
  'test_multiple_content_types',
  'test_reconnection',
  'test_sampling',
  'test_simple_text',
  'test_streaming_elicitation',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_trigger_prompt_change',
  'test_trigger_tool_change',
];


describe('conformance fixture over stdio (direct)', () => {
  let conn: Connection;
  const sampling: CreateMessageRequest[] = [];
  const elicitations: ElicitRequest[] = [];

  before(async () => {
    conn = await connectClient(fixtureTarget('conformance'));
    conn.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      sampling.push(request);
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'a sampled answer' } };
    });
    conn.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request);
      return { action: 'accept', content: { username: 'alice', email: 'alice@example.com' } };
    });
  });
  after(async () => {
    const report = await conn?.close();
    assert.equal(report?.escalation, 'none', 'the fixture exits when stdin closes');
  });

  it('initialize: capabilities and instructions', T, () => {
    assert.deepEqual(conn.client.getServerCapabilities(), {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    });
    assert.match(conn.client.getInstructions() ?? '', /^Conformance upstream for mcp-chain\./);
    assert.equal(conn.client.getServerVersion()?.name, 'mcp-chain-conformance-upstream');
  });

  it('tools/list: every tool, each with a description and an inputSchema; 2020-12 schema verbatim', T, async () => {
    const { tools } = await conn.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
    for (const tool of tools) {
      assert.ok(tool.description, `${tool.name} has a description`);
      assert.equal(tool.inputSchema.type, 'object', `${tool.name} has an object inputSchema`);
    }
    const schema = only(tools.filter((t) => t.name === 'json_schema_2020_12_tool')).inputSchema;
    assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(schema['additionalProperties'], false);
    assert.deepEqual(schema.properties?.['address'], { $ref: '#/$defs/address' });
  });

  it('text, image, audio, embedded resource and mixed content', T, async () => {
    const simple = await callTool(conn.client, { name: 'test_simple_text' });
    assert.equal(textOf(simple), 'This is a simple text response for testing.');

    const image = only(blocks(await callTool(conn.client, { name: 'test_image_content' }), 'image'));
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(image.data, 'base64').subarray(0, 8), PNG_SIGNATURE);

    const audio = only(blocks(await callTool(conn.client, { name: 'test_audio_content' }), 'audio'));
    assert.equal(audio.mimeType, 'audio/wav');
    assert.equal(Buffer.from(audio.data, 'base64').subarray(0, 4).toString('ascii'), 'RIFF');

    const embedded = only(blocks(await callTool(conn.client, { name: 'test_embedded_resource' }), 'resource'));
    assert.deepEqual(embedded.resource, {
      uri: 'test://embedded-resource',
      mimeType: 'text/plain',
      text: 'This is an embedded resource content.',
    });

    const mixed = await callTool(conn.client, { name: 'test_multiple_content_types' });
    assert.deepEqual(
      mixed.content.map((b) => b.type),
      ['text', 'image', 'resource'],
    );
    const mixedResource = only(blocks(mixed, 'resource')).resource;
    assert.ok('text' in mixedResource);
    assert.equal(mixedResource.text, '{"test":"data","value":123}');
  });

  it('test_error_handling: a tool error, not a JSON-RPC error; unknown tool: -32602', T, async () => {
    const result = await callTool(conn.client, { name: 'test_error_handling' });
    assert.equal(result.isError, true);
    assert.equal(textOf(result), 'This tool intentionally returns an error for testing');
    await assert.rejects(callTool(conn.client, { name: 'no_such_tool' }), mcpErrorWithCode(ErrorCode.InvalidParams));
  });

  it('test_tool_with_progress: 0, 50, 100 of 100 before the result', T, async () => {
    const progress: Progress[] = [];
    const errorMark = conn.errors.length;
    const result = await callTool(conn.client, { name: 'test_tool_with_progress' }, { onprogress: (p) => progress.push(p) });
    assert.equal(textOf(result), 'Tool with progress completed');
    for (const p of progress) assert.equal(p.total, 100);
    // SDK client race: a progress notification read in the same chunk as the response is
    // dispatched after the response removed the progress handler and is reported through
    // onerror as "unknown token". Between the two, every step must have arrived, in order.
    assert.deepEqual([...progress.map((p) => p.progress), ...droppedProgress(conn.errors.slice(errorMark))], [0, 50, 100]);
  });

  it('test_tool_with_logging: three info logs, filtered by logging/setLevel', T, async () => {
    const logs = (): string[] =>
      conn.notifications
        .filter((n): n is LoggingMessageNotification => n.method === 'notifications/message')
        .map((n) => String(n.params.data));
    await conn.client.setLoggingLevel('debug');
    const mark = logs().length;
    await callTool(conn.client, { name: 'test_tool_with_logging' });
    await conn.waitForNotification('notifications/message', (n) => n.params?.['data'] === 'Tool execution completed');
    assert.deepEqual(logs().slice(mark), ['Tool execution started', 'Tool processing data', 'Tool execution completed']);

    await conn.client.setLoggingLevel('warning');
    await callTool(conn.client, { name: 'test_tool_with_logging' });
    await conn.client.ping(); // anything sent before the result has been handled by now
    assert.equal(logs().length, mark + 3, 'info logs are dropped at level warning');
    await conn.client.setLoggingLevel('debug');
  });

  it('test_sampling and test_elicitation ask the client and report its answer', T, async () => {
    const sampled = await callTool(conn.client, { name: 'test_sampling', arguments: { prompt: 'Say hi' } });
    assert.equal(textOf(sampled), 'LLM response: a sampled answer');
    const request = only(sampling, 'sampling request');
    assert.equal(request.params.maxTokens, 100);
    assert.deepEqual(request.params.messages, [{ role: 'user', content: { type: 'text', text: 'Say hi' } }]);

    const elicited = await callTool(conn.client, { name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    assert.equal(textOf(elicited), 'User response: action=accept, content={"username":"alice","email":"alice@example.com"}');
    const params = only(elicitations, 'elicitation request').params;
    assert.equal(params.message, 'Who are you?');
    assert.ok('requestedSchema' in params);
    assert.deepEqual(params.requestedSchema.required, ['username', 'email']);
  });

  it('prompts: list, simple, with arguments, embedded resource, image', T, async () => {
    const { prompts } = await conn.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), [
      'test_input_required_result_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_simple_prompt',
    ]);
    for (const prompt of prompts) assert.ok(prompt.description, `${prompt.name} has a description`);

    const simple = await conn.client.getPrompt({ name: 'test_simple_prompt' });
    assert.deepEqual(simple.messages, [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);

    const withArgs = await conn.client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } });
    assert.deepEqual(at(withArgs.messages, 0).content, {
      type: 'text',
      text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'",
    });

    const embedded = await conn.client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://example' },
    });
    assert.deepEqual(at(embedded.messages, 0).content, {
      type: 'resource',
      resource: { uri: 'test://example', mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
    });

    const image = await conn.client.getPrompt({ name: 'test_prompt_with_image' });
    const first = at(image.messages, 0).content;
    assert.equal(first.type, 'image');
    assert.equal(first.type === 'image' ? first.mimeType : undefined, 'image/png');

    await assert.rejects(conn.client.getPrompt({ name: 'no_such_prompt' }), mcpErrorWithCode(ErrorCode.InvalidParams));
  });

  it('resources: list, templates, read text/binary/template, not found -32002', T, async () => {
    const { resources } = await conn.client.listResources();
    assert.deepEqual(
      resources.map((r) => r.uri),
      ['test://static-text', 'test://static-binary', 'test://watched-resource', 'test://input-required-resource'],
    );
    const { resourceTemplates } = await conn.client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      ['test://template/{id}/data'],
    );

    const textRead = await conn.client.readResource({ uri: 'test://static-text' });
    assert.deepEqual(textRead.contents, [
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
    const binary = only(
      (await conn.client.readResource({ uri: 'test://static-binary' })).contents,
      'binary contents',
    );
    assert.equal(binary.mimeType, 'image/png');
    assert.ok('blob' in binary);
    assert.deepEqual(Buffer.from(binary.blob, 'base64').subarray(0, 8), PNG_SIGNATURE);

    const templated = only((await conn.client.readResource({ uri: 'test://template/123/data' })).contents, 'template contents');
    assert.ok('text' in templated);
    assert.deepEqual(JSON.parse(templated.text), { id: '123', templateTest: true, data: 'Data for ID: 123' });

    await assert.rejects(conn.client.readResource({ uri: 'test://nope' }), mcpErrorWithCode(-32002));
  });

  it('resources/subscribe: {} and then notifications/resources/updated; unsubscribe: {}', T, async () => {
    const updated = conn.waitForNotification('notifications/resources/updated');
    assert.deepEqual(await conn.client.subscribeResource({ uri: 'test://watched-resource' }), {});
    assert.deepEqual((await updated).params, { uri: 'test://watched-resource' });
    assert.deepEqual(await conn.client.unsubscribeResource({ uri: 'test://watched-resource' }), {});
    const read = only((await conn.client.readResource({ uri: 'test://watched-resource' })).contents);
    assert.ok('text' in read);
    assert.equal(read.text, 'Watched resource, revision 1');
  });

  it('completion/complete filters by prefix; ping answers {}', T, async () => {
    const { completion } = await conn.client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'test' },
    });
    assert.deepEqual(completion, { values: ['test', 'test-value-1', 'testing'], total: 3, hasMore: false });
    const other = await conn.client.complete({ ref: { type: 'ref/prompt', name: 'test_simple_prompt' }, argument: { name: 'x', value: '' } });
    assert.deepEqual(other.completion.values, []);
    assert.deepEqual(await conn.client.ping(), {});
  });

  it('test_reconnection over stdio returns a plain result', T, async () => {
    const result = await callTool(conn.client, { name: 'test_reconnection' });
    assert.notEqual(result.isError, true);
    assert.match(textOf(result), /^Reconnection test completed/);
  });
});

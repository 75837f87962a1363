// End-to-end suite against @modelcontextprotocol/server-everything, parameterised by target
// (see test/helpers/targets.ts). Every test asserts what the client actually received.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { CreateMessageRequest, ElicitRequest, LoggingLevel, Progress } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_ROOT, withTimeout } from '../helpers/client.js';
import { at, blocks, callTool, droppedProgress, mcpErrorWithCode, only, textOf } from '../helpers/mcp.js';
import { connectClient, ENV_MARKER, everythingEntry, everythingTargets } from '../helpers/targets.js';
import type { Connection, ConnectOptions, Target } from '../helpers/targets.js';

const T = { timeout: 30_000 };
const EVENT_TIMEOUT = 20_000;
const DOCS_DIR = join(dirname(everythingEntry()), 'docs');
const STATIC_DOCS = [
  'architecture.md',
  'extension.md',
  'features.md',
  'how-it-works.md',
  'instructions.md',
  'startup.md',
  'structure.md',
];
const LOG_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * server-everything asks the client for roots/list ~350 ms after initialization and then
 * logs "Roots updated: N root(s) received from client". Waiting for that log makes the
 * connection quiescent: no server->client request is left pending (a pending one would keep
 * the server alive for the request's 60 s timeout after stdin closes).
 */
async function connectEverything(target: Target, opts: ConnectOptions = {}): Promise<Connection> {
  const conn = await connectClient(target, opts);
  try {
    await conn.waitForNotification('notifications/message', (n) => /^Roots updated: /.test(logData(n.params)), EVENT_TIMEOUT);
  } catch (e) {
    await conn.close();
    throw e;
  }
  return conn;
}

function logData(params: unknown): string {
  if (typeof params !== 'object' || params === null) return '';
  const data: unknown = Reflect.get(params, 'data');
  return typeof data === 'string' ? data : JSON.stringify(data);
}

function paramString(params: unknown, key: string): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const v: unknown = Reflect.get(params, key);
  return typeof v === 'string' ? v : undefined;
}


/** Notifications of `method` received after index `since` of conn.notifications. */
function since(conn: Connection, index: number, method: string): readonly unknown[] {
  return conn.notifications.slice(index).filter((n) => n.method === method).map((n) => n.params);
}

for (const target of everythingTargets()) {
  describe(`server-everything via ${target.name}`, () => {
    let conn: Connection;

    before(async () => {
      conn = await connectEverything(target);
    });
    after(async () => {
      await conn?.close();
    });

    describe('lifecycle', () => {
      it('initialize: server info, instructions and capabilities reach the client', T, () => {
        const info = conn.client.getServerVersion();
        assert.equal(info?.name, 'mcp-servers/everything');
        assert.equal(info?.version, '2.0.0');
        assert.equal(conn.client.getInstructions(), readFileSync(join(DOCS_DIR, 'instructions.md'), 'utf8'));
        const caps = conn.client.getServerCapabilities();
        assert.deepEqual(caps?.tools, { listChanged: true });
        assert.deepEqual(caps?.prompts, { listChanged: true });
        assert.deepEqual(caps?.resources, { subscribe: true, listChanged: true });
        assert.deepEqual(caps?.logging, {});
        assert.deepEqual(caps?.completions, {});
      });

      it('ping', T, async () => {
        assert.deepEqual(await conn.client.ping(), {});
      });

      it('server->client roots/list happened at startup and was logged back', T, async () => {
        const n = await conn.waitForNotification('notifications/message', (m) => /^Roots updated/.test(logData(m.params)));
        assert.deepEqual(n.params, {
          level: 'info',
          logger: 'everything-server',
          data: 'Roots updated: 1 root(s) received from client',
        });
      });

      it(target.http ? 'the client ends its session; SIGTERM then stops the HTTP server cleanly' : 'closing stdin makes the server exit without signals', T, async () => {
        if (target.http) {
          const c = await connectEverything(target);
          const report = await c.close();
          assert.equal(report.escalation, 'SIGTERM', `needed ${report.escalation}; stderr:\n${c.stderrTail()}`);
          assert.equal(report.exitCode, 0);
          assert.deepEqual(await c.close(), report);
          return;
        }
        const c = await connectEverything(target);
        assert.equal(c.hasExited(), false);
        const report = await c.close();
        assert.equal(report.escalation, 'none', `needed ${report.escalation}; stderr:\n${c.stderrTail()}`);
        assert.equal(report.exitCode, 0);
        assert.equal(c.hasExited(), true);
        // idempotent
        assert.deepEqual(await c.close(), report);
      });
    });

    describe('tools', () => {
      it('tools/list: expected tools with input schemas (incl. capability-conditional ones)', T, async () => {
        const tools = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await conn.client.listTools(cursor === undefined ? {} : { cursor });
          tools.push(...page.tools);
          cursor = page.nextCursor;
          pages++;
        } while (cursor !== undefined && pages < 20);
        const byName = new Map(tools.map((t) => [t.name, t]));
        for (const name of [
          'echo',
          'get-annotated-message',
          'get-env',
          'get-resource-links',
          'get-resource-reference',
          'get-structured-content',
          'get-sum',
          'get-tiny-image',
          'gzip-file-as-resource',
          'toggle-simulated-logging',
          'toggle-subscriber-updates',
          'trigger-long-running-operation',
          // registered after initialize, only because the client advertised roots/elicitation/sampling:
          'get-roots-list',
          'trigger-elicitation-request',
          'trigger-sampling-request',
        ]) {
          const tool = byName.get(name);
          assert.ok(tool, `missing tool ${name}; have ${[...byName.keys()].join(', ')}`);
          assert.equal(tool.inputSchema.type, 'object', `${name}.inputSchema.type`);
        }
        // needs elicitation.url, which this client does not advertise
        assert.equal(byName.has('trigger-url-elicitation'), false);

        const echo = byName.get('echo');
        assert.equal(echo?.title, 'Echo Tool');
        assert.deepEqual(echo?.inputSchema.required, ['message']);
        assert.deepEqual(echo?.inputSchema.properties?.['message'], { type: 'string', description: 'Message to echo' });
        assert.deepEqual(echo?.annotations, {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        });
        const sum = byName.get('get-sum');
        assert.deepEqual(Object.keys(sum?.inputSchema.properties ?? {}).sort(), ['a', 'b']);
        const structured = byName.get('get-structured-content');
        assert.equal(structured?.outputSchema?.type, 'object');
        assert.deepEqual(Object.keys(structured?.outputSchema?.properties ?? {}).sort(), [
          'conditions',
          'humidity',
          'temperature',
        ]);
      });

      it('tools/list_changed sent right after initialize reached the client', T, async () => {
        // server-everything registers the capability-conditional tools in oninitialized,
        // and McpServer emits notifications/tools/list_changed for each registration.
        const n = await conn.waitForNotification('notifications/tools/list_changed');
        assert.equal(n.method, 'notifications/tools/list_changed');
        assert.ok(since(conn, 0, 'notifications/tools/list_changed').length >= 1);
      });

      it('echo: text content round-trips exactly (unicode, quotes, newlines)', T, async () => {
        const message = 'hello 🌍 "quoted" \\ back\nslash\ttab — ünïcødé \u2028 sep';
        const result = await callTool(conn.client, { name: 'echo', arguments: { message } });
        assert.deepEqual(result.content, [{ type: 'text', text: `Echo: ${message}` }]);
        assert.notEqual(result.isError, true);
      });

      it('echo: a 1 MiB argument round-trips, multi-byte characters and escapes included', T, async () => {
        // Both ways through the proxy's raw forwarding (params and result kept as the bytes read).
        const message = 'é✓ "q" \\ 🌍\n'.repeat(1024 * 64) + 'THE-END';
        const result = await callTool(conn.client, { name: 'echo', arguments: { message } });
        const text = only(blocks(result, 'text')).text;
        assert.equal(text.length, 'Echo: '.length + message.length);
        assert.equal(text, `Echo: ${message}`);
      });

      it('20 concurrent calls each get their own answer', T, async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => callTool(conn.client, { name: 'get-sum', arguments: { a: i, b: 1000 } })),
        );
        results.forEach((r, i) => assert.equal(textOf(r), `The sum of ${i} and 1000 is ${i + 1000}.`));
      });

      it('get-sum: numeric arguments', T, async () => {
        const result = await callTool(conn.client, { name: 'get-sum', arguments: { a: 2.5, b: -7 } });
        assert.deepEqual(result.content, [{ type: 'text', text: 'The sum of 2.5 and -7 is -4.5.' }]);
      });

      it('get-tiny-image: image content with mimeType and base64 PNG data', T, async () => {
        const result = await callTool(conn.client, { name: 'get-tiny-image', arguments: {} });
        assert.deepEqual(
          result.content.map((b) => b.type),
          ['text', 'image', 'text'],
        );
        const image = only(blocks(result, 'image'));
        assert.equal(image.mimeType, 'image/png');
        const bytes = Buffer.from(image.data, 'base64');
        assert.equal(bytes.toString('base64'), image.data, 'data is canonical base64');
        assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE);
        assert.equal(bytes.readUInt32BE(16), 20, 'PNG width');
        assert.equal(bytes.readUInt32BE(20), 20, 'PNG height');
        assert.equal(textOf(result), "Here's the image you requested:\nThe image above is the MCP logo.");
      });

      it('get-annotated-message: content annotations survive', T, async () => {
        const result = await callTool(conn.client, {
          name: 'get-annotated-message',
          arguments: { messageType: 'error', includeImage: true },
        });
        const [text, image] = result.content;
        assert.deepEqual(text, {
          type: 'text',
          text: 'Error: Operation failed',
          annotations: { priority: 1, audience: ['user', 'assistant'] },
        });
        assert.equal(image?.type, 'image');
        assert.deepEqual(image?.annotations, { priority: 0.5, audience: ['user'] });
      });

      it('get-structured-content: structuredContent matching the outputSchema', T, async () => {
        const result = await callTool(conn.client, { name: 'get-structured-content', arguments: { location: 'Chicago' } });
        const expected = { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 };
        assert.deepEqual(result.structuredContent, expected);
        assert.deepEqual(JSON.parse(only(blocks(result, 'text')).text), expected);
      });

      it('get-resource-reference: embedded text and blob resources', T, async () => {
        const textResult = await callTool(conn.client, {
          name: 'get-resource-reference',
          arguments: { resourceType: 'Text', resourceId: 3 },
        });
        assert.deepEqual(
          textResult.content.map((b) => b.type),
          ['text', 'resource', 'text'],
        );
        const textRes = only(blocks(textResult, 'resource')).resource;
        assert.equal(textRes.uri, 'demo://resource/dynamic/text/3');
        assert.equal(textRes.mimeType, 'text/plain');
        assert.ok('text' in textRes, 'text resource has text');
        assert.match(textRes.text, /^Resource 3: This is a plaintext resource created at /);

        const blobResult = await callTool(conn.client, {
          name: 'get-resource-reference',
          arguments: { resourceType: 'Blob', resourceId: 4 },
        });
        const blobRes = only(blocks(blobResult, 'resource')).resource;
        assert.equal(blobRes.uri, 'demo://resource/dynamic/blob/4');
        assert.ok('blob' in blobRes, 'blob resource has blob');
        assert.match(Buffer.from(blobRes.blob, 'base64').toString('utf8'), /^Resource 4: This is a base64 blob created at /);
        assert.equal(textOf(blobResult), 'Returning resource reference for Resource 4:\nYou can access this resource using the URI: demo://resource/dynamic/blob/4');
      });

      it('get-resource-links: resource_link content, and the links resolve', T, async () => {
        const result = await callTool(conn.client, { name: 'get-resource-links', arguments: { count: 4 } });
        assert.equal(textOf(result), 'Here are 4 resource links to resources available in this server:');
        const links = blocks(result, 'resource_link');
        // server-everything alternates: odd ids are blobs, even ids are text
        assert.deepEqual(
          links.map((l) => [l.uri, l.name, l.mimeType]),
          [
            ['demo://resource/dynamic/blob/1', 'Blob Resource 1', 'text/plain'],
            ['demo://resource/dynamic/text/2', 'Text Resource 2', 'text/plain'],
            ['demo://resource/dynamic/blob/3', 'Blob Resource 3', 'text/plain'],
            ['demo://resource/dynamic/text/4', 'Text Resource 4', 'text/plain'],
          ],
        );
        assert.equal(at(links, 1).description, 'Resource 2: plaintext resource');
        const read = await conn.client.readResource({ uri: at(links, 1).uri });
        const content = only(read.contents);
        assert.ok('text' in content);
        assert.match(content.text, /^Resource 2: This is a plaintext resource/);
      });

      it('get-env: the environment given to the target reaches the server', T, async () => {
        const result = await callTool(conn.client, { name: 'get-env', arguments: {} });
        const env: unknown = JSON.parse(textOf(result));
        assert.equal(typeof env === 'object' && env !== null && Reflect.get(env, 'MCP_CHAIN_E2E_MARKER'), ENV_MARKER);
      });

      it('isError results: handler failure, input validation, unknown tool', T, async () => {
        const bad = await callTool(conn.client, {
          name: 'get-resource-reference',
          arguments: { resourceType: 'Text', resourceId: 0 },
        });
        assert.equal(bad.isError, true);
        assert.deepEqual(bad.content, [{ type: 'text', text: 'Invalid resourceId: 0. Must be a finite positive integer.' }]);

        // McpServer turns input-validation McpErrors into isError results (not JSON-RPC errors)
        const invalid = await callTool(conn.client, { name: 'get-sum', arguments: { a: 'one' } });
        assert.equal(invalid.isError, true);
        assert.match(textOf(invalid), /^MCP error -32602: Input validation error: Invalid arguments for tool get-sum/);

        const unknown = await callTool(conn.client, { name: 'no-such-tool', arguments: {} });
        assert.equal(unknown.isError, true);
        assert.equal(textOf(unknown), 'MCP error -32602: Tool no-such-tool not found');
      });

      it('JSON-RPC errors keep their code: -32602 invalid params, -32601 method not found', T, async () => {
        await assert.rejects(
          conn.client.readResource({ uri: 'demo://no/such/resource' }),
          mcpErrorWithCode(ErrorCode.InvalidParams, 'Resource demo://no/such/resource not found'),
        );
        await assert.rejects(
          conn.client.getPrompt({ name: 'no-such-prompt' }),
          mcpErrorWithCode(ErrorCode.InvalidParams, 'Prompt no-such-prompt not found'),
        );
        await assert.rejects(
          conn.client.getPrompt({ name: 'args-prompt', arguments: {} }),
          mcpErrorWithCode(ErrorCode.InvalidParams, 'Invalid arguments for prompt args-prompt'),
        );
        await assert.rejects(
          conn.client.request({ method: 'mcp-chain/no-such-method', params: {} }, EmptyResultSchema),
          mcpErrorWithCode(ErrorCode.MethodNotFound),
        );
        // the connection is fine afterwards
        assert.deepEqual(await conn.client.ping(), {});
      });
    });

    describe('prompts', () => {
      it('prompts/list: names and argument metadata', T, async () => {
        const { prompts, nextCursor } = await conn.client.listPrompts();
        assert.equal(nextCursor, undefined);
        assert.deepEqual(
          prompts.map((p) => p.name),
          ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt'],
        );
        const args = prompts.find((p) => p.name === 'args-prompt');
        assert.deepEqual(args?.arguments, [
          { name: 'city', description: 'Name of the city', required: true },
          { name: 'state', required: false },
        ]);
      });

      it('prompts/get with arguments: values appear in the messages', T, async () => {
        const result = await conn.client.getPrompt({
          name: 'args-prompt',
          arguments: { city: 'Springfield', state: 'Oregon' },
        });
        assert.deepEqual(result.messages, [
          { role: 'user', content: { type: 'text', text: "What's weather in Springfield, Oregon?" } },
        ]);
        const simple = await conn.client.getPrompt({ name: 'simple-prompt' });
        assert.deepEqual(simple.messages, [
          { role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } },
        ]);
      });

      it('prompts/get returning an embedded resource', T, async () => {
        const result = await conn.client.getPrompt({
          name: 'resource-prompt',
          arguments: { resourceType: 'Blob', resourceId: '5' },
        });
        assert.equal(result.messages.length, 2);
        assert.deepEqual(at(result.messages, 0).content, {
          type: 'text',
          text: 'This prompt includes the Blob resource with id: 5. Please analyze the following resource:',
        });
        const second = at(result.messages, 1).content;
        assert.equal(second.type, 'resource');
        assert.ok(second.type === 'resource' && 'blob' in second.resource);
        assert.equal(second.resource.uri, 'demo://resource/dynamic/blob/5');
        assert.match(Buffer.from(second.resource.blob, 'base64').toString('utf8'), /^Resource 5: This is a base64 blob/);
      });
    });

    describe('resources', () => {
      it('resources/list (following nextCursor while offered): the static documents', T, async () => {
        const resources = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await conn.client.listResources(cursor === undefined ? {} : { cursor });
          resources.push(...page.resources);
          cursor = page.nextCursor;
          pages++;
        } while (cursor !== undefined && pages < 50);
        assert.equal(cursor, undefined, 'pagination terminates');
        const docs = resources.filter((r) => r.uri.startsWith('demo://resource/static/document/'));
        assert.deepEqual(
          docs.map((r) => r.uri).sort(),
          STATIC_DOCS.map((f) => `demo://resource/static/document/${f}`),
        );
        for (const d of docs) {
          assert.equal(d.mimeType, 'text/markdown');
          assert.equal(d.description, `Static document file exposed from /docs: ${d.name}`);
        }
      });

      it('resources/read: text resource equals the file on disk', T, async () => {
        const uri = 'demo://resource/static/document/features.md';
        const { contents } = await conn.client.readResource({ uri });
        const c = only(contents);
        assert.equal(c.uri, uri);
        assert.equal(c.mimeType, 'text/markdown');
        assert.ok('text' in c);
        assert.equal(c.text, readFileSync(join(DOCS_DIR, 'features.md'), 'utf8'));
      });

      it('resources/read: blob resource from a template', T, async () => {
        const uri = 'demo://resource/dynamic/blob/9';
        const { contents } = await conn.client.readResource({ uri });
        const c = only(contents);
        assert.equal(c.uri, uri);
        assert.ok('blob' in c);
        assert.match(Buffer.from(c.blob, 'base64').toString('utf8'), /^Resource 9: This is a base64 blob created at /);
      });

      it('resources/templates/list', T, async () => {
        const { resourceTemplates } = await conn.client.listResourceTemplates();
        assert.deepEqual(
          resourceTemplates.map((t) => [t.name, t.uriTemplate, t.mimeType]),
          [
            ['Dynamic Text Resource', 'demo://resource/dynamic/text/{resourceId}', 'text/plain'],
            ['Dynamic Blob Resource', 'demo://resource/dynamic/blob/{resourceId}', 'application/octet-stream'],
          ],
        );
      });

      it('resources/list_changed after a tool registers a session resource; it is listed and readable', T, async () => {
        const mark = conn.notifications.length;
        const name = `e2e-${Date.now()}.txt.gz`;
        const payload = `gzip me ${'🙂'.repeat(10)} please`;
        const listChanged = conn.waitForNotification(
          'notifications/resources/list_changed',
          (n) => conn.notifications.indexOf(n) >= mark,
        );
        const result = await callTool(conn.client, {
          name: 'gzip-file-as-resource',
          arguments: { name, data: `data:text/plain;base64,${Buffer.from(payload).toString('base64')}` },
        });
        await listChanged;
        const link = only(blocks(result, 'resource_link'));
        assert.equal(link.uri, `demo://resource/session/${name}`);
        assert.equal(link.mimeType, 'application/gzip');

        const { resources } = await conn.client.listResources();
        assert.ok(resources.some((r) => r.uri === link.uri), 'session resource is listed');
        const c = only((await conn.client.readResource({ uri: link.uri })).contents);
        assert.ok('blob' in c);
        assert.equal(gunzipSync(Buffer.from(c.blob, 'base64')).toString('utf8'), payload);
      });
    });

    describe('completions', () => {
      it('completion/complete for prompt arguments (with context) and a resource template variable', T, async () => {
        const dept = await conn.client.complete({
          ref: { type: 'ref/prompt', name: 'completable-prompt' },
          argument: { name: 'department', value: 'E' },
        });
        assert.deepEqual(dept.completion.values, ['Engineering']);

        const names = await conn.client.complete({
          ref: { type: 'ref/prompt', name: 'completable-prompt' },
          argument: { name: 'name', value: '' },
          context: { arguments: { department: 'Sales' } },
        });
        assert.deepEqual(names.completion, { values: ['David', 'Eve', 'Frank'], total: 3, hasMore: false });

        const type = await conn.client.complete({
          ref: { type: 'ref/prompt', name: 'resource-prompt' },
          argument: { name: 'resourceType', value: 'B' },
        });
        assert.deepEqual(type.completion.values, ['Blob']);

        const id = await conn.client.complete({
          ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
          argument: { name: 'resourceId', value: '7' },
        });
        assert.deepEqual(id.completion.values, ['7']);
        const none = await conn.client.complete({
          ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
          argument: { name: 'resourceId', value: 'x' },
        });
        assert.deepEqual(none.completion.values, []);
      });
    });

    describe('server -> client requests', () => {
      it('sampling/createMessage answered by the client; the tool returns our text', T, async () => {
        const reply = `sampled-${Math.random().toString(36).slice(2)}`;
        const seen: CreateMessageRequest['params'][] = [];
        conn.client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
          seen.push(req.params);
          return { model: 'e2e-model', role: 'assistant', stopReason: 'endTurn', content: { type: 'text', text: reply } };
        });
        try {
          const result = await callTool(conn.client, {
            name: 'trigger-sampling-request',
            arguments: { prompt: 'Say something nice', maxTokens: 42 },
          });
          const seenParams = only(seen, 'sampling request');
          assert.deepEqual(seenParams.messages, [
            { role: 'user', content: { type: 'text', text: 'Resource trigger-sampling-request context: Say something nice' } },
          ]);
          assert.equal(seenParams.systemPrompt, 'You are a helpful test server.');
          assert.equal(seenParams.maxTokens, 42);
          const text = textOf(result);
          assert.ok(text.startsWith('LLM sampling result: \n'), text);
          const echoed: unknown = JSON.parse(text.slice('LLM sampling result: \n'.length));
          assert.deepEqual(echoed, {
            model: 'e2e-model',
            role: 'assistant',
            stopReason: 'endTurn',
            content: { type: 'text', text: reply },
          });
        } finally {
          conn.client.removeRequestHandler('sampling/createMessage');
        }
      });

      it('elicitation/create (form) accepted by the client; the tool reflects the content', T, async () => {
        const seen: ElicitRequest['params'][] = [];
        conn.client.setRequestHandler(ElicitRequestSchema, async (req) => {
          seen.push(req.params);
          return {
            action: 'accept',
            content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 7 },
          };
        });
        try {
          const result = await callTool(conn.client, { name: 'trigger-elicitation-request', arguments: {} });
          const params = only(seen, 'elicitation request');
          assert.equal(params.message, 'Please provide inputs for the following fields:');
          assert.ok('requestedSchema' in params);
          assert.deepEqual(params.requestedSchema.required, ['name']);
          assert.equal(params.requestedSchema.properties['email']?.type, 'string');
          const [first, second] = blocks(result, 'text');
          assert.equal(first?.text, '✅ User provided the requested information!');
          assert.equal(
            second?.text,
            'User inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Email: ada@example.com\n- Favorite Integer: 7',
          );
        } finally {
          conn.client.removeRequestHandler('elicitation/create');
        }
      });

      it('elicitation/create declined by the client', T, async () => {
        conn.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
        try {
          const result = await callTool(conn.client, { name: 'trigger-elicitation-request', arguments: {} });
          assert.equal(at(blocks(result, 'text'), 0).text, '❌ User declined to provide the requested information.');
        } finally {
          conn.client.removeRequestHandler('elicitation/create');
        }
      });

      it('roots/list answered by the client; roots/list_changed makes the server re-fetch', T, async () => {
        const c = await connectEverything(target);
        try {
          const first = await callTool(c.client, { name: 'get-roots-list', arguments: {} });
          assert.match(textOf(first), /^Current MCP Roots \(1 total\):/);
          assert.ok(textOf(first).includes(`1. ${DEFAULT_ROOT.name}\n   URI: ${DEFAULT_ROOT.uri}`), textOf(first));

          const extra = { uri: 'file:///tmp/mcp-chain-e2e-second-root', name: 'second' };
          const refetched = c.waitForNotification('notifications/message', (n) =>
            logData(n.params).startsWith('Roots updated: 2 root(s)'),
          );
          await c.setRoots([DEFAULT_ROOT, extra]);
          await refetched;
          const second = textOf(await callTool(c.client, { name: 'get-roots-list', arguments: {} }));
          assert.match(second, /^Current MCP Roots \(2 total\):/);
          assert.ok(second.includes(`2. second\n   URI: ${extra.uri}`), second);
        } finally {
          await c.close();
        }
      });
    });

    describe('notifications and flow control', () => {
      it('logging/setLevel + notifications/message from simulated logging', T, async () => {
        const c = await connectEverything(target);
        try {
          await c.client.setLoggingLevel('debug');
          const mark = c.notifications.length;
          const log = c.waitForNotification('notifications/message', (n) => c.notifications.indexOf(n) >= mark);
          const started = await callTool(c.client, { name: 'toggle-simulated-logging', arguments: {} });
          assert.match(textOf(started), /^Started simulated, random-leveled logging/);
          const n = await log;
          const level = paramString(n.params, 'level');
          assert.ok(level !== undefined && (LOG_LEVELS as readonly string[]).includes(level), `level ${level}`);
          // e.g. "Info-level message", "Alert level-message" (sic)
          assert.match(logData(n.params), /^[A-Z][a-z]+[- ]level[- ]message/);
          const stopped = await callTool(c.client, { name: 'toggle-simulated-logging', arguments: {} });
          assert.match(textOf(stopped), /^Stopped simulated logging/);
        } finally {
          await c.close();
        }
      });

      it('logging/setLevel filters: info suppressed at warning, delivered at info', T, async () => {
        // resources/subscribe makes server-everything log at info level before it responds.
        const c = await connectEverything(target);
        try {
          const quiet = 'demo://resource/dynamic/text/101';
          const loud = 'demo://resource/dynamic/text/102';
          await c.client.setLoggingLevel('warning');
          await c.client.subscribeResource({ uri: quiet });
          await c.client.setLoggingLevel('info');
          await c.client.subscribeResource({ uri: loud });
          const n = await c.waitForNotification('notifications/message', (m) => logData(m.params).includes(loud));
          assert.equal(paramString(n.params, 'level'), 'info');
          // Over HTTP, server-everything appends the session it logged for ("… from session <id>").
          assert.match(logData(n.params).trim(), new RegExp(`^Received Subscribe Resource request for URI: ${loud}( from session [0-9a-f-]+)?$`));
          // The quiet log, had it been sent, would have preceded the loud one.
          assert.equal(
            c.notifications.filter((m) => m.method === 'notifications/message' && logData(m.params).includes(quiet)).length,
            0,
          );
        } finally {
          await c.close();
        }
      });

      it('resources/subscribe + notifications/resources/updated for that uri', T, async () => {
        const c = await connectEverything(target);
        try {
          const uri = 'demo://resource/dynamic/text/1';
          assert.deepEqual(await c.client.subscribeResource({ uri }), {});
          const updated = c.waitForNotification('notifications/resources/updated');
          const started = await callTool(c.client, { name: 'toggle-subscriber-updates', arguments: {} });
          assert.match(textOf(started), /^Started simulated resource updated notifications/);
          const n = await updated;
          assert.deepEqual(n.params, { uri });
          const stopped = await callTool(c.client, { name: 'toggle-subscriber-updates', arguments: {} });
          assert.match(textOf(stopped), /^Stopped simulated resource updates/);
          assert.deepEqual(await c.client.unsubscribeResource({ uri }), {});
          for (const p of since(c, 0, 'notifications/resources/updated')) assert.deepEqual(p, { uri });
        } finally {
          await c.close();
        }
      });

      it('long-running tool: progress notifications then the result', T, async () => {
        const progress: Progress[] = [];
        const errorMark = conn.errors.length;
        const result = await callTool(
          conn.client,
          { name: 'trigger-long-running-operation', arguments: { duration: 0.8, steps: 4 } },
          { onprogress: (p) => progress.push(p) },
        );
        assert.equal(textOf(result), 'Long running operation completed. Duration: 0.8 seconds, Steps: 4.');
        assert.ok(progress.length >= 2, `got ${progress.length} progress notifications`);
        for (const p of progress) assert.equal(p.total, 4);
        for (let i = 1; i < progress.length; i++) {
          assert.ok(at(progress, i).progress > at(progress, i - 1).progress, 'progress increases');
        }
        // SDK client race: a progress notification read in the same chunk as the response is
        // dispatched (in a microtask) after the response already removed the progress handler,
        // so the last one may be reported through onerror as "unknown token" instead of reaching
        // onprogress. Between the two, every step must have arrived, in order.
        const dropped = droppedProgress(conn.errors.slice(errorMark));
        assert.deepEqual([...progress.map((p) => p.progress), ...dropped], [1, 2, 3, 4]);
      });

      it('cancel mid-flight via AbortSignal: the call rejects, the client stays usable', T, async () => {
        // server-everything ignores the cancellation and finishes the operation (sending progress
        // for it all along), so use a fresh connection for this test.
        const c = await connectEverything(target);
        try {
          const controller = new AbortController();
          const progress: Progress[] = [];
          let firstProgress!: () => void;
          const gotFirst = new Promise<void>((resolve) => {
            firstProgress = resolve;
          });
          const call = callTool(
            c.client,
            { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 20 } },
            {
              signal: controller.signal,
              onprogress: (p) => {
                progress.push(p);
                firstProgress();
              },
            },
          );
          call.catch(() => undefined); // observed below
          await withTimeout(gotFirst, EVENT_TIMEOUT, () => 'first progress notification');
          controller.abort(new Error('e2e-cancel'));
          await assert.rejects(call, (e: unknown) => {
            // The SDK rejects with McpError(RequestTimeout, String(reason)) for non-McpError reasons.
            assert.ok(e instanceof McpError, String(e));
            assert.match(e.message, /e2e-cancel/);
            return true;
          });
          assert.equal(at(progress, 0).progress, 1);
          const after = await callTool(c.client, { name: 'echo', arguments: { message: 'still alive' } });
          assert.equal(textOf(after), 'Echo: still alive');
        } finally {
          await c.close();
        }
      });
    });
  });
}

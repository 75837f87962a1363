import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { on } from '../../chain/on.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { harness } from '../../testing/harness.js';
import { local } from '../../upstream/local.js';
import { scripted } from '../_test/scripted.js';
import { redact } from './index.js';

const TOKEN = `ghp_${'A1b2'.repeat(9)}`;
const EMAIL = 'alice@example.com';
const CARD = '4111 1111 1111 1111';
/** Base64 that happens to hold a secret's shape: binary data is never looked at. */
const BINARY = `AKIAIOSFODNN7EXAMPLE${Buffer.from(EMAIL).toString('base64')}`;

describe('redact', () => {
  test('tools/call: text, embedded resource text and structuredContent at any depth are masked; image, audio, blob and links are not', async () => {
    const result = {
      content: [
        { type: 'text', text: `token ${TOKEN} for ${EMAIL}` },
        { type: 'image', data: BINARY, mimeType: 'image/png' },
        { type: 'audio', data: BINARY, mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///env', mimeType: 'text/plain', text: `CARD=${CARD}` } },
        { type: 'resource', resource: { uri: 'file:///bin', mimeType: 'application/octet-stream', blob: BINARY } },
        { type: 'resource_link', uri: 'file:///x', name: 'x' },
      ],
      structuredContent: { user: { email: EMAIL, cards: [CARD, 'none'] }, count: 2 },
      _meta: { kept: true },
    };
    const upstream = scripted({ 'tools/call': () => structuredClone(result) });
    const h = await harness(chain().use(redact()).to(upstream));
    assert.deepEqual(await h.request('tools/call', { name: 'lookup', arguments: {} }), {
      content: [
        { type: 'text', text: 'token [REDACTED:github-token] for [REDACTED:email]' },
        result.content[1],
        result.content[2],
        { type: 'resource', resource: { uri: 'file:///env', mimeType: 'text/plain', text: 'CARD=[REDACTED:credit-card]' } },
        result.content[4],
        result.content[5],
      ],
      structuredContent: { user: { email: '[REDACTED:email]', cards: ['[REDACTED:credit-card]', 'none'] }, count: 2 },
      _meta: { kept: true },
    });
    await h.close();
  });

  test('a tool that ran and failed (isError) is masked too, and stays an error result', async () => {
    const server = local({ tools: [{ name: 'fail', handler: () => ({ isError: true, content: [{ type: 'text', text: `connect failed for ${EMAIL}` }] }) }] });
    const h = await harness(chain().use(redact()).to(server));
    assert.deepEqual(await h.request('tools/call', { name: 'fail' }), { isError: true, content: [{ type: 'text', text: 'connect failed for [REDACTED:email]' }] });
    await h.close();
  });

  test('resources/read: text contents masked, blob contents untouched', async () => {
    const upstream = scripted({
      'resources/read': () => ({
        contents: [
          { uri: 'file:///a.env', text: `OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8xYz1\nplain` },
          { uri: 'file:///b.bin', blob: BINARY },
        ],
      }),
    });
    const h = await harness(chain().use(redact()).to(upstream));
    assert.deepEqual(await h.request('resources/read', { uri: 'file:///a.env' }), {
      contents: [
        { uri: 'file:///a.env', text: 'OPENAI_API_KEY=[REDACTED:openai-key]\nplain' },
        { uri: 'file:///b.bin', blob: BINARY },
      ],
    });
    await h.close();
  });

  test('prompts/get: message text and embedded resource text masked, images untouched', async () => {
    const upstream = scripted({
      'prompts/get': () => ({
        description: 'a prompt',
        messages: [
          { role: 'user', content: { type: 'text', text: `Summarize mail from ${EMAIL}` } },
          { role: 'user', content: { type: 'resource', resource: { uri: 'mem://k', text: `key AKIAIOSFODNN7EXAMPLE` } } },
          { role: 'user', content: { type: 'image', data: BINARY, mimeType: 'image/png' } },
        ],
      }),
    });
    const h = await harness(chain().use(redact()).to(upstream));
    const { messages } = await h.request('prompts/get', { name: 'p' });
    assert.deepEqual(messages, [
      { role: 'user', content: { type: 'text', text: 'Summarize mail from [REDACTED:email]' } },
      { role: 'user', content: { type: 'resource', resource: { uri: 'mem://k', text: 'key [REDACTED:aws-access-key-id]' } } },
      { role: 'user', content: { type: 'image', data: BINARY, mimeType: 'image/png' } },
    ]);
    await h.close();
  });

  test('an error coming back has its message and data masked, with its code kept', async () => {
    const upstream = scripted({
      'tools/call': () => {
        throw new McpError(ErrorCode.InvalidParams, `bad token ${TOKEN}`, { user: EMAIL, attempts: 3 });
      },
      'resources/read': () => {
        throw new McpError(-32002, 'Resource not found: file:///nothing-secret');
      },
    });
    const h = await harness(chain().use(redact()).to(upstream));
    assert.deepEqual((await h.call('tools/call', { name: 'x' })).error, {
      code: -32602,
      message: 'bad token [REDACTED:github-token]',
      data: { user: '[REDACTED:email]', attempts: 3 },
    });
    assert.deepEqual((await h.call('resources/read', { uri: 'file:///nothing-secret' })).error, { code: -32002, message: 'Resource not found: file:///nothing-secret' });
    await h.close();
  });

  test('arguments reach the server as they are by default, masked with arguments: true', async () => {
    const upstream = scripted({ 'tools/call': () => ({ content: [] }) });
    const args = { to: EMAIL, nested: { auth: `Bearer abc123def456ghi789jkl` }, n: 1 };
    const plain = await harness(chain().use(redact()).to(upstream));
    await plain.request('tools/call', { name: 'send', arguments: args });
    await plain.close();
    const masked = await harness(chain().use(redact({ arguments: true })).to(upstream));
    await masked.request('tools/call', { name: 'send', arguments: args });
    await masked.close();
    const calls = upstream.received.filter((m) => m.method === 'tools/call').map((m) => m.params?.arguments);
    assert.deepEqual(calls, [args, { to: '[REDACTED:email]', nested: { auth: 'Bearer [REDACTED:bearer-token]' }, n: 1 }]);
  });

  test("the server's log notifications reach the client masked", async () => {
    const upstream = scripted({});
    const h = await harness(chain().use(redact()).to(upstream));
    const logged = h.notification('notifications/message');
    await upstream.notify('notifications/message', { level: 'error', logger: 'db', data: { error: `login failed for ${EMAIL}`, code: 7 } });
    assert.deepEqual((await logged).params, { level: 'error', logger: 'db', data: { error: 'login failed for [REDACTED:email]', code: 7 } });
    await h.close();
  });

  test('progress messages of a call reach the client masked', async () => {
    const server = local({
      tools: [
        {
          name: 'slow',
          handler: async (_args, call) => {
            await call.progress(1, 2, `mailing ${EMAIL}`);
            return { content: [{ type: 'text', text: 'done' }] };
          },
        },
      ],
    });
    const h = await harness(chain().use(redact()).to(server));
    const progress = h.notification('notifications/progress');
    await h.request('tools/call', { name: 'slow', _meta: { progressToken: 'p1' } });
    assert.deepEqual((await progress).params, { progressToken: 'p1', progress: 1, total: 2, message: 'mailing [REDACTED:email]' });
    await h.close();
  });

  test('other methods pass straight on, unchanged', async () => {
    const tools = { tools: [{ name: 'mail', description: `Mails ${EMAIL}`, inputSchema: { type: 'object' } }] };
    const upstream = scripted({ 'tools/list': () => tools, 'completion/complete': () => ({ completion: { values: [EMAIL] } }) });
    const h = await harness(chain().use(redact()).to(upstream));
    assert.deepEqual(await h.request('tools/list'), tools);
    assert.deepEqual((await h.request('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } })).completion, { values: [EMAIL] });
    await h.close();
  });

  test('a result with nothing to mask is the very object the server answered', async () => {
    const answer: JsonObject = { content: [{ type: 'text', text: 'nothing secret' }], structuredContent: { ok: true } };
    let seen: unknown;
    const h = await harness(
      chain()
        .use(
          on('tools/call', async (_ctx, next) => {
            const reply = await next();
            seen = reply;
            return reply;
          }),
        )
        .use(redact())
        .use(on('tools/call', async () => answer))
        .to(scripted({})),
    );
    await h.request('tools/call', { name: 'x' });
    assert.equal(seen, answer);
    await h.close();
  });

  test('options: detectors, custom patterns and the mask', async () => {
    const upstream = scripted({ 'tools/call': () => ({ content: [{ type: 'text', text: `${EMAIL} ${TOKEN} EMP-123456` }] }) });
    const mw = redact({ detectors: ['github-token'], custom: [{ name: 'employee-id', pattern: 'EMP-\\d{6}' }], mask: '<{name}>' });
    const h = await harness(chain().use(mw).to(upstream));
    const { content } = await h.request('tools/call', { name: 'x' });
    assert.deepEqual(content, [{ type: 'text', text: `${EMAIL} <github-token> <employee-id>` }]);
    await h.close();
  });

  test('invalid options are refused when the middleware is made', () => {
    assert.throws(() => redact({ custom: [{ name: 'x', pattern: '[' }] }), (error: unknown) => error instanceof ChainError && error.code === 'CONFIG' && /detector "x": invalid pattern/.test(error.message));
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import { ChainError } from '../../errors/chain-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import type { CallToolResult } from '../../spec/2025-11-25.js';
import { harness } from '../../testing/harness.js';
import { local, type LocalTool } from '../../upstream/local.js';
import { limitResult, type LimitResultOptions } from './index.js';
import { jsonBytes } from './json-size.js';

const returning = (name: string, result: CallToolResult): LocalTool => ({ name, handler: () => result });
const text = (value: string): { type: 'text'; text: string } => ({ type: 'text', text: value });
const image = (bytes: number): { type: 'image'; data: string; mimeType: string } => ({ type: 'image', data: 'A'.repeat(bytes), mimeType: 'image/png' });

const server = local({
  tools: [
    returning('small', { content: [text('fine')] }),
    returning('big', { content: [text('x'.repeat(5000))] }),
    returning('two_texts', { content: [text('a'.repeat(60)), text('b'.repeat(60))] }),
    returning('emoji', { content: [text('😀'.repeat(100))] }),
    returning('mixed', { content: [text('caption'), image(4000), text('y'.repeat(100))] }),
    returning('structured', { content: [text('z'.repeat(3000))], structuredContent: { rows: 'z'.repeat(3000) } }),
    returning('structured_small', { content: [text('q'.repeat(200))], structuredContent: { n: 1 } }),
    returning('failing', { content: [text('e'.repeat(500))], isError: true, _meta: { trace: 't1' } }),
  ],
});

async function call(options: LimitResultOptions, name: string): Promise<JsonObject> {
  const h = await harness(chain(limitResult(options)).to(server));
  try {
    return await h.request('tools/call', { name, arguments: {} });
  } finally {
    await h.close();
  }
}

function texts(result: JsonObject): string[] {
  return (result.content as JsonObject[]).filter((item) => item.type === 'text').map((item) => String(item.text));
}

describe('limitResult', () => {
  test('a result within its cap passes untouched', async () => {
    assert.deepEqual(await call({ maxBytes: 1024, maxTextChars: 10 }, 'small'), { content: [text('fine')] });
  });

  test('maxTextChars: the text is cut at the cap and a last text item tells the model what happened', async () => {
    const result = await call({ maxTextChars: 100 }, 'big');
    assert.deepEqual(texts(result), [
      'x'.repeat(100),
      "[… truncated by the gateway: its text was 5,000 characters, over the gateway's limit of 100; text cut to 100 of 5,000 characters]",
    ]);
  });

  test('maxTextChars counts all text items together: the first whole, the second cut', async () => {
    assert.deepEqual(texts(await call({ maxTextChars: 100 }, 'two_texts')).slice(0, 2), ['a'.repeat(60), 'b'.repeat(40)]);
  });

  test('maxBytes: the serialized result (note included) stays under the cap', async () => {
    const result = await call({ maxBytes: 2048 }, 'big');
    assert.ok(jsonBytes(result) <= 2048, `${jsonBytes(result)} bytes`);
    const [kept, note] = texts(result);
    assert.match(kept ?? '', /^x{1000,}$/);
    assert.match(note ?? '', /^\[… truncated by the gateway: the result was 4\.9 KB, over the gateway's limit of 2 KB; text cut to [\d,]+ of 5,000 characters\]$/);
  });

  test('a cut never splits a surrogate pair (by characters or by bytes)', async () => {
    const [byChars] = texts(await call({ maxTextChars: 11 }, 'emoji'));
    assert.equal(byChars, '😀'.repeat(5));
    const [byBytes] = texts(await call({ maxBytes: 1024 }, 'emoji'));
    assert.ok(byBytes !== undefined && byBytes.length > 0 && byBytes.length % 2 === 0);
    assert.equal(byBytes, '😀'.repeat(byBytes.length / 2));
  });

  test('non-text items that no longer fit are dropped with a note; later items that fit are kept', async () => {
    const result = await call({ maxBytes: 2048 }, 'mixed');
    assert.deepEqual(result.content, [
      text('caption'),
      text('y'.repeat(100)),
      text("[… truncated by the gateway: the result was 4.1 KB, over the gateway's limit of 2 KB; 1 item dropped (image)]"),
    ]);
  });

  test('structuredContent is dropped when it no longer fits, kept when it does', async () => {
    const dropped = await call({ maxBytes: 2048 }, 'structured');
    assert.equal(dropped.structuredContent, undefined);
    assert.match(texts(dropped).at(-1) ?? '', /; text cut to [\d,]+ of 3,000 characters; structuredContent dropped\]$/);
    const kept = await call({ maxTextChars: 100 }, 'structured_small');
    assert.deepEqual(kept.structuredContent, { n: 1 });
  });

  test("isError and _meta of the tool's own result are kept", async () => {
    const result = await call({ maxTextChars: 10 }, 'failing');
    assert.equal(result.isError, true);
    assert.deepEqual(result._meta, { trace: 't1' });
    assert.equal(texts(result)[0], 'e'.repeat(10));
  });

  test("onExceed 'error': an isError result naming the tool and the limit instead", async () => {
    const result = await call({ maxBytes: 2048, onExceed: 'error' }, 'big');
    assert.deepEqual(result, {
      content: [text('The result of tool "big" was withheld by the gateway: the result was 4.9 KB, over the gateway\'s limit of 2 KB. Ask for less (a narrower query, fewer items, a smaller page).')],
      isError: true,
    });
  });

  test('per tool globs: the first matching key wins, others get the top-level cap, or none', async () => {
    const options: LimitResultOptions = { maxTextChars: 1000, tools: { 'tw?_*': { maxTextChars: 30 }, 'two_*': { maxTextChars: 70 } } };
    assert.equal(texts(await call(options, 'two_texts'))[0], 'a'.repeat(30));
    assert.equal(texts(await call(options, 'big'))[0], 'x'.repeat(1000));
    assert.equal(texts(await call({ tools: { 'two_*': { maxTextChars: 70 } } }, 'big'))[0], 'x'.repeat(5000));
  });

  test('other methods pass through', async () => {
    const h = await harness(chain(limitResult({ maxTextChars: 1 })).to(server));
    assert.deepEqual((await h.request('tools/list')).tools, server.listTools());
    await h.close();
  });

  test('a cap without a limit, or with a limit out of range, is a CONFIG error', () => {
    assert.throws(() => limitResult({}), (error: unknown) => error instanceof ChainError && /set maxBytes or maxTextChars/.test(error.message));
    assert.throws(() => limitResult({ maxBytes: 100 }), /limitResult\.maxBytes: expected a whole number of at least 1024, found 100/);
    assert.throws(() => limitResult({ tools: { a: { onExceed: 'error' } } }), /limitResult\.tools\["a"\]: set maxBytes or maxTextChars/);
    assert.throws(() => limitResult({ maxTextChars: 1.5 }), /maxTextChars: expected a whole number of at least 1/);
  });
});

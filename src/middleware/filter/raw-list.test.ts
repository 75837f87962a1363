import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../chain/chain.js';
import type { Middleware } from '../../chain/middleware.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { lazyMessage } from '../../message/lazy-message.js';
import { rawByteLengthOf } from '../../message/raw-json.js';
import { harness } from '../../testing/harness.js';
import { scripted } from '../_test/scripted.js';
import { rename } from '../rename/index.js';
import { filter } from './index.js';

/**
 * A list result as a stdio server's answer is read (lazily: its items are bytes), and the same
 * list parsed: the built-in list middleware give the same answer for both.
 */
const list = {
  tools: [
    { name: 'search', description: 'Finds things — é 😀 "q"', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
    { name: 'drop_table', description: 'dangerous', inputSchema: { type: 'object' } },
    { inputSchema: {}, name: 'delete_row', annotations: { destructiveHint: true } },
    { name: 'acme_search', description: 'a tool whose name another is renamed to' },
    { title: 'no name' },
  ],
  nextCursor: 'page-2',
  _meta: { 'x/y': 1 },
};
const line = JSON.stringify({ jsonrpc: '2.0', id: 1, result: list }) + ' '.repeat(2048);

function readOffTheWire(): JsonObject {
  const message = lazyMessage(Buffer.from(line));
  assert.ok(message !== undefined);
  return message.result as JsonObject;
}

async function listThrough(middleware: Middleware | Middleware[], result: () => JsonObject): Promise<{ answer: unknown; raw: boolean }> {
  let sent: JsonObject | undefined;
  const upstream = scripted({ 'tools/list': () => (sent = result()) });
  const outer: Middleware = (ctx, next) => next().then((reply) => {
    raw = reply !== undefined && reply !== sent && rawByteLengthOf(reply) !== undefined;
    return reply;
  });
  let raw = false;
  const h = await harness(chain().use(outer, ...[middleware].flat()).to(upstream));
  try {
    return { answer: await h.request('tools/list'), raw };
  } finally {
    await h.close();
  }
}

describe('list middleware on a list read off the wire (its items as bytes)', () => {
  const cases: Record<string, Middleware | Middleware[]> = {
    // A list one middleware rebuilt as bytes, read by the next (as a company policy stacks them).
    'filter, then rename': [rename({ tools: { search: 'find' } }), filter({ tools: { deny: ['drop_*'] } })],
    'rename, then filter': [filter({ tools: { deny: ['find'] } }), rename({ tools: { search: 'find' } })],
    'filter (deny)': filter({ tools: { deny: ['drop_*', 'delete_row'] } }),
    'filter (allow)': filter({ tools: { allow: ['search'] } }),
    'filter (nothing hidden)': filter({ tools: { deny: ['nothing'] } }),
    'rename (a tool renamed, one hidden behind the new name)': rename({ tools: { search: { name: 'acme_search', title: 'ACME search', description: 'Searches ACME.' } } }),
    'rename (nothing listed renamed)': rename({ tools: { absent: 'present' } }),
  };
  for (const [what, middleware] of Object.entries(cases)) {
    test(`${what}: the same answer as for the parsed list`, async () => {
      const lazy = await listThrough(middleware, readOffTheWire);
      const parsed = await listThrough(middleware, () => JSON.parse(JSON.stringify(list)) as JsonObject);
      assert.deepStrictEqual(lazy.answer, parsed.answer);
      assert.equal(JSON.stringify(lazy.answer), JSON.stringify(parsed.answer), 'the same keys in the same order');
    });
  }

  test('a filtered or renamed list is built as bytes, not parsed and serialized again', async () => {
    assert.equal((await listThrough(filter({ tools: { deny: ['drop_*'] } }), readOffTheWire)).raw, true);
    assert.equal((await listThrough(rename({ tools: { search: 'find' } }), readOffTheWire)).raw, true);
  });
});

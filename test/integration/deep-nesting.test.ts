// A message nested hundreds of thousands of levels deep, still under the size cap. JSON.parse
// takes it; anything that walks it recursively (JSON.stringify, a deep freeze) overflows the call
// stack a few thousand levels down. Whatever walks it, the sender gets a normal answer or a clear
// error for its own id, and the process keeps serving.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import { serveHttp } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { lint } from '../../src/middleware/lint/index.js';
import { log } from '../../src/middleware/log/index.js';
import { rename } from '../../src/middleware/rename/index.js';
import type { Middleware } from '../../src/chain/middleware.js';
import { harness } from '../../src/testing/harness.js';
import { local, type LocalTool } from '../../src/upstream/local.js';
import { stdio } from '../../src/upstream/stdio.js';
import type { Upstream } from '../../src/core/upstream.js';
import { openSession, send } from '../helpers/http.js';
import { fixtureCommand } from '../helpers/targets.js';

const DEPTH = 300_000;
const deepText = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
/** A deep value built without recursion (JSON.parse does not recurse). */
const deepValue = (): unknown => JSON.parse(deepText) as unknown;

const tools: LocalTool[] = [
  { name: 'echo', inputSchema: { type: 'object' }, handler: (args) => ({ content: [{ type: 'text', text: `keys: ${Object.keys(args).join(',')}` }] }) },
  { name: 'deep-result', inputSchema: { type: 'object' }, handler: () => ({ content: [], structuredContent: { deep: deepValue() } }) },
];

/** The raw line of a tools/call whose arguments hold the deep value. */
const deepCall = (id: string, tool = 'echo'): string =>
  `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"${tool}","arguments":{"deep":${deepText}}}}\n`;

/** Answered with a result or a clear error, never an internal error without a word. */
function assertAnswered(reply: Record<string, unknown>, id: string): void {
  assert.equal(reply.id, id);
  const error = reply.error as { code: number; message: string } | undefined;
  if (error) {
    assert.ok([-32600, -32602].includes(error.code) || /nested too deeply/.test(error.message), `unclear error: ${JSON.stringify(error)}`);
  } else {
    assert.ok(reply.result, 'a result or an error');
  }
}

const renaming = (): Middleware => rename({ tools: { echo: { name: 'echo' } } });
/** Forwards a copy of the params (as any rewriting middleware does): the deep value must be serialized again. */
const rewriting: Middleware = async (ctx, next) => (ctx.message.params ? next({ ...ctx.message, params: { ...ctx.message.params } }) : next());

describe('deep nesting: a message nested 300,000 levels deep', () => {
  const shapes: Array<[string, () => Upstream]> = [
    ['no middleware, in-process server', () => chain().to(local({ tools }))],
    ['lint (freezes every value)', () => chain(lint()).to(local({ tools }))],
    ['log with params (serializes them)', () => chain(log({ level: 'message', includeParams: true, logger: silentLogger })).to(local({ tools }))],
    ['rename', () => chain(renaming()).to(local({ tools }))],
    ['a rewriting middleware in front of a stdio server (serialized again)', () => chain(rewriting).to(stdio({ ...fixtureCommand('notifier'), name: 'notifier' }))],
    ['unchanged to a stdio server (forwarded as its bytes)', () => chain().to(stdio({ ...fixtureCommand('notifier'), name: 'notifier' }))],
  ];
  for (const [name, make] of shapes) {
    test(`${name}: the request is answered for its id, and the session keeps serving`, async () => {
      const h = await harness(make());
      const reply = h.next('deep');
      h.sendRaw(deepCall('deep'));
      assertAnswered(await reply, 'deep');
      const after = await h.request('tools/call', { name: 'echo', arguments: { text: 'still here' } });
      assert.ok(Array.isArray(after.content));
      await h.close();
    });
  }

  test('a result nested too deeply to serialize becomes an error for the same id; the session keeps serving', async () => {
    const h = await harness(chain().to(local({ tools })));
    const reply = await h.call('tools/call', { name: 'deep-result', arguments: {} }, 'r1');
    assert.deepEqual(reply.error, { code: -32603, message: 'Internal error: the answer is nested too deeply to forward' });
    assert.ok(Array.isArray((await h.request('tools/list')).tools));
    await h.close();
  });

  test('over HTTP: a deep request and a deep result each get their answer, and the front keeps serving', async () => {
    const front = await serveHttp(chain(rewriting).to(local({ tools })), { port: 0, log: silentLogger });
    try {
      const { headers } = await openSession(front.url);
      const request = await send(front.url, { body: deepCall('h1').trim(), headers });
      assert.equal(request.status, 200);
      assertAnswered(request.messages[0] as Record<string, unknown>, 'h1');
      const result = await send(front.url, { body: { jsonrpc: '2.0', id: 'h2', method: 'tools/call', params: { name: 'deep-result', arguments: {} } }, headers });
      assert.deepEqual(result.messages, [{ jsonrpc: '2.0', id: 'h2', error: { code: -32603, message: 'Internal error: the answer is nested too deeply to forward' } }]);
      const list = await send(front.url, { body: { jsonrpc: '2.0', id: 'h3', method: 'tools/list' }, headers });
      assert.equal((list.messages[0] as { id: string }).id, 'h3');
    } finally {
      await front.close();
    }
  });
});

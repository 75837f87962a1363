// list_changed notifications triggered on demand, using the notifier fixture
// (test/fixtures/servers/notifier.ts). server-everything cannot be made to emit
// prompts/list_changed, and emits tools/list_changed only right after initialize.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import { callTool, only, textOf } from '../helpers/mcp.js';
import { connectClient, notifierTargets } from '../helpers/targets.js';
import type { Connection } from '../helpers/targets.js';

const T = { timeout: 30_000 };

/** The next `method` notification received after this call. */
function next(conn: Connection, method: string): Promise<Notification> {
  const mark = conn.notifications.length;
  return conn.waitForNotification(method, (n) => conn.notifications.indexOf(n) >= mark);
}

for (const target of notifierTargets()) {
  describe(`list_changed via ${target.name} (notifier fixture)`, () => {
    let conn: Connection;
    before(async () => {
      conn = await connectClient(target);
    });
    after(async () => {
      await conn?.close();
    });

    it('advertises listChanged for tools, prompts and resources', T, () => {
      const caps = conn.client.getServerCapabilities();
      assert.equal(caps?.tools?.listChanged, true);
      assert.equal(caps?.prompts?.listChanged, true);
      assert.equal(caps?.resources?.listChanged, true);
    });

    it('add-tool / remove-tool: notifications/tools/list_changed, and tools/list follows', T, async () => {
      const before = (await conn.client.listTools()).tools.map((t) => t.name);
      assert.ok(!before.includes('dynamic-tool'));

      const added = next(conn, 'notifications/tools/list_changed');
      assert.equal(textOf(await callTool(conn.client, { name: 'add-tool', arguments: { name: 'dynamic-tool' } })), 'added tool dynamic-tool');
      assert.deepEqual((await added).params, undefined);
      const tools = (await conn.client.listTools()).tools;
      assert.equal(only(tools.filter((t) => t.name === 'dynamic-tool')).description, 'Added at runtime: dynamic-tool');
      assert.equal(textOf(await callTool(conn.client, { name: 'dynamic-tool', arguments: {} })), 'I am dynamic-tool');

      const removed = next(conn, 'notifications/tools/list_changed');
      await callTool(conn.client, { name: 'remove-tool', arguments: { name: 'dynamic-tool' } });
      await removed;
      assert.ok(!(await conn.client.listTools()).tools.some((t) => t.name === 'dynamic-tool'));
    });

    it('add-prompt: notifications/prompts/list_changed, and prompts/list follows', T, async () => {
      const changed = next(conn, 'notifications/prompts/list_changed');
      await callTool(conn.client, { name: 'add-prompt', arguments: { name: 'dynamic-prompt' } });
      await changed;
      const { prompts } = await conn.client.listPrompts();
      assert.deepEqual(
        prompts.map((p) => p.name),
        ['base-prompt', 'dynamic-prompt'],
      );
      const got = await conn.client.getPrompt({ name: 'dynamic-prompt' });
      assert.deepEqual(got.messages, [{ role: 'user', content: { type: 'text', text: 'prompt dynamic-prompt' } }]);
    });

    it('add-resource: notifications/resources/list_changed, and resources/list follows', T, async () => {
      const uri = 'notifier://dynamic/1';
      const changed = next(conn, 'notifications/resources/list_changed');
      await callTool(conn.client, { name: 'add-resource', arguments: { uri, text: 'fresh content' } });
      await changed;
      const { resources } = await conn.client.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        ['notifier://base', uri],
      );
      const { contents } = await conn.client.readResource({ uri });
      assert.deepEqual(contents, [{ uri, mimeType: 'text/plain', text: 'fresh content' }]);
    });
  });
}

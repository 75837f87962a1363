// `approve` end to end: `mcp-chain serve` of a TypeScript config file whose middleware is imported
// from the repository's sources, in front of server-everything and server-memory, reached by the official SDK
// client on stdio and on --http. A client with elicitation is asked before the chosen tools run:
// accept runs the tool, decline gives an isError result the model can read, "always" stops the
// questions; a destructive tool is asked about by its annotations, a read-only one is not; a
// client without elicitation is denied.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { gatewayTarget, serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, proxyBuilt, type Connection } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';

const T = { timeout: 30_000 };

/** A JSON config naming the built-in, so the bundled CLI runs its own copy of approve. */
function configFile(ws: Workspace): string {
  return ws.write(
    'mcp-chain.config.json',
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [serverBin('server-everything')] },
        memory: { command: process.execPath, args: [serverBin('server-memory')], env: { MEMORY_FILE_PATH: ws.path('memory.jsonl') } },
      },
      middleware: [{ approve: { tools: ['everything__echo'], annotations: { destructiveHint: true } } }],
    }),
  );
}

forEachTransport(({ http, flag }) => {
  describe(`approve through mcp-chain serve${flag}`, () => {
    let ws: Workspace;
    let asking: Connection | undefined;
    let mute: Connection | undefined;
    /** What the user answers next, and the questions the client was asked. */
    const answers: ElicitResult[] = [];
    const questions: ElicitRequest['params'][] = [];

    before(async () => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-policy-approve-');
      const target = gatewayTarget(configFile(ws), { http });
      asking = await connectClient(target, { capabilities: { elicitation: {} } });
      asking.client.setRequestHandler(ElicitRequestSchema, (request) => {
        questions.push(request.params);
        return answers.shift() ?? { action: 'cancel' };
      });
      mute = await connectClient(target, { capabilities: {} });
    });

    after(async () => {
      await asking?.close();
      await mute?.close();
      ws?.remove();
    });

    it('accept: the user sees the tool and its arguments, and the tool runs', T, async () => {
      assert.ok(asking);
      questions.length = 0;
      answers.push({ action: 'accept', content: { always: false } });
      const result = await callTool(asking.client, { name: 'everything__echo', arguments: { message: 'hi' } });
      assert.equal(textOf(result), 'Echo: hi', asking.stderrTail());
      assert.equal(questions.length, 1);
      assert.equal(questions[0]?.message, 'Allow the tool "everything__echo" to run?\nArguments: {"message":"hi"}');
      assert.deepEqual(questions[0] && 'requestedSchema' in questions[0] ? Object.keys(questions[0].requestedSchema.properties) : [], ['always']);
    });

    it('decline: an isError result says the user declined; the tool did not run', T, async () => {
      assert.ok(asking);
      answers.push({ action: 'decline' });
      const result = await callTool(asking.client, { name: 'everything__echo', arguments: { message: 'no' } });
      assert.equal(result.isError, true);
      assert.equal(textOf(result), 'The user declined to run "everything__echo"; it did not run. Do not try it again unless the user asks for it.');
    });

    it('"always": the next call of the tool in this session is not asked about', T, async () => {
      assert.ok(asking);
      questions.length = 0;
      answers.push({ action: 'accept', content: { always: true } });
      assert.equal(textOf(await callTool(asking.client, { name: 'everything__echo', arguments: { message: 'one' } })), 'Echo: one');
      assert.equal(textOf(await callTool(asking.client, { name: 'everything__echo', arguments: { message: 'two' } })), 'Echo: two');
      assert.equal(questions.length, 1);
    });

    it('annotations: a destructive tool (as tools/list showed it) is asked about; read-only ones are not', T, async () => {
      assert.ok(asking);
      questions.length = 0;
      await asking.client.listTools();
      const sum = await callTool(asking.client, { name: 'everything__get-sum', arguments: { a: 2, b: 3 } });
      assert.notEqual(sum.isError, true);
      assert.notEqual((await callTool(asking.client, { name: 'memory__read_graph', arguments: {} })).isError, true);
      assert.equal(questions.length, 0);
      answers.push({ action: 'decline' });
      const deleted = await callTool(asking.client, { name: 'memory__delete_entities', arguments: { entityNames: ['x'] } });
      assert.equal(deleted.isError, true);
      assert.match(textOf(deleted), /^The user declined to run "memory__delete_entities"/);
      assert.deepEqual(questions.map((q) => q.message.split('\n')[0]), ['Allow the tool "memory__delete_entities" to run?']);
    });

    it('a client without elicitation is denied (fallback deny), in its own session', T, async () => {
      assert.ok(mute);
      const result = await callTool(mute.client, { name: 'everything__echo', arguments: { message: 'hi' } });
      assert.equal(result.isError, true);
      assert.equal(textOf(result), `"everything__echo" needs the user's approval, and this client cannot ask for it (it does not support elicitation); it did not run.`);
    });
  });
});

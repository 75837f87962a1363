// `mcp-chain serve claude_desktop_config.json` on stdio, driven by the official SDK client: the
// core checks of test/e2e/_gateway-suite.ts, then the client goes away and no server process the
// gateway started is left. Then the edges: a file with a single server, and one whose servers all
// fail to start.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { directTarget, fixtureEntry, gatewayTarget, listAll, referenceEntry, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient } from '../helpers/targets.js';
import { assertDownOncePerSession, coreChecks, startFleet, T } from './_gateway-suite.js';

const options = { http: false, pageSize: 7 };

describe('mcp-chain serve <Claude Desktop config> on stdio', () => {
  const fleet = startFleet(options);
  coreChecks(options, fleet);

  describe('the client goes away', () => {
    it('closing stdin ends the gateway, and every server process it started is gone', T, async () => {
      const f = fleet();
      const seen = f.processes.record();
      // everything, files, memory, the long-key memory, waiter (broken never ran)
      assert.ok(seen.length >= 5, `server processes below the gateway: ${[...f.processes.seen.values()].join('\n')}`);
      const report = await f.gateway.close();
      assert.equal(report.exitCode, 0, f.gateway.stderrTail());
      assert.equal(report.escalation, 'none', 'it exited on its own once stdin closed');
      await f.processes.allGone();
      assert.equal(assertDownOncePerSession(await f.gateway.stderrText(), 'broken'), 1);
    });
  });
});

describe('mcp-chain serve with one server, and with none that can start', () => {
  let ws: Workspace;
  before(() => {
    ws = workspace();
  });
  after(() => {
    ws.remove();
  });

  it('one server: its names are left as they are, and calls reach it', T, async () => {
    const entry = referenceEntry('server-memory', [], { MEMORY_FILE_PATH: ws.path('solo.jsonl') });
    const file = ws.write('solo.json', JSON.stringify({ mcpServers: { memory: entry } }));
    const [gateway, own] = await Promise.all([
      connectClient(gatewayTarget(file), { capabilities: {} }),
      connectClient(directTarget({ ...entry, env: { MEMORY_FILE_PATH: ws.path('solo-direct.jsonl') } }), { capabilities: {} }),
    ]);
    try {
      assert.deepEqual((await listAll(gateway.client, 'tools')).items, (await listAll(own.client, 'tools')).items);
      assert.deepEqual(JSON.parse(textOf(await callTool(gateway.client, { name: 'read_graph', arguments: {} }))), { entities: [], relations: [] });
    } finally {
      await Promise.all([gateway.close(), own.close()]);
    }
  });

  it("a server's own timeout ends a call it does not answer: -32001 naming it, and the server is told to cancel; the other server serves", T, async () => {
    const file = ws.write('timeout.json', JSON.stringify({
      mcpServers: { slow: { ...fixtureEntry('hang'), timeout: 400 }, everything: referenceEntry('server-everything', ['stdio']) },
    }));
    const gateway = await connectClient(gatewayTarget(file), { capabilities: {}, keepAllStderr: true });
    try {
      await assert.rejects(callTool(gateway.client, { name: 'slow__hang', arguments: {} }), (error: unknown) => {
        assert.ok(error instanceof McpError, String(error));
        assert.equal(error.code, ErrorCode.RequestTimeout);
        assert.match(error.message, /Server "slow" did not answer tools\/call within 400 ms/);
        return true;
      });
      await gateway.waitForStderr(/cancelled/);
      assert.equal(textOf(await callTool(gateway.client, { name: 'everything__echo', arguments: { message: 'still here' } })), 'Echo: still here');
    } finally {
      const report = await gateway.close();
      assert.equal(report.exitCode, 0);
    }
  });

  it('no server can start: the gateway still starts, answers with empty lists, and logs each server as down', T, async () => {
    const file = ws.write('none.json', JSON.stringify({ mcpServers: { gone: { command: ws.path('missing-a') }, lost: { command: ws.path('missing-b') } } }));
    const gateway = await connectClient(gatewayTarget(file), { capabilities: {} });
    try {
      assert.deepEqual(await gateway.client.ping(), {});
      assert.equal(gateway.client.getServerVersion()?.name, 'mcp-chain');
      for (const kind of ['tools', 'prompts', 'resources', 'resourceTemplates'] as const) {
        // A gateway with no capability of a kind may refuse its list (-32601); one that lists shows nothing.
        const listed = await listAll(gateway.client, kind).then(
          ({ items }) => items,
          (error: unknown) => {
            assert.ok(error instanceof McpError && error.code === ErrorCode.MethodNotFound, String(error));
            return [];
          },
        );
        assert.deepEqual(listed, [], kind);
      }
      await gateway.waitForStderr(/server \\"gone\\" is down/);
      await gateway.waitForStderr(/server \\"lost\\" is down/);
    } finally {
      const report = await gateway.close();
      assert.equal(report.exitCode, 0);
    }
  });
});

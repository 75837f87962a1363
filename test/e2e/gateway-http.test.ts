// `mcp-chain serve claude_desktop_config.json --http 127.0.0.1:0`, driven by the official SDK
// client over Streamable HTTP: the core checks of test/e2e/_gateway-suite.ts, then what is proper
// to HTTP: each session has servers of its own, and a session's servers end with it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { withTimeout } from '../helpers/client.js';
import { descendantsOf, eventually, listAll } from '../helpers/gateway.js';
import { processAlive } from '../integration/_process.js';
import { assertDownOncePerSession, coreChecks, startFleet, T } from './_gateway-suite.js';

const options = { http: true, pageSize: 6 };

describe('mcp-chain serve <Claude Desktop config> --http', () => {
  const fleet = startFleet(options);
  coreChecks(options, fleet);

  describe('sessions', () => {
    it('a second session gets server processes of its own, lists by its own capabilities, and ending it ends exactly those', T, async () => {
      const f = fleet();
      assert.ok(f.url !== undefined);
      const first = new Set(f.processes.record());
      // No roots, sampling or elicitation: server-everything registers none of the tools that need them.
      const client = new Client({ name: 'second-session', version: '0.0.0' }, { capabilities: {} });
      const transport = new StreamableHTTPClientTransport(new URL(f.url));
      await withTimeout(client.connect(transport), 20_000, () => 'the second session to initialize');
      let ended = false;
      try {
        const own = descendantsOf(f.gateway.pid).filter((pid) => !first.has(pid));
        f.processes.record();
        assert.ok(own.length >= 5, `servers started for the second session: ${own.length}`);
        const names = (await listAll(client, 'tools')).items.map((t) => t.name);
        assert.ok(names.includes('everything__echo') && names.includes('files__read_text_file') && names.includes('remote__test_simple_text'));
        assert.ok(!names.includes('everything__trigger-sampling-request'), 'no sampling tool for a client without sampling');
        const firstNames = (await listAll(f.gateway.client, 'tools')).items.map((t) => t.name);
        assert.ok(firstNames.includes('everything__trigger-sampling-request'), 'the first session keeps its own');

        await transport.terminateSession();
        ended = true;
        await eventually(() => (own.every((pid) => !processAlive(pid)) ? true : undefined), () => `the second session's servers to exit: ${own.filter(processAlive).join(', ')}`);
        assert.deepEqual([...first].filter((pid) => !processAlive(pid)), [], "the first session's servers still run");
        assert.equal((await listAll(f.gateway.client, 'tools')).items.length, firstNames.length);
      } finally {
        if (!ended) await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    });
  });

  describe('the client goes away', () => {
    it("ending the session ends its servers while the gateway runs on; SIGTERM then stops it, and nothing is left", T, async () => {
      const f = fleet();
      const own = f.processes.record();
      assert.ok(own.length >= 5, `server processes below the gateway: ${[...f.processes.seen.values()].join('\n')}`);
      assert.ok(f.gateway.transport instanceof StreamableHTTPClientTransport);
      await f.gateway.transport.terminateSession();
      await f.processes.allGone();
      assert.ok(processAlive(f.gateway.pid), 'the gateway itself still serves');
      const report = await f.gateway.close();
      assert.equal(report.escalation, 'SIGTERM');
      assert.equal(report.exitCode, 0, f.gateway.stderrTail());
      await f.processes.allGone();
      // Once in each of the two sessions.
      assert.equal(assertDownOncePerSession(await f.gateway.stderrText(), 'broken'), 2);
    });
  });
});

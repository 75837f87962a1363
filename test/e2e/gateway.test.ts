// `mcp-chain serve claude_desktop_config.json` on stdio, driven by the official SDK client: the
// core checks of test/e2e/_gateway-suite.ts, then the client goes away and no server process the
// gateway started is left.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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

// SIGTERM in the middle of the soak's traffic (issue 13: graceful shutdown under load): the real
// CLI (`mcp-chain serve --http --drain-ms 5000`, three members) with SDK clients keeping calls in
// flight (echo, progress, sampling round trips, large answers, cancellations) gets SIGTERM. Every
// call either completes or gets an error; none hangs, none vanishes; the calls in flight at the
// signal finish (they take at most ~200 ms, well inside the drain); the gateway exits 0 and leaves
// no process behind.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { formatReport } from '../../bench/soak/report.js';
import { startSoak, type ProcessExit, type SoakResult } from '../../bench/soak/soak.js';

const DRAIN_MS = 5000;

/** Resolves once `condition` holds; fails naming `what` after `ms`. */
async function until(condition: () => boolean, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The errors a call started after the signal may end with: a refusal of new work during the drain
 * (503 + Retry-After, whose body is the JSON-RPC -32000 "shutting down"), or the gateway gone or
 * going (refused or reset at connect; a kept-alive connection closed as the gateway exits while the
 * next request was already on its way over it). `kind` is "<call kind>: <error kind>".
 */
function isRefusalOfNewWork(kind: string): boolean {
  const error = kind.slice(kind.indexOf(': ') + 2);
  return error === 'http 503' || /^rpc -32000: .*shutting down/i.test(error) || /ECONNREFUSED|ECONNRESET|other side closed/.test(error);
}

describe('SIGTERM in the middle of the soak: every call completes or gets an error', { timeout: 300_000 }, () => {
  let result: SoakResult | undefined;
  let exit: ProcessExit | undefined;
  let signalledAtMs = 0;
  let okAtSignal = 0;
  let inFlightAtMark: Record<string, number> = {};
  let errorsOfInFlightAtMark: Record<string, number> = {};
  const soak = (): SoakResult => {
    assert.ok(result, 'the soak did not run');
    return result;
  };

  before(async () => {
    const handle = await startSoak({
      durationMs: 240_000, // ended by the signal long before
      sessions: 10,
      inFlight: 10,
      warmupMs: 5_000,
      deadlineMs: 30_000,
      settleMs: 15_000,
      gatewayArgs: ['--drain-ms', String(DRAIN_MS)],
    });
    try {
      await until(() => handle.counters.allConnectedAt !== undefined && handle.counters.ok >= 500, 'every session connected and 500 calls answered', 120_000);
      okAtSignal = handle.counters.ok;
      const signalled = Date.now();
      handle.counters.markAt = signalled;
      process.kill(handle.gatewayPid, 'SIGTERM');
      exit = await handle.gatewayExit;
      signalledAtMs = Date.now() - signalled;
      result = await handle.done;
      inFlightAtMark = { ...handle.counters.inFlightAtMark };
      errorsOfInFlightAtMark = { ...handle.counters.errorsOfInFlightAtMark };
    } catch (error) {
      await handle.stop().catch(() => undefined);
      throw error;
    }
  }, { timeout: 300_000 });

  test('the gateway exits 0, within the drain deadline and a margin', () => {
    assert.ok(exit, 'the gateway did not exit');
    assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, formatReport(soak()));
    assert.ok(signalledAtMs < DRAIN_MS + 10_000, `exited ${signalledAtMs} ms after SIGTERM`);
  });

  test('no call is lost, misrouted or wrong; each settled exactly once', () => {
    const { calls, sampling, progress } = soak();
    assert.equal(calls.ok + calls.errors + calls.lost + calls.misrouted + calls.wrong, calls.started);
    assert.deepEqual(
      { lost: calls.lost, misrouted: calls.misrouted, wrong: calls.wrong, sampling: sampling.misrouted, progress: progress.misrouted },
      { lost: 0, misrouted: 0, wrong: 0, sampling: 0, progress: 0 },
      JSON.stringify({ byKind: calls.byKind, wrong: calls.wrongByKind, misrouted: calls.misroutedByKind }),
    );
    assert.ok(calls.ok > okAtSignal, 'calls in flight at the signal completed after it');
  });

  test('every call in flight at the signal finished: answered (or cancelled by its client), none cut off', () => {
    // A call the client had started but whose POST reached the gateway only after the signal was
    // never in flight there: it is refused as new work (503). Any other error would be a call the
    // gateway had taken and then dropped.
    const total = Object.values(inFlightAtMark).reduce((a, b) => a + b, 0);
    assert.ok(total >= 50, `only ${total} calls were in flight at the signal: ${JSON.stringify(inFlightAtMark)}`);
    const cutOff = Object.entries(errorsOfInFlightAtMark).filter(([kind]) => !kind.endsWith(': http 503'));
    assert.deepEqual(cutOff, [], JSON.stringify({ inFlightAtMark, errorsOfInFlightAtMark }));
    assert.ok((inFlightAtMark['answered'] ?? 0) > 0, JSON.stringify(inFlightAtMark));
    assert.equal(inFlightAtMark['lost'], undefined, JSON.stringify(inFlightAtMark));
  });

  test('calls started after the signal were refused (503 during the drain) or found the gateway gone; none hung', () => {
    const { errorsByKind } = soak().calls;
    const others = Object.entries(errorsByKind).filter(([kind]) => !isRefusalOfNewWork(kind));
    assert.deepEqual(others, [], JSON.stringify(errorsByKind));
    assert.ok(Object.keys(errorsByKind).some((kind) => kind.endsWith('http 503')), `no call was refused with 503 during the drain: ${JSON.stringify(errorsByKind)}`);
  });

  test('no answer came for a cancelled call, and no server process is left', () => {
    const r = soak();
    assert.equal(r.answersAfterCancel, 0);
    assert.deepEqual(r.children.leftAfterExit, []);
  });
});

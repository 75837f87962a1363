// The soak's 60-second form (the full one: `npm run soak`, 200 sessions for 10 minutes): the
// real CLI (`mcp-chain serve --http`, needs the build) with three members (HTTP per session, HTTP
// shared, stdio shared), SDK clients keeping 10 calls each in flight (echo, progress, sampling
// round trips, large answers, cancellations), every answer checked against its request.
//
// 20 sessions, not 200: npm test runs two files at once on machines with two cores, and 200
// sessions there measure the machine rather than the gateway (calls wait seconds for a CPU);
// 20 x 10 = 200 calls in flight still cross each shared member from every session at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSoak, type SoakResult } from '../../bench/soak/soak.js';
import { formatReport } from '../../bench/soak/report.js';

const SESSIONS = 20;

describe('soak: 20 sessions x 10 calls in flight for 60 s through mcp-chain serve --http', { timeout: 300_000 }, () => {
  let result: SoakResult | undefined;
  const soak = (): SoakResult => {
    assert.ok(result, 'the soak did not run');
    return result;
  };

  before(async () => {
    const handle = await startSoak({ durationMs: 60_000, sessions: SESSIONS, inFlight: 10, warmupMs: 20_000 });
    result = await handle.done;
  }, { timeout: 300_000 });

  after(() => {
    // The whole report, for whoever reads a failure.
    if (result !== undefined && !result.verdict.pass) process.stderr.write(`${formatReport(result)}\n`);
  });

  test('every session opened, calls of every kind ran, and each settled exactly once', () => {
    const r = soak();
    assert.equal(r.sessions.opened, SESSIONS);
    assert.equal(r.sessions.closed, SESSIONS);
    for (const [kind, figures] of Object.entries(r.calls.byKind)) assert.ok(figures.started > 0, `no ${kind} call ran`);
    assert.equal(r.calls.ok + r.calls.errors + r.calls.lost + r.calls.misrouted + r.calls.wrong, r.calls.started);
    assert.equal(r.gateway.exitedDuringLoad, undefined, 'the gateway exited during the load');
  });

  test('no call is lost: each got its answer or an error before its deadline', () => {
    assert.equal(soak().calls.lost, 0, JSON.stringify(soak().calls.byKind));
  });

  test('no answer is misrouted or wrong: tokens, progress, sampling answers and large hashes all match their request', () => {
    const r = soak();
    assert.deepEqual(
      { misrouted: r.calls.misrouted, wrong: r.calls.wrong, sampling: r.sampling.misrouted, progress: r.progress.misrouted },
      { misrouted: 0, wrong: 0, sampling: 0, progress: 0 },
      JSON.stringify({ misrouted: r.calls.misroutedByKind, wrong: r.calls.wrongByKind }),
    );
    assert.ok(r.sampling.requests > 0 && r.progress.notifications > 0);
  });

  test('no call ends in an error (the members never fail)', () => {
    assert.deepEqual(soak().calls.errorsByKind, {});
  });

  test('a cancelled call gets nothing after its cancellation', () => {
    assert.equal(soak().answersAfterCancel, 0);
  });

  test('descriptors and child processes are back to the baseline once the sessions are closed; none is left after the gateway exits', () => {
    const r = soak();
    assert.ok(r.fds.end !== undefined && r.fds.end <= r.fds.baseline, `descriptors: ${r.fds.baseline} before, ${r.fds.end ?? '?'} after`);
    assert.ok(r.fds.max > r.fds.baseline, 'the load opened no descriptor: it measured nothing');
    assert.deepEqual(r.children.end, r.children.baseline);
    assert.deepEqual(r.children.leftAfterExit, []);
    const a = r.members['a'] as { sessionsOpen: number; sessionsOpened: number };
    assert.equal(a.sessionsOpen, 0, 'member a (one session per client session) still has sessions open');
    assert.ok(a.sessionsOpened > SESSIONS);
  });

  test('the heap is flat after warm-up', () => {
    const r = soak();
    const { heapSlopeMiBPerMin, heapDriftMiB } = r.thresholds;
    const slope = r.memory.heap.slopeMiBPerMin;
    assert.ok(r.memory.heapAfterGc, 'the probe could not force a GC: the heap figures are not the live heap');
    assert.ok(slope !== undefined, `not enough heap samples after warm-up (${r.memory.heap.slopeSamples})`);
    const windowMin = r.memory.windowMs / 60_000;
    assert.ok(slope <= heapSlopeMiBPerMin || slope * windowMin <= heapDriftMiB, `heap slope ${slope.toFixed(2)} MiB/min over ${windowMin.toFixed(2)} min`);
  });
});

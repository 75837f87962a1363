/** The soak's result as text for a person (the JSON is the result itself). */
import { CALL_KINDS } from './load.js';
import type { MemoryFigures, SoakResult } from './soak.js';

const f1 = (n: number | undefined): string => (n === undefined ? '-' : n.toFixed(1));
const f2 = (n: number | undefined): string => (n === undefined ? '-' : n.toFixed(2));

function memoryLine(name: string, m: MemoryFigures): string {
  return `${name.padEnd(5)} baseline ${f1(m.baselineMiB)}  warm ${f1(m.warmMiB)}  load end ${f1(m.loadEndMiB)}  after close ${f1(m.afterCloseMiB)}  max ${f1(m.maxMiB)} MiB;  slope after warm-up ${f2(m.slopeMiBPerMin)} MiB/min (${m.slopeSamples} samples)`;
}

function table(record: Record<string, number>): string[] {
  return Object.entries(record)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `    ${String(v).padStart(7)}  ${k}`);
}

/** The report, one string of lines. */
export function formatReport(r: SoakResult): string {
  const o = r.options;
  const c = r.calls;
  const lines = [
    `mcp-chain soak: ${o.sessions} sessions x ${o.inFlight} calls in flight for ${(o.durationMs / 60_000).toFixed(2)} min (warm-up ${o.warmupMs / 1000} s after the last session connected, call deadline ${o.deadlineMs / 1000} s, seed ${o.seed})`,
    `gateway pid ${r.gateway.pid}: mcp-chain serve --http with members a (HTTP, per session), b (HTTP, shared), c (stdio, shared)`,
    '',
    `calls: ${c.started} started, ${c.ok} ok, ${c.errors} errors, ${c.lost} lost, ${c.misrouted} misrouted, ${c.wrong} wrong (${c.late} late answers); ${c.perSecond.toFixed(0)} calls/s over ${(r.loadMs / 1000).toFixed(0)} s`,
    `  kind      started       ok  errors  lost  misrouted  wrong   p50 ms   p99 ms   max ms`,
    ...CALL_KINDS.map((k) => {
      const b = c.byKind[k];
      return `  ${k.padEnd(8)} ${String(b.started).padStart(8)} ${String(b.ok).padStart(8)} ${String(b.errors).padStart(7)} ${String(b.lost).padStart(5)} ${String(b.misrouted).padStart(10)} ${String(b.wrong).padStart(6)} ${f1(b.p50Ms).padStart(8)} ${f1(b.p99Ms).padStart(8)} ${f1(b.maxMs).padStart(8)}`;
    }),
    `  (cancel: a slow call aborted by the client after 5-200 ms; ok = it ended with its own cancellation and nothing else)`,
    `sampling round trips: ${r.sampling.requests} requests, ${r.sampling.misrouted} to a session without that call; progress: ${r.progress.notifications} notifications, ${r.progress.misrouted} to another call`,
    `answers to calls the client had cancelled or given up: ${r.answersAfterCancel} (and ${r.closedBeforeCancelArrived} "Session closed" to a call whose cancellation was still on its way when the client ended its session)`,
    `sessions: ${r.sessions.opened} opened (the last ${r.rampUpMs === undefined ? '-' : (r.rampUpMs / 1000).toFixed(0)} s after the first), ${r.sessions.closed} closed`,
  ];
  if (c.errors > 0) lines.push('errors by kind:', ...table(c.errorsByKind));
  if (c.misrouted > 0) lines.push('misrouted:', ...table(c.misroutedByKind));
  if (c.wrong > 0) lines.push('wrong:', ...table(c.wrongByKind));
  if (Object.keys(r.sessions.failures).length > 0) lines.push('session failures:', ...table(r.sessions.failures));
  if (Object.keys(r.clientErrors).length > 0) lines.push('client transport errors (onerror):', ...table(r.clientErrors));
  if (Object.keys(r.gateway.logs).length > 0) lines.push('gateway warn/error log lines:', ...table(r.gateway.logs));
  lines.push(
    '',
    `memory of the gateway (heap = heapUsed${r.memory.heapAfterGc ? ' after a full GC, every sample' : ', no forced GC'}; slopes from ${(r.memory.warmEndMs / 1000).toFixed(0)} s, ${o.warmupMs / 1000} s after the last session connected, to the end of the load: ${(r.memory.windowMs / 1000).toFixed(0)} s):`,
    `  ${memoryLine('rss', r.memory.rss)}`,
    `  ${memoryLine('heap', r.memory.heap)}`,
    `descriptors: ${r.fds.baseline} at baseline, ${r.fds.max} at most, ${r.fds.end ?? '-'} at the end${r.fds.settleMs === undefined ? '' : ` (back within ${(r.fds.settleMs / 1000).toFixed(1)} s of the last session closing)`}`,
    `child processes: ${r.children.baseline.length} at baseline, ${r.children.end?.length ?? '-'} at the end, ${Object.keys(r.children.seen).length} seen, ${r.children.leftAfterExit.length} left after the gateway exited`,
    `gateway exit: ${r.gateway.exitedDuringLoad ? `during the load at ${r.gateway.exitedDuringLoad.atMs} ms` : 'stopped by the harness'} (code ${r.gateway.exit?.code ?? '-'}, signal ${r.gateway.exit?.signal ?? '-'})`,
    `members at the end: ${JSON.stringify(r.members)}`,
    '',
    `thresholds: zero lost, misrouted or wrong, no answer after a cancellation; descriptors and child processes back to the baseline; heap after warm-up not growing both faster than ${r.thresholds.heapSlopeMiBPerMin} MiB/min and by more than ${r.thresholds.heapDriftMiB} MiB over the window` +
      (r.thresholds.rssSlopeMiBPerMin === undefined ? ' (RSS slope reported, not judged)' : `; RSS slope <= ${r.thresholds.rssSlopeMiBPerMin} MiB/min`),
  );
  for (const note of r.verdict.notes) lines.push(`note: ${note}`);
  lines.push(r.verdict.pass ? 'PASS' : `FAIL:\n${r.verdict.failures.map((x) => `  - ${x}`).join('\n')}`);
  return lines.join('\n');
}

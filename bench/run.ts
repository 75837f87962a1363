/**
 * The benchmark: every target side by side in one run, repeated in rounds (fresh processes each
 * round) and interleaved within a round (each scenario cut into slices that alternate between the
 * targets), so noise shows as the spread over rounds and ratios compare like with like.
 *
 *   npm run bench                                   # full run (5 rounds), stdio and HTTP targets
 *   npm run bench -- --transport http               # only the HTTP targets (or: stdio)
 *   node --import tsx bench/run.ts --quick          # smoke run (1 round, tiny counts), as in CI
 *   node --import tsx bench/run.ts --rounds 3 --targets none,mw-0 --out /tmp/bench
 *   node --import tsx bench/run.ts --report bench/results/latest.jsonl   # the tables again, no run
 *   node --import tsx bench/run.ts --baseline /tmp/before   # before/after: another checkout's build beside ours
 *
 * Two groups of targets, each against its own baseline: stdio (mcp-chain's stdio front and
 * chains vs "no proxy", with two reference proxies that do nothing useful — a byte pipe and a
 * bare parse/re-serialize pass-through — to show what any separate process costs here) and Streamable HTTP (mcp-chain's HTTP front, supergateway and mcp-proxy,
 * each fronting the same stdio upstream, vs the upstream served by the official SDK's HTTP
 * transport, "SDK direct"). The two competitors are installed on demand into .cache/bench
 * (pinned, not package.json dependencies); `--quick` leaves them out and downloads nothing. A
 * target that cannot run at all (an mcp-chain without `--http`, a competitor that cannot be
 * installed) is skipped with a note in the report instead of failing the run.
 *
 * Writes every measurement as a JSON line to <out>/latest.jsonl and the tables (medians over the
 * rounds, ratios to the group's baseline of the same run, and the issue's targets met or not) to
 * <out>/latest.md and stdout. Progress goes to stderr. Needs `npm run build` (dist/).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensurePackages, packageDir } from '../scripts/lib/cache-install.mjs';
import {
  clockTicksPerSecond,
  coldStart,
  cpuTimes,
  echo,
  initialize,
  killAll,
  listTools,
  median,
  now,
  PORT,
  TargetUnavailable,
  treeRssMiB,
  descendants,
  HttpClient,
  type HttpSession,
  payload,
  peakRss,
  percentile,
  rssMiB,
  sequential,
  throughput,
  connect,
  type RpcClient,
  type TargetSpec,
} from './load-client.js';
import { GATEWAY_SCENARIOS, SCENARIOS } from './scenarios.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const upstream = join(root, 'bench', 'upstream.mjs');
const upstreamHttp = join(root, 'bench', 'upstream-http.mjs');
const passthrough = join(root, 'bench', 'passthrough.mjs');
const bytePipe = join(root, 'bench', 'byte-pipe.mjs');
const TOOLS = 500;

// ---------------------------------------------------------------------------------------------
// Targets

/** The competitors of the HTTP front, benchmark-only, pinned; installed on demand into .cache/bench. */
export const COMPETITORS = { supergateway: '4.0.0', 'mcp-proxy': '6.7.19' } as const;
const competitorIds: readonly string[] = ['supergateway', 'mcp-proxy'];
const benchModules = join(root, '.cache', 'bench');

/** Baseline of each transport group: ratios in its table are to this target. */
const BASE = { stdio: 'none', http: 'sdk-http' } as const;

/** The mcp-chain targets repeated for another build (`--baseline <checkout>`), to compare builds in one run. */
const BASELINE_TARGETS = ['mw-0', 'noop-10', 'real', 'policy', 'agg-3', 'chain-http'];

function targets(logFile: string, baseline?: string): TargetSpec[] {
  const ours = ownTargets(logFile);
  if (baseline === undefined) return ours;
  const elsewhere = (arg: string): string =>
    arg.startsWith(join(root, 'dist')) || arg.startsWith(join(root, 'bench', 'chains')) ? join(baseline, arg.slice(root.length)) : arg;
  const copies = ours
    .filter((t) => BASELINE_TARGETS.includes(t.id))
    .map((t): TargetSpec => ({ ...t, id: `${t.id}@base`, label: `${t.label} (baseline)`, args: t.args.map(elsewhere) }));
  const out: TargetSpec[] = [];
  for (const t of ours) {
    out.push(t);
    const copy = copies.find((c) => c.id === `${t.id}@base`);
    if (copy) out.push(copy);
  }
  return out;
}

function ownTargets(logFile: string): TargetSpec[] {
  const node = process.execPath;
  const env = { ...process.env, BENCH_TOOLS: String(TOOLS), BENCH_LOG_FILE: logFile } as Record<string, string>;
  delete env.NODE_TEST_CONTEXT; // when run from the test runner: the children are not tests
  // The proxy gives its upstream a minimal environment: pass the tool count explicitly.
  const proxiedWith = (tools: number): string[] => ['--log-level', 'silent', '--env', `BENCH_TOOLS=${tools}`, '--', node, upstream];
  const proxied = proxiedWith(TOOLS);
  const chainFile = (name: string): string[] => [cli, 'run', join(root, 'bench', 'chains', `${name}.ts`), ...proxied];
  const competitor = (name: string, bin: string): string => join(packageDir(benchModules, name), bin);
  return [
    { id: 'none', label: 'no proxy', proxy: false, transport: 'stdio', command: node, args: [upstream], env },
    // Reference points, not products: what the targets ask of any proxy that is a process of its
    // own on this machine. The byte pipe only copies bytes; the bare pass-through also parses and
    // re-serializes every line (the issue's "bare Node pass-through"), with no MCP logic at all.
    { id: 'pipe', label: 'byte pipe (ref.)', proxy: true, transport: 'stdio', command: node, args: [bytePipe, '--', node, upstream], env },
    { id: 'bare', label: 'bare pass-through (ref.)', proxy: true, transport: 'stdio', command: node, args: [passthrough, '--', node, upstream], env },
    { id: 'mw-0', label: 'mcp-chain, 0 mw', proxy: true, transport: 'stdio', command: node, args: [cli, ...proxied], env },
    // Issue 15: a 2026-07-28 client through the same chain, in front of the same session-era
    // upstream: every request goes through the era bridge (envelope, handshake, resultType).
    { id: 'modern', label: 'mcp-chain, 0 mw, 2026-07-28 client', proxy: true, transport: 'stdio', command: node, args: [cli, ...proxied], env, era: 'modern' },
    // The gateway (issue 10): three copies of the upstream behind one aggregate, beside the chain
    // in front of one, so that what a call through the aggregate costs compares in the same rounds;
    // and one copy behind an aggregate, a process that loads the same code (a chain file, the
    // aggregate), which is what the memory of the two extra members is measured against.
    { id: 'agg-1', label: 'aggregate of 1', proxy: true, transport: 'stdio', command: node, args: chainFile('aggregate-1'), env },
    { id: 'agg-3', label: 'aggregate of 3', proxy: true, transport: 'stdio', command: node, args: chainFile('aggregate-3'), env, members: 3, toolPrefix: 'a__' },
    // Reference for the merged list: the same chain relaying one server's list of as many tools
    // (3 × 500), i.e. what the bytes of the merged list cost the proxy, the pipes and the client.
    { id: 'one-1500', label: '0 mw, one server of 1500 (ref.)', proxy: true, transport: 'stdio', command: node, args: [cli, ...proxiedWith(3 * TOOLS)], env, tools: 3 * TOOLS },
    { id: 'noop-1', label: '1 no-op mw', proxy: true, transport: 'stdio', command: node, args: chainFile('noop-1'), env },
    { id: 'noop-10', label: '10 no-op mw', proxy: true, transport: 'stdio', command: node, args: chainFile('noop-10'), env },
    { id: 'real', label: 'filter+rename+log', proxy: true, transport: 'stdio', command: node, args: chainFile('real'), env },
    // Issue 11: a realistic policy stack (audit + redact + rateLimit + validate) against the bare chain.
    { id: 'policy', label: 'validate+rateLimit+redact+audit', proxy: true, transport: 'stdio', command: node, args: chainFile('policy'), env },
    // Streamable HTTP, all in front of the same stdio upstream (but the baseline, which is it).
    { id: 'sdk-http', label: 'SDK direct (HTTP)', proxy: false, transport: 'http', url: 'printed', command: node, args: [upstreamHttp], env },
    {
      id: 'chain-http',
      label: 'mcp-chain --http',
      proxy: true,
      transport: 'http',
      url: 'printed', // its "listening" log line holds the URL: the log level stays at the default (info)
      command: node,
      args: [cli, '--http', '127.0.0.1:0', '--env', `BENCH_TOOLS=${TOOLS}`, '--', node, upstream],
      env,
    },
    {
      id: 'supergateway',
      label: `supergateway ${COMPETITORS.supergateway}`,
      proxy: true,
      transport: 'http',
      url: 'port',
      command: node,
      // --stdio takes one shell command line; logging off (its "info" logs every request).
      args: [competitor('supergateway', 'dist/index.js'), '--stdio', `${node} ${upstream}`, '--outputTransport', 'streamableHttp', '--stateful', '--port', PORT, '--logLevel', 'none'],
      env,
    },
    {
      id: 'mcp-proxy',
      label: `mcp-proxy ${COMPETITORS['mcp-proxy']}`,
      proxy: true,
      transport: 'http',
      url: 'port',
      command: node,
      args: [competitor('mcp-proxy', 'dist/bin/mcp-proxy.mjs'), '--host', '127.0.0.1', '--port', PORT, '--server', 'stream', '--', node, upstream],
      env,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Scenarios
//
// Each round starts a fresh process per target and keeps them all open side by side (an idle
// target sleeps in epoll and costs nothing). Every scenario is cut into slices, and the slices
// of the targets alternate (the order rotating each time), so a change in the machine's load
// during the run lands on every target alike instead of on whichever happened to run then.

/** `slices` × `per` calls. */
interface Sliced {
  slices: number;
  per: number;
}

interface Counts {
  /** Cold starts per target per round (the last one's process serves the round's scenarios). */
  cold: number;
  warmup: number;
  echoSeq: Sliced;
  throughput: Record<1 | 16 | 64, Sliced>;
  payload100k: Sliced;
  payload1m: Sliced;
  toolsList: Sliced;
  /** Extra idle sessions opened on an HTTP target to measure the memory each costs. */
  idleSessions: number;
  settleMs: number;
}

const FULL: Counts = {
  cold: 3,
  warmup: 500,
  echoSeq: { slices: 10, per: 400 },
  throughput: { 1: { slices: 6, per: 500 }, 16: { slices: 8, per: 1000 }, 64: { slices: 4, per: 6000 } },
  payload100k: { slices: 8, per: 5 },
  payload1m: { slices: 5, per: 4 },
  toolsList: { slices: 8, per: 5 },
  idleSessions: 50,
  settleMs: 200,
};

const QUICK: Counts = {
  cold: 1,
  warmup: 5,
  echoSeq: { slices: 2, per: 15 },
  throughput: { 1: { slices: 1, per: 30 }, 16: { slices: 1, per: 64 }, 64: { slices: 1, per: 128 } },
  payload100k: { slices: 1, per: 2 },
  payload1m: { slices: 1, per: 2 },
  toolsList: { slices: 1, per: 2 },
  idleSessions: 3,
  settleMs: 20,
};

type Scenario = (typeof SCENARIOS)[number] | (typeof GATEWAY_SCENARIOS)[number];

/** The tools/list scenario of a target: one upstream's 500 tools, the merged list of an aggregate's members, or one upstream's 1500. */
function listScenario(spec: TargetSpec): Scenario {
  const members = spec.members ?? 1;
  const tools = spec.tools ?? TOOLS;
  if (tools === TOOLS && members === 1) return 'tools_list_500';
  if (tools === TOOLS && members === 3) return 'tools_list_3x500';
  if (tools === 3 * TOOLS && members === 1) return 'tools_list_1500';
  throw new Error(`${spec.id}: no tools/list scenario for ${members} member(s) of ${tools} tools`);
}

/** How many tools a target's tools/list holds. */
const listed = (spec: TargetSpec): number => (spec.members ?? 1) * (spec.tools ?? TOOLS);

type Metrics = Record<string, number | null>;

interface Row {
  type: 'measurement';
  round: number;
  target: string;
  scenario: Scenario;
  /** Samples behind the figures (calls, or processes for cold start). */
  n: number;
  metrics: Metrics;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const round2 = (x: number): number => Math.round(x * 100) / 100;
const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const descendantsCount = (pid: number): number => descendants(pid).length;
const rotate = <T>(items: readonly T[], by: number): T[] => {
  const k = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
};

/** One target's open session in a round, and what its slices have added up to so far. */
interface Live {
  spec: TargetSpec;
  client: RpcClient;
  /** One echo call, under the name the tool has through this target. */
  echo: () => Promise<void>;
  durations: number[];
  micros: number;
  cpuUser: number;
  cpuSystem: number;
  peakMiB: number;
}

/** CPU per call of a proxy over a scenario's slices (null for "no proxy": we account the proxy only). */
function cpuOf(live: Live, calls: number): Metrics {
  if (!live.spec.proxy) return { cpu_us_per_call: null, cpu_sys_us_per_call: null };
  return {
    cpu_us_per_call: round2((live.cpuUser + live.cpuSystem) / calls),
    cpu_sys_us_per_call: round2(live.cpuSystem / calls),
  };
}

/**
 * Runs `slice` for every target, `slices` times, alternating targets; each live's durations, wall
 * time and CPU (of the target process, read around each slice) add up over its slices.
 */
async function interleaved(lives: readonly Live[], slices: number, slice: (live: Live) => Promise<void>): Promise<void> {
  for (const live of lives) {
    live.durations = [];
    live.micros = 0;
    live.cpuUser = 0;
    live.cpuSystem = 0;
  }
  for (let i = 0; i < slices; i++) {
    for (const live of rotate(lives, i)) {
      const before = live.spec.proxy ? cpuTimes(live.client.pid) : undefined;
      const t0 = now();
      await slice(live);
      live.micros += Number(now() - t0) / 1000;
      if (before) {
        const after = cpuTimes(live.client.pid);
        live.cpuUser += after.user - before.user;
        live.cpuSystem += after.system - before.system;
      }
    }
  }
}

async function runRound(specs: readonly TargetSpec[], round: number, counts: Counts, emit: (row: Row) => void, phase: (name: string) => void): Promise<void> {
  const order = rotate(specs, round - 1);
  const row = (live: Live, scenario: Scenario, n: number, metrics: Metrics): void =>
    emit({ type: 'measurement', round, target: live.spec.id, scenario, n, metrics });
  const lives: Live[] = [];
  try {
    phase('cold');
    const colds = new Map<string, number[]>();
    for (let i = 0; i < counts.cold; i++) {
      for (const spec of rotate(order, i)) {
        const { client, ms } = await coldStart(spec);
        colds.set(spec.id, [...(colds.get(spec.id) ?? []), ms]);
        if (i < counts.cold - 1) await client.close();
        else lives.push({ spec, client, echo: echoThrough(spec, client), durations: [], micros: 0, cpuUser: 0, cpuSystem: 0, peakMiB: 0 });
      }
    }
    for (const live of lives) {
      const ms = colds.get(live.spec.id) ?? [];
      row(live, 'cold_start', ms.length, { ms: round2(median(ms)), min_ms: round2(Math.min(...ms)) });
    }

    await sleep(counts.settleMs);
    for (const live of lives) {
      const pid = live.client.pid;
      // The process we started alone, and with the servers it started (an aggregate: one per member).
      row(live, 'rss_idle', 1, { mib: round2(rssMiB(pid)), tree_mib: round2(treeRssMiB(pid)), processes: 1 + descendantsCount(pid) });
    }

    // HTTP only: what one more idle session costs, the target process alone and with the
    // processes it started (a proxy that spawns an upstream per session pays one each).
    phase('sessions');
    for (const live of lives) {
      if (live.client instanceof HttpClient) row(live, 'idle_sessions', counts.idleSessions, await idleSessions(live.client, counts));
    }

    for (const live of lives) await sequential(counts.warmup, live.echo);
    // Idle again after the first calls: what a session holds once used (an aggregate has listed
    // its members' tools by then, to route the calls).
    await sleep(counts.settleMs);
    for (const live of lives) row(live, 'rss_warm', 1, { mib: round2(rssMiB(live.client.pid)) });

    phase('echo');
    const { slices, per } = counts.echoSeq;
    await interleaved(lives, slices, async (live) => {
      live.durations.push(...(await sequential(per, live.echo)));
    });
    for (const live of lives) {
      const d = live.durations;
      row(live, 'echo_seq', d.length, {
        p50_us: round2(percentile(d, 50)),
        p90_us: round2(percentile(d, 90)),
        p99_us: round2(percentile(d, 99)),
        mean_us: round2(d.reduce((a, b) => a + b, 0) / d.length),
        ...cpuOf(live, d.length),
      });
    }

    for (const k of [1, 16, 64] as const) {
      phase(`x${k}`);
      const { slices, per } = counts.throughput[k];
      for (const live of lives) live.peakMiB = 0;
      await interleaved(lives, slices, async (live) => {
        const run = (): Promise<number> => throughput(k, per, live.echo);
        if (k !== 64) await run();
        else live.peakMiB = Math.max(live.peakMiB, (await peakRss(live.client.pid, 10, run)).peakMiB);
      });
      for (const live of lives) {
        const calls = slices * per;
        row(live, `throughput_${k}`, calls, { calls_per_s: Math.round(calls / (live.micros / 1e6)), ...cpuOf(live, calls) });
        if (k === 64) row(live, 'rss_load', slices, { mib: round2(live.peakMiB) });
      }
    }

    // Each target's own scenario and call: through an aggregate, its tools under their merged
    // names and the merged list of every member's tools (in the same slices as the others').
    const payloadOf = (kib: number) => (live: Live) => payload(live.client, kib, `${live.spec.toolPrefix ?? ''}payload`);
    const sized = [
      ['100k', counts.payload100k, (): Scenario => 'payload_100k', payloadOf(100)],
      ['1m', counts.payload1m, (): Scenario => 'payload_1m', payloadOf(1024)],
      ['tools_list', counts.toolsList, listScenario, (live: Live) => listTools(live.client, listed(live.spec))],
    ] as const;
    for (const [name, { slices, per }, scenarioOf, call] of sized) {
      phase(name);
      for (const live of lives) await sequential(2, () => call(live));
      await interleaved(lives, slices, async (live) => {
        live.durations.push(...(await sequential(per, () => call(live))));
      });
      for (const live of lives) {
        row(live, scenarioOf(live.spec), live.durations.length, { ms: round2(median(live.durations) / 1000), ...cpuOf(live, live.durations.length) });
      }
    }
  } finally {
    await Promise.all(lives.map((live) => live.client.close()));
  }
}

/** One echo call through the target, the tool under the name it has there (created once: the hot loop only calls it). */
function echoThrough(spec: TargetSpec, client: RpcClient): () => Promise<void> {
  const tool = `${spec.toolPrefix ?? ''}echo`;
  return () => echo(client, 'hello', tool);
}

/** Opens `counts.idleSessions` more initialized sessions and leaves them idle; RSS added per session, then closes them. */
async function idleSessions(client: HttpClient, counts: Counts): Promise<Metrics> {
  const n = counts.idleSessions;
  const pid = client.pid;
  const before = rssMiB(pid);
  const beforeTree = treeRssMiB(pid);
  const processesBefore = descendantsCount(pid);
  const sessions: HttpSession[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const session = client.openSession();
      sessions.push(session);
      await initialize(session);
    }
    await sleep(counts.settleMs);
    const after = rssMiB(pid);
    const afterTree = treeRssMiB(pid);
    return {
      proxy_mib_per_session: round3((after - before) / n),
      tree_mib_per_session: round3((afterTree - beforeTree) / n),
      processes_per_session: round2((descendantsCount(pid) - processesBefore) / n),
    };
  } finally {
    for (const session of sessions) await client.closeSession(session);
  }
}

// ---------------------------------------------------------------------------------------------
// Tables

interface MetricDef {
  scenario: Scenario;
  key: string;
  label: string;
  digits: number;
  /** How the cell compares with "no proxy": a ratio, a difference, or not at all. */
  compare: 'ratio' | 'delta' | 'none';
  unit: string;
}

const METRICS: MetricDef[] = [
  { scenario: 'cold_start', key: 'ms', label: 'cold start → initialize result', unit: 'ms', digits: 1, compare: 'delta' },
  { scenario: 'echo_seq', key: 'p50_us', label: 'echo p50', unit: 'µs', digits: 0, compare: 'ratio' },
  { scenario: 'echo_seq', key: 'p90_us', label: 'echo p90', unit: 'µs', digits: 0, compare: 'ratio' },
  { scenario: 'echo_seq', key: 'p99_us', label: 'echo p99', unit: 'µs', digits: 0, compare: 'ratio' },
  { scenario: 'echo_seq', key: 'cpu_us_per_call', label: 'proxy CPU per echo (sequential)', unit: 'µs', digits: 1, compare: 'none' },
  { scenario: 'echo_seq', key: 'cpu_sys_us_per_call', label: '… of which kernel (sys)', unit: 'µs', digits: 1, compare: 'none' },
  { scenario: 'throughput_1', key: 'calls_per_s', label: 'throughput, 1 in flight', unit: 'calls/s', digits: 0, compare: 'ratio' },
  { scenario: 'throughput_16', key: 'calls_per_s', label: 'throughput, 16 in flight', unit: 'calls/s', digits: 0, compare: 'ratio' },
  { scenario: 'throughput_64', key: 'calls_per_s', label: 'throughput, 64 in flight', unit: 'calls/s', digits: 0, compare: 'ratio' },
  { scenario: 'throughput_64', key: 'cpu_us_per_call', label: 'proxy CPU per echo (64 in flight)', unit: 'µs', digits: 1, compare: 'none' },
  { scenario: 'payload_1m', key: 'cpu_us_per_call', label: 'proxy CPU per 1 MiB result', unit: 'µs', digits: 0, compare: 'none' },
  { scenario: 'tools_list_500', key: 'cpu_us_per_call', label: 'proxy CPU per 500-tool list', unit: 'µs', digits: 0, compare: 'none' },
  { scenario: 'payload_100k', key: 'ms', label: '100 KiB result', unit: 'ms', digits: 2, compare: 'ratio' },
  { scenario: 'payload_1m', key: 'ms', label: '1 MiB result', unit: 'ms', digits: 2, compare: 'ratio' },
  { scenario: 'tools_list_3x500', key: 'cpu_us_per_call', label: 'proxy CPU per merged 3 × 500-tool list', unit: 'µs', digits: 0, compare: 'none' },
  { scenario: 'tools_list_1500', key: 'cpu_us_per_call', label: 'proxy CPU per 1500-tool list', unit: 'µs', digits: 0, compare: 'none' },
  { scenario: 'tools_list_500', key: 'ms', label: 'tools/list, 500 tools', unit: 'ms', digits: 2, compare: 'ratio' },
  { scenario: 'tools_list_3x500', key: 'ms', label: 'tools/list, 3 × 500 tools merged', unit: 'ms', digits: 2, compare: 'none' },
  { scenario: 'tools_list_1500', key: 'ms', label: 'tools/list, 1500 tools', unit: 'ms', digits: 2, compare: 'none' },
  { scenario: 'rss_idle', key: 'mib', label: 'RSS idle (started process)', unit: 'MiB', digits: 1, compare: 'none' },
  { scenario: 'rss_idle', key: 'tree_mib', label: '… with the processes it started', unit: 'MiB', digits: 1, compare: 'none' },
  { scenario: 'rss_warm', key: 'mib', label: 'RSS idle after the warm-up calls', unit: 'MiB', digits: 1, compare: 'none' },
  { scenario: 'rss_load', key: 'mib', label: 'RSS peak, 64 in flight', unit: 'MiB', digits: 1, compare: 'none' },
  { scenario: 'idle_sessions', key: 'proxy_mib_per_session', label: 'RSS per extra idle session, the process alone', unit: 'MiB', digits: 2, compare: 'none' },
  { scenario: 'idle_sessions', key: 'tree_mib_per_session', label: '… with the processes it started', unit: 'MiB', digits: 2, compare: 'none' },
  { scenario: 'idle_sessions', key: 'processes_per_session', label: 'processes started per session', unit: 'count', digits: 0, compare: 'none' },
];

/**
 * The rounds summed up. Values are medians over the rounds; comparisons between two targets are
 * paired: the median over the rounds of the ratio (or difference) within each round, since both
 * sides of one round ran interleaved under the same conditions.
 */
class Stats {
  /** target → "scenario.key" → round → value */
  readonly #values = new Map<string, Map<string, Map<number, number>>>();

  constructor(rows: readonly Row[]) {
    for (const row of rows) {
      let byKey = this.#values.get(row.target);
      if (!byKey) this.#values.set(row.target, (byKey = new Map()));
      for (const [key, value] of Object.entries(row.metrics)) {
        if (value === null) continue;
        const k = `${row.scenario}.${key}`;
        let byRound = byKey.get(k);
        if (!byRound) byKey.set(k, (byRound = new Map()));
        byRound.set(row.round, value);
      }
    }
  }

  #rounds(target: string, key: string): Map<number, number> {
    return this.#values.get(target)?.get(key) ?? new Map<number, number>();
  }

  /** Median over the rounds; undefined when never measured (or null, as CPU of "no proxy"). */
  value(target: string, key: string): number | undefined {
    const values = [...this.#rounds(target, key).values()];
    return values.length === 0 ? undefined : median(values);
  }

  /** Half the range over the rounds relative to the median: how much the rounds disagree. */
  spread(target: string, key: string): number | undefined {
    const values = [...this.#rounds(target, key).values()];
    const mid = median(values);
    return values.length < 2 || mid === 0 ? undefined : (Math.max(...values) - Math.min(...values)) / 2 / Math.abs(mid);
  }

  /** Median over the rounds of target ÷ base within the round (of the base's `baseKey`, by default the same key). */
  ratio(target: string, base: string, key: string, baseKey = key): number | undefined {
    return this.#paired(target, base, key, baseKey, (a, b) => (b === 0 ? undefined : a / b));
  }

  /** Median over the rounds of target − base within the round. */
  delta(target: string, base: string, key: string): number | undefined {
    return this.#paired(target, base, key, key, (a, b) => a - b);
  }

  #paired(target: string, base: string, key: string, baseKey: string, op: (a: number, b: number) => number | undefined): number | undefined {
    const bases = this.#rounds(base, baseKey);
    const results: number[] = [];
    for (const [round, value] of this.#rounds(target, key)) {
      const b = bases.get(round);
      const r = b === undefined ? undefined : op(value, b);
      if (r !== undefined) results.push(r);
    }
    return results.length === 0 ? undefined : median(results);
  }
}

const fmt = (x: number, digits: number): string => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

interface Check {
  label: string;
  /** The value shown and whether it meets the target, for one proxy target; undefined: not applicable. */
  judge(stats: Stats, target: string): { shown: string; met: boolean } | undefined;
}

const ratioCheck = (
  label: string,
  key: string,
  limit: number,
  { atLeast = false, base = 'none', baseKey = key, only }: { atLeast?: boolean; base?: string; baseKey?: string; only?: string | readonly string[] } = {},
): Check => ({
  label,
  judge(stats, target) {
    if (only !== undefined && (typeof only === 'string' ? target !== only : !only.includes(target))) return undefined;
    const ratio = stats.ratio(target, base, key, baseKey);
    if (ratio === undefined) return undefined;
    return { shown: `${fmt(ratio, 2)}×`, met: atLeast ? ratio >= limit : ratio <= limit };
  },
});

const limitCheck = (label: string, key: string, limit: number, unit: string, digits: number): Check => ({
  label,
  judge(stats, target) {
    const value = stats.value(target, key);
    return value === undefined ? undefined : { shown: `${fmt(value, digits)} ${unit}`, met: value <= limit };
  },
});

/** The stdio targets that are mcp-chain (not a reference proxy), for the checks against the byte pipe. */
const PRODUCT_IDS = ['mw-0', 'noop-1', 'noop-10', 'real', 'policy', 'agg-1', 'agg-3', 'one-1500'] as const;

/** The aggregates with extra members, and how many members they have (for the memory per extra member). */
const AGGREGATES: Readonly<Record<string, number>> = { 'agg-3': 3 };
const AGGREGATE_IDS = ['agg-1', 'agg-3'] as const;
/** "Idle memory per extra member stays near the cost of its connection": what one more stdio connection may cost the proxy. */
const MEMBER_MIB = 1;

/** What each member past the first adds to `key` (MiB), against the aggregate of 1 (the same code loaded: a chain file, the aggregate), else the single-server chain. */
const perMemberCheck = (label: string, key: string): Check => ({
  label: `${label} ≤ ${MEMBER_MIB} MiB`,
  judge(stats, target) {
    const members = AGGREGATES[target];
    if (members === undefined) return undefined;
    const base = stats.value('agg-1', key) === undefined ? 'mw-0' : 'agg-1';
    const delta = stats.delta(target, base, key);
    if (delta === undefined) return undefined;
    const each = delta / (members - 1);
    return { shown: `${fmt(each, 2)} MiB (vs ${base})`, met: each <= MEMBER_MIB };
  },
});

const CHECKS: Check[] = [
  ratioCheck('echo p50 ≤ 2.0× no proxy', 'echo_seq.p50_us', 2.0),
  ratioCheck('echo p99 ≤ 2.5× no proxy', 'echo_seq.p99_us', 2.5),
  limitCheck('proxy CPU ≤ 60 µs per echo call (sequential)', 'echo_seq.cpu_us_per_call', 60, 'µs', 1),
  limitCheck('proxy CPU ≤ 60 µs per echo call (64 in flight)', 'throughput_64.cpu_us_per_call', 60, 'µs', 1),
  ratioCheck('throughput at 16 in flight ≥ 0.75× no proxy', 'throughput_16.calls_per_s', 0.75, { atLeast: true }),
  ratioCheck('10 no-op mw ≤ 1.10× 0 mw per call (proxy CPU, sequential)', 'echo_seq.cpu_us_per_call', 1.1, { base: 'mw-0', only: 'noop-10' }),
  ratioCheck('10 no-op mw ≤ 1.10× 0 mw per call (proxy CPU, 64 in flight)', 'throughput_64.cpu_us_per_call', 1.1, { base: 'mw-0', only: 'noop-10' }),
  ratioCheck('10 no-op mw ≤ 1.10× 0 mw per call (echo p50)', 'echo_seq.p50_us', 1.1, { base: 'mw-0', only: 'noop-10' }),
  // Issue 10: the gateway against the chain in front of one server, in the same rounds.
  // (The bar is the aggregate of 3's; the aggregate of 1 shows what the aggregate itself costs.)
  ratioCheck('aggregate ≤ 1.10× single-server chain (echo p50)', 'echo_seq.p50_us', 1.1, { base: 'mw-0', only: AGGREGATE_IDS }),
  ratioCheck('aggregate ≤ 1.10× single-server chain (proxy CPU per echo, sequential)', 'echo_seq.cpu_us_per_call', 1.1, { base: 'mw-0', only: AGGREGATE_IDS }),
  ratioCheck('aggregate ≤ 1.10× single-server chain (proxy CPU per echo, 64 in flight)', 'throughput_64.cpu_us_per_call', 1.1, { base: 'mw-0', only: AGGREGATE_IDS }),
  ratioCheck('merged 3 × 500-tool tools/list ≤ 2× single-server chain\'s 500', 'tools_list_3x500.ms', 2, { base: 'mw-0', baseKey: 'tools_list_500.ms', only: 'agg-3' }),
  ratioCheck('(ref.) one server\'s 1500-tool tools/list against the chain\'s 500 (same bar, 2×)', 'tools_list_1500.ms', 2, { base: 'mw-0', baseKey: 'tools_list_500.ms', only: 'one-1500' }),
  // Issue 11: the policy stack against the bare chain, in the same rounds.
  ratioCheck('policy stack ≤ 1.5× 0 mw (proxy CPU per echo, sequential)', 'echo_seq.cpu_us_per_call', 1.5, { base: 'mw-0', only: 'policy' }),
  ratioCheck('policy stack ≤ 1.5× 0 mw (proxy CPU per echo, 64 in flight)', 'throughput_64.cpu_us_per_call', 1.5, { base: 'mw-0', only: 'policy' }),
  ratioCheck('(ref.) policy stack against 0 mw (echo p50)', 'echo_seq.p50_us', 1.5, { base: 'mw-0', only: 'policy' }),
  perMemberCheck('idle proxy RSS per extra member', 'rss_idle.mib'),
  perMemberCheck('… after the warm-up calls (the members\' tools listed)', 'rss_warm.mib'),
  ratioCheck('1 MiB result ≤ 1.3× no proxy', 'payload_1m.ms', 1.3),
  ratioCheck('500-tool tools/list ≤ 1.5× no proxy', 'tools_list_500.ms', 1.5),
  // Issue 14: mid-size messages, and the small echo against the floor of a proxy process.
  ratioCheck('100 KiB result ≤ 1.5× no proxy', 'payload_100k.ms', 1.5),
  ratioCheck('echo p50 ≤ 1.25× byte pipe', 'echo_seq.p50_us', 1.25, { base: 'pipe', only: PRODUCT_IDS }),
  ratioCheck('throughput at 16 in flight ≥ 0.9× byte pipe', 'throughput_16.calls_per_s', 0.9, { atLeast: true, base: 'pipe', only: PRODUCT_IDS }),
  limitCheck('idle proxy RSS ≤ 80 MiB', 'rss_idle.mib', 80, 'MiB', 1),
  {
    label: 'cold start adds ≤ 150 ms',
    judge(stats, target) {
      const delta = stats.delta(target, 'none', 'cold_start.ms');
      return delta === undefined ? undefined : { shown: `${delta < 0 ? '−' : '+'}${fmt(Math.abs(delta), 0)} ms`, met: delta <= 150 };
    },
  },
];

const HTTP_CHECKS: Check[] = [
  ratioCheck('echo p50 ≤ 1.2× SDK direct', 'echo_seq.p50_us', 1.2, { base: BASE.http, only: 'chain-http' }),
  ratioCheck('throughput at 16 in flight ≥ 4× supergateway', 'throughput_16.calls_per_s', 4, { atLeast: true, base: 'supergateway', only: 'chain-http' }),
  ratioCheck('throughput at 16 in flight ≥ 4× mcp-proxy', 'throughput_16.calls_per_s', 4, { atLeast: true, base: 'mcp-proxy', only: 'chain-http' }),
  limitCheck('≤ 1 MiB proxy RSS per extra idle session', 'idle_sessions.proxy_mib_per_session', 1, 'MiB', 2),
];

const GROUP_TITLE = {
  stdio: 'stdio front → stdio upstream, against no proxy',
  http: 'Streamable HTTP front → stdio upstream, against the SDK serving the same upstream over HTTP ("SDK direct")',
} as const;

function tables(specs: readonly TargetSpec[], rows: readonly Row[]): string {
  const stats = new Stats(rows);
  const parts: string[] = [];
  for (const group of ['stdio', 'http'] as const) {
    const members = specs.filter((s) => s.transport === group);
    if (members.length === 0) continue;
    parts.push(`### ${GROUP_TITLE[group]}`, '', groupTables(stats, members, BASE[group], group === 'stdio' ? CHECKS : HTTP_CHECKS), '');
  }
  return parts.join('\n').trimEnd();
}

function groupTables(stats: Stats, specs: readonly TargetSpec[], base: string, checks: readonly Check[]): string {
  const lines: string[] = [];
  lines.push(`| metric | ${specs.map((s) => s.label).join(' | ')} |`);
  lines.push(`|---|${specs.map(() => '---:').join('|')}|`);
  for (const def of METRICS) {
    const k = `${def.scenario}.${def.key}`;
    if (specs.every((spec) => stats.value(spec.id, k) === undefined)) continue; // e.g. idle sessions of stdio targets
    const cells = specs.map((spec) => {
      const value = stats.value(spec.id, k);
      if (value === undefined) return '–';
      let cell = fmt(value, def.digits);
      const spread = stats.spread(spec.id, k);
      if (spread !== undefined) cell += ` ±${fmt(spread * 100, 0)}%`;
      if (spec.id !== base) {
        const ratio = def.compare === 'ratio' ? stats.ratio(spec.id, base, k) : undefined;
        const delta = def.compare === 'delta' ? stats.delta(spec.id, base, k) : undefined;
        if (ratio !== undefined) cell += ` (${fmt(ratio, 2)}×)`;
        if (delta !== undefined) cell += ` (${delta < 0 ? '−' : '+'}${fmt(Math.abs(delta), 0)})`;
      }
      return cell;
    });
    lines.push(`| ${def.label} (${def.unit}) | ${cells.join(' | ')} |`);
  }
  const proxies = specs.filter((s) => s.proxy);
  if (proxies.length === 0) return lines.join('\n');
  lines.push('', '**Targets** (✅ met, ❌ not met; ratios paired within rounds, as above)', '');
  lines.push(`| target | ${proxies.map((s) => s.label).join(' | ')} |`);
  lines.push(`|---|${proxies.map(() => ':---:').join('|')}|`);
  for (const check of checks) {
    const cells = proxies.map((spec) => {
      const verdict = check.judge(stats, spec.id);
      return verdict === undefined ? '' : `${verdict.met ? '✅' : '❌'} ${verdict.shown}`;
    });
    lines.push(`| ${check.label} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

function gitCommit(dir: string): Record<string, string> {
  try {
    return { commit: execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() };
  } catch {
    return {};
  }
}

function packageVersion(dir: string): string {
  try {
    const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

interface Meta {
  type: 'meta';
  started: string;
  quick: boolean;
  rounds: number;
  targets: string[];
  scenarios: readonly string[];
  node: string;
  cpus: number;
  cpuModel: string;
  clockTicks: number;
  /** Targets asked for but not run, with the reason (e.g. an mcp-chain without `--http`). */
  skipped?: Record<string, string>;
  /** Versions of what was measured beside Node: mcp-chain, the competitors. */
  versions?: Record<string, string>;
}

function render(meta: Meta, specs: readonly TargetSpec[], rows: readonly Row[], seconds: number | undefined): string {
  return [
    `## mcp-chain benchmark — ${meta.started}`,
    '',
    `${meta.quick ? 'quick smoke run, ' : ''}${meta.rounds} round(s), targets interleaved in slices within each round. ` +
      "Cells: median over rounds, ±half its range over rounds, (ratio to the group's baseline: median over rounds of the ratio within the round; cold start: the difference). " +
      `Node ${meta.node}, ${meta.cpus} CPU(s) (${meta.cpuModel})${seconds === undefined ? '' : `, ${fmt(seconds, 0)} s`}. ` +
      `Upstream: bench/upstream.mjs (${TOOLS} tools)` +
      (meta.versions ? `; ${Object.entries(meta.versions).map(([name, version]) => `${name} ${version}`).join(', ')}.` : '.'),
    ...(meta.quick ? ['', '_Quick mode proves the benchmark runs; its counts are far too small for the figures to mean anything._'] : []),
    ...Object.entries(meta.skipped ?? {}).map(([id, reason]) => `\n**Skipped: ${id}** — ${reason}`),
    '',
    tables(specs, rows),
    '',
  ].join('\n');
}

/** The tables again from a JSONL written by an earlier run (`--report <file>`); nothing is run. */
function report(file: string): string {
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '');
  const records = lines.map((line) => JSON.parse(line) as { type?: unknown; seconds?: unknown });
  const meta = records.find((r): r is Meta => r.type === 'meta');
  if (!meta) throw new Error(`${file} has no meta line: not a bench JSONL`);
  const rows = records.filter((r): r is Row => r.type === 'measurement');
  const done = records.find((r) => r.type === 'done');
  const all = targets('', root); // with the @base copies, for their labels

  const specs = meta.targets.map(
    (id): TargetSpec => all.find((t) => t.id === id) ?? { id, label: id, proxy: true, transport: 'stdio', command: '', args: [], env: {} },
  );
  return render(meta, specs, rows, typeof done?.seconds === 'number' ? done.seconds : undefined);
}


async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      targets: { type: 'string' },
      out: { type: 'string' },
      report: { type: 'string' },
      transport: { type: 'string', default: 'all' },
      // A checkout of another build (with dist/ built): its mcp-chain targets run beside ours.
      baseline: { type: 'string' },
    },
  });
  if (values.report !== undefined) {
    process.stdout.write(report(values.report));
    return 0;
  }
  const quick = values.quick ?? false;
  const rounds = values.rounds === undefined ? (quick ? 1 : 5) : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a positive integer, got ${String(values.rounds)}`);
  const out = values.out ?? join(root, 'bench', 'results');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first (\`npm run bench\` does)`);

  const work = join(tmpdir(), `mcp-chain-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const all = targets(join(work, 'log.jsonl'), values.baseline);
  const wanted = values.targets?.split(',').map((t) => t.trim()).filter((t) => t !== '');
  const unknown = wanted?.filter((id) => !all.some((t) => t.id === id)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown target(s) ${unknown.join(', ')}; known: ${all.map((t) => t.id).join(', ')}`);
  const transport = values.transport ?? 'all';
  if (transport !== 'all' && transport !== 'stdio' && transport !== 'http') throw new Error(`--transport takes stdio, http or all, got ${transport}`);
  // --quick leaves the competitors out (nothing is downloaded in the test suite) unless named.
  let specs = all.filter((t) => (wanted ? wanted.includes(t.id) : !(quick && competitorIds.includes(t.id))));
  specs = specs.filter((t) => transport === 'all' || t.transport === transport);
  if (specs.length === 0) throw new Error('no target selected');
  const counts = quick ? QUICK : FULL;
  const skipped: Record<string, string> = {};
  const versions: Record<string, string> = { 'mcp-chain': packageVersion(root), ...gitCommit(root) };

  if (specs.some((t) => competitorIds.includes(t.id))) {
    try {
      ensurePackages('bench', COMPETITORS, { why: "the benchmark's competitor proxies", log: (m) => process.stderr.write(`bench: ${m}\n`) });
      for (const [name, version] of Object.entries(COMPETITORS)) versions[name] = version;
    } catch (error) {
      for (const id of competitorIds) skipped[id] = `could not be installed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  // Sanity first: every target answers initialize before we spend minutes measuring; one that
  // cannot run at all (TargetUnavailable: an mcp-chain without --http) is skipped with a note.
  for (const spec of specs) {
    if (skipped[spec.id] !== undefined) continue;
    const client = connect(spec);
    try {
      await initialize(client);
    } catch (error) {
      if (!(error instanceof TargetUnavailable)) throw error;
      skipped[spec.id] = spec.id === 'chain-http' ? `this mcp-chain has no HTTP front yet (\`--http\` is a usage error, exit 2). ${error.message}` : error.message;
    } finally {
      await client.close();
    }
  }
  for (const [id, reason] of Object.entries(skipped)) process.stderr.write(`bench: skipping ${id}: ${reason}\n`);
  specs = specs.filter((t) => skipped[t.id] === undefined);

  mkdirSync(out, { recursive: true });
  const jsonl = join(out, 'latest.jsonl');
  const started = new Date();
  const t0 = now();
  const meta: Meta = {
    type: 'meta',
    started: started.toISOString(),
    quick,
    rounds,
    targets: specs.map((s) => s.id),
    skipped,
    versions,
    scenarios: [...SCENARIOS, ...GATEWAY_SCENARIOS],
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    clockTicks: clockTicksPerSecond(),
  };
  writeFileSync(jsonl, JSON.stringify(meta) + '\n');
  const rows: Row[] = [];
  const emit = (row: Row): void => {
    rows.push(row);
    appendFileSync(jsonl, JSON.stringify(row) + '\n');
  };

  try {
    for (let round = 1; round <= rounds; round++) {
      const t = now();
      process.stderr.write(`round ${round}/${rounds}: `);
      await runRound(specs, round, counts, emit, (name) => process.stderr.write(`${name} `));
      process.stderr.write(`— ${fmt(Number(now() - t) / 1e9, 1)} s\n`);
    }
  } finally {
    cleanup();
  }

  const seconds = Number(now() - t0) / 1e9;
  const markdown = render(meta, specs, rows, seconds);
  writeFileSync(join(out, 'latest.md'), markdown);
  appendFileSync(jsonl, JSON.stringify({ type: 'done', seconds: round2(seconds) }) + '\n');
  process.stdout.write(markdown);
  return 0;
}

/** Run once at the end, however it ends: every target process killed, the temp dir removed. */
const cleanups: (() => void)[] = [killAll];
function cleanup(): void {
  for (const fn of cleanups.splice(0)) fn();
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping\n`);
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`\nbench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

/**
 * The benchmark: every target side by side in one run, repeated in rounds (fresh processes each
 * round) and interleaved within a round (each scenario cut into slices that alternate between the
 * targets), so noise shows as the spread over rounds and ratios compare like with like.
 *
 *   npm run bench                                   # full run (5 rounds)
 *   node --import tsx bench/run.ts --quick          # smoke run (1 round, tiny counts), as in CI
 *   node --import tsx bench/run.ts --rounds 3 --targets none,mw-0 --out /tmp/bench
 *   node --import tsx bench/run.ts --report bench/results/latest.jsonl   # the tables again, no run
 *
 * Writes every measurement as a JSON line to <out>/latest.jsonl and the tables (medians over the
 * rounds, ratios to "no proxy" of the same run, and the issue's targets met or not) to
 * <out>/latest.md and stdout. Progress goes to stderr. Needs `npm run build` (dist/).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
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

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const upstream = join(root, 'bench', 'upstream.mjs');
const TOOLS = 500;

// ---------------------------------------------------------------------------------------------
// Targets

function targets(logFile: string): TargetSpec[] {
  const node = process.execPath;
  const env = { ...process.env, BENCH_TOOLS: String(TOOLS), BENCH_LOG_FILE: logFile } as Record<string, string>;
  delete env.NODE_TEST_CONTEXT; // when run from the test runner: the children are not tests
  // The proxy gives its upstream a minimal environment: pass the tool count explicitly.
  const proxied = ['--log-level', 'silent', '--env', `BENCH_TOOLS=${TOOLS}`, '--', node, upstream];
  const chainFile = (name: string): string[] => [cli, 'run', join(root, 'bench', 'chains', `${name}.ts`), ...proxied];
  return [
    { id: 'none', label: 'no proxy', proxy: false, transport: 'stdio', command: node, args: [upstream], env },
    { id: 'mw-0', label: 'mcp-chain, 0 mw', proxy: true, transport: 'stdio', command: node, args: [cli, ...proxied], env },
    { id: 'noop-1', label: '1 no-op mw', proxy: true, transport: 'stdio', command: node, args: chainFile('noop-1'), env },
    { id: 'noop-10', label: '10 no-op mw', proxy: true, transport: 'stdio', command: node, args: chainFile('noop-10'), env },
    { id: 'real', label: 'filter+rename+log', proxy: true, transport: 'stdio', command: node, args: chainFile('real'), env },
    // Later (the issue's HTTP part): HTTP front → stdio upstream, and stdio front → HTTP upstream.
    // A target with transport 'http' (a URL instead of a command, plus the process to start and
    // account), served by an HttpClient in load-client.ts; the scenarios below stay as they are.
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
  settleMs: number;
}

const FULL: Counts = {
  cold: 3,
  warmup: 500,
  echoSeq: { slices: 10, per: 400 },
  throughput: { 1: { slices: 6, per: 500 }, 16: { slices: 8, per: 1000 }, 64: { slices: 4, per: 2000 } },
  payload100k: { slices: 8, per: 5 },
  payload1m: { slices: 5, per: 4 },
  toolsList: { slices: 8, per: 5 },
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
  settleMs: 20,
};

export const SCENARIOS = [
  'cold_start',
  'rss_idle',
  'echo_seq',
  'throughput_1',
  'throughput_16',
  'throughput_64',
  'rss_load',
  'payload_100k',
  'payload_1m',
  'tools_list_500',
] as const;
type Scenario = (typeof SCENARIOS)[number];

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
const rotate = <T>(items: readonly T[], by: number): T[] => {
  const k = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
};

/** One target's open session in a round, and what its slices have added up to so far. */
interface Live {
  spec: TargetSpec;
  client: RpcClient;
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
        else lives.push({ spec, client, durations: [], micros: 0, cpuUser: 0, cpuSystem: 0, peakMiB: 0 });
      }
    }
    for (const live of lives) {
      const ms = colds.get(live.spec.id) ?? [];
      row(live, 'cold_start', ms.length, { ms: round2(median(ms)), min_ms: round2(Math.min(...ms)) });
    }

    await sleep(counts.settleMs);
    for (const live of lives) row(live, 'rss_idle', 1, { mib: round2(rssMiB(live.client.pid)) });

    for (const live of lives) await sequential(counts.warmup, () => echo(live.client));

    phase('echo');
    const { slices, per } = counts.echoSeq;
    await interleaved(lives, slices, async (live) => {
      live.durations.push(...(await sequential(per, () => echo(live.client))));
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
        const run = (): Promise<number> => throughput(k, per, () => echo(live.client));
        if (k !== 64) await run();
        else live.peakMiB = Math.max(live.peakMiB, (await peakRss(live.client.pid, 10, run)).peakMiB);
      });
      for (const live of lives) {
        const calls = slices * per;
        row(live, `throughput_${k}`, calls, { calls_per_s: Math.round(calls / (live.micros / 1e6)), ...cpuOf(live, calls) });
        if (k === 64) row(live, 'rss_load', slices, { mib: round2(live.peakMiB) });
      }
    }

    const sized = [
      ['payload_100k', counts.payload100k, (client: RpcClient) => payload(client, 100)],
      ['payload_1m', counts.payload1m, (client: RpcClient) => payload(client, 1024)],
      ['tools_list_500', counts.toolsList, (client: RpcClient) => listTools(client, TOOLS)],
    ] as const;
    for (const [scenario, { slices, per }, call] of sized) {
      phase(scenario.replace('_500', '').replace('payload_', ''));
      for (const live of lives) await sequential(2, () => call(live.client));
      await interleaved(lives, slices, async (live) => {
        live.durations.push(...(await sequential(per, () => call(live.client))));
      });
      for (const live of lives) {
        row(live, scenario, live.durations.length, { ms: round2(median(live.durations) / 1000), ...cpuOf(live, live.durations.length) });
      }
    }
  } finally {
    await Promise.all(lives.map((live) => live.client.close()));
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
  { scenario: 'tools_list_500', key: 'ms', label: 'tools/list, 500 tools', unit: 'ms', digits: 2, compare: 'ratio' },
  { scenario: 'rss_idle', key: 'mib', label: 'RSS idle (started process)', unit: 'MiB', digits: 1, compare: 'none' },
  { scenario: 'rss_load', key: 'mib', label: 'RSS peak, 64 in flight', unit: 'MiB', digits: 1, compare: 'none' },
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
    return values.length < 2 || mid === 0 ? undefined : (Math.max(...values) - Math.min(...values)) / 2 / mid;
  }

  /** Median over the rounds of target ÷ base within the round. */
  ratio(target: string, base: string, key: string): number | undefined {
    return this.#paired(target, base, key, (a, b) => (b === 0 ? undefined : a / b));
  }

  /** Median over the rounds of target − base within the round. */
  delta(target: string, base: string, key: string): number | undefined {
    return this.#paired(target, base, key, (a, b) => a - b);
  }

  #paired(target: string, base: string, key: string, op: (a: number, b: number) => number | undefined): number | undefined {
    const bases = this.#rounds(base, key);
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

const ratioCheck = (label: string, key: string, limit: number, { atLeast = false, base = 'none', only }: { atLeast?: boolean; base?: string; only?: string } = {}): Check => ({
  label,
  judge(stats, target) {
    if (only !== undefined && target !== only) return undefined;
    const ratio = stats.ratio(target, base, key);
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

const CHECKS: Check[] = [
  ratioCheck('echo p50 ≤ 2.0× no proxy', 'echo_seq.p50_us', 2.0),
  ratioCheck('echo p99 ≤ 2.5× no proxy', 'echo_seq.p99_us', 2.5),
  limitCheck('proxy CPU ≤ 60 µs per echo call (sequential)', 'echo_seq.cpu_us_per_call', 60, 'µs', 1),
  limitCheck('proxy CPU ≤ 60 µs per echo call (64 in flight)', 'throughput_64.cpu_us_per_call', 60, 'µs', 1),
  ratioCheck('throughput at 16 in flight ≥ 0.75× no proxy', 'throughput_16.calls_per_s', 0.75, { atLeast: true }),
  ratioCheck('10 no-op mw ≤ 1.10× 0 mw per call (proxy CPU, sequential)', 'echo_seq.cpu_us_per_call', 1.1, { base: 'mw-0', only: 'noop-10' }),
  ratioCheck('10 no-op mw ≤ 1.10× 0 mw per call (proxy CPU, 64 in flight)', 'throughput_64.cpu_us_per_call', 1.1, { base: 'mw-0', only: 'noop-10' }),
  ratioCheck('10 no-op mw ≤ 1.10× 0 mw per call (echo p50)', 'echo_seq.p50_us', 1.1, { base: 'mw-0', only: 'noop-10' }),
  ratioCheck('1 MiB result ≤ 1.3× no proxy', 'payload_1m.ms', 1.3),
  ratioCheck('500-tool tools/list ≤ 1.5× no proxy', 'tools_list_500.ms', 1.5),
  limitCheck('idle proxy RSS ≤ 80 MiB', 'rss_idle.mib', 80, 'MiB', 1),
  {
    label: 'cold start adds ≤ 150 ms',
    judge(stats, target) {
      const delta = stats.delta(target, 'none', 'cold_start.ms');
      return delta === undefined ? undefined : { shown: `+${fmt(delta, 0)} ms`, met: delta <= 150 };
    },
  },
];

function tables(specs: readonly TargetSpec[], rows: readonly Row[]): string {
  const stats = new Stats(rows);
  const lines: string[] = [];
  lines.push(`| metric | ${specs.map((s) => s.label).join(' | ')} |`);
  lines.push(`|---|${specs.map(() => '---:').join('|')}|`);
  for (const def of METRICS) {
    const k = `${def.scenario}.${def.key}`;
    const cells = specs.map((spec) => {
      const value = stats.value(spec.id, k);
      if (value === undefined) return '–';
      let cell = fmt(value, def.digits);
      const spread = stats.spread(spec.id, k);
      if (spread !== undefined) cell += ` ±${fmt(spread * 100, 0)}%`;
      if (spec.id !== 'none') {
        const ratio = def.compare === 'ratio' ? stats.ratio(spec.id, 'none', k) : undefined;
        const delta = def.compare === 'delta' ? stats.delta(spec.id, 'none', k) : undefined;
        if (ratio !== undefined) cell += ` (${fmt(ratio, 2)}×)`;
        if (delta !== undefined) cell += ` (+${fmt(delta, 0)})`;
      }
      return cell;
    });
    lines.push(`| ${def.label} (${def.unit}) | ${cells.join(' | ')} |`);
  }
  const proxies = specs.filter((s) => s.proxy);
  lines.push('', '**Targets** (✅ met, ❌ not met; ratios paired within rounds, as above)', '');
  lines.push(`| target | ${proxies.map((s) => s.label).join(' | ')} |`);
  lines.push(`|---|${proxies.map(() => ':---:').join('|')}|`);
  for (const check of CHECKS) {
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
}

function render(meta: Meta, specs: readonly TargetSpec[], rows: readonly Row[], seconds: number | undefined): string {
  return [
    `## mcp-chain benchmark — ${meta.started}`,
    '',
    `${meta.quick ? 'quick smoke run, ' : ''}${meta.rounds} round(s), targets interleaved in slices within each round. ` +
      'Cells: median over rounds, ±half its range over rounds, (ratio to no proxy: median over rounds of the ratio within the round; cold start: the difference). ' +
      `Node ${meta.node}, ${meta.cpus} CPU(s)${seconds === undefined ? '' : `, ${fmt(seconds, 0)} s`}. ` +
      `stdio front → stdio upstream (bench/upstream.mjs, ${TOOLS} tools).`,
    ...(meta.quick ? ['', '_Quick mode proves the benchmark runs; its counts are far too small for the figures to mean anything._'] : []),
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
  const all = targets('');
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
  const all = targets(join(work, 'log.jsonl'));
  const wanted = values.targets?.split(',').map((t) => t.trim()).filter((t) => t !== '');
  const unknown = wanted?.filter((id) => !all.some((t) => t.id === id)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown target(s) ${unknown.join(', ')}; known: ${all.map((t) => t.id).join(', ')}`);
  const specs = wanted ? all.filter((t) => wanted.includes(t.id)) : all;
  const counts = quick ? QUICK : FULL;

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
    scenarios: SCENARIOS,
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
    // Sanity first: every target answers initialize before we spend minutes measuring.
    for (const spec of specs) {
      const client = connect(spec);
      try {
        await initialize(client);
      } finally {
        await client.close();
      }
    }
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

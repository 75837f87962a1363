/**
 * The soak harness: a real `mcp-chain serve --http` gateway (node dist/cli/main.js; build first)
 * with three members, `sessions` SDK clients keeping `inFlight` calls each in flight for
 * `durationMs`, the gateway's memory, descriptors and child processes watched throughout.
 *
 * Members (one soak-member.ts process on HTTP serves a and b; c is its own stdio process):
 * - `a`: Streamable HTTP, one member session per client session (the default isolation);
 * - `b`: Streamable HTTP, `isolation: "shared"`: one member session for every client session, so
 *   progress, sampling and cancellations of all sessions cross one connection;
 * - `c`: stdio, `isolation: "shared"`: one child process for all. Its `sample` is not called: a
 *   stdio server's requests carry no relation to a call, and the gateway refuses to guess which of
 *   many busy sessions one is for (docs/architecture.md, shared upstream).
 *
 * `startSoak()` resolves once the gateway listens, a warm-up session has run (so b's session and
 * c's process exist) and the baseline is taken; the load then runs for `durationMs` (or until
 * `stop()`, or until the gateway exits), the sessions are closed, the end state is measured, and
 * the gateway and member are stopped. `done` (and `stop()`) resolve with the result.
 *
 * A gateway that exits during the load (a test sending it SIGTERM) stops the load: no new call
 * starts, each call in flight ends as it ends (an error when the gateway went away, lost only if
 * nothing at all came within its deadline), and the result says how and when the gateway exited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mib, percentile, slopePerMinute, type Sample } from './figures.js';
import { CALL_KINDS, DEFAULT_MIX, SoakLoad, type CallKind, type CallMix, type LoadCounters } from './load.js';
import { alive, commandLine, descendants, fdCount, rssBytes } from './proc.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..');
/** The CLI under test. */
export const GATEWAY_MAIN = join(repoRoot, 'dist', 'cli', 'main.js');
const MEMBER = join(here, 'soak-member.ts');
const PROBE = join(here, 'memory-probe.mjs');

/** When the soak fails (each documented in the report). */
export interface SoakThresholds {
  /**
   * The gateway's live heap (after a full GC) after warm-up fails the soak when its least-squares
   * slope is above this (MiB per minute) AND the growth it means over the window
   * (slope x window) is above `heapDriftMiB`: calls in flight (a 1 MiB answer is several MiB of
   * strings on its way) make a short window's slope noisy, and a leak shows in both.
   */
  readonly heapSlopeMiBPerMin: number;
  /** See `heapSlopeMiBPerMin`. */
  readonly heapDriftMiB: number;
  /** Most growth of its RSS after warm-up, MiB per minute (undefined: reported, never failed). */
  readonly rssSlopeMiBPerMin: number | undefined;
  /** Fewest heap samples after warm-up for a slope to be judged (fewer: "not measured", not a failure). */
  readonly minSlopeSamples: number;
}

export const DEFAULT_THRESHOLDS: SoakThresholds = { heapSlopeMiBPerMin: 1, heapDriftMiB: 4, rssSlopeMiBPerMin: undefined, minSlopeSamples: 20 };

export interface SoakOptions {
  /** How long the load runs once every session has connected (the ramp-up before is not counted). */
  readonly durationMs: number;
  /** Client sessions (default 200). */
  readonly sessions?: number;
  /** Calls each session keeps in flight (default 10). */
  readonly inFlight?: number;
  /** Samples before this, counted from when the last session has connected, are left out of the slopes (default: a quarter of the duration, 20 s to 120 s). */
  readonly warmupMs?: number;
  /** A call unanswered after this is lost (default 90 s: above the gateway's own 60 s request deadline, so a call it gives up on ends as an error, and lost means nothing came at all). */
  readonly deadlineMs?: number;
  /** Sampling period of RSS, heap, descriptors and children (default 1000 ms). */
  readonly sampleMs?: number;
  /** How long the end state may take to come back to the baseline once the sessions are closed (default 30 s). */
  readonly settleMs?: number;
  readonly mix?: Partial<CallMix>;
  /** Size of `large` answers (default 100 KiB to 1 MiB). */
  readonly largeBytes?: readonly [number, number];
  readonly seed?: number;
  /** More arguments for `mcp-chain serve` (e.g. a drain deadline). */
  readonly gatewayArgs?: readonly string[];
  readonly thresholds?: Partial<SoakThresholds>;
  /** A line now and then while the load runs (default: nothing). */
  readonly onProgress?: (line: string) => void;
}

/** How a process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** ms after the start of the load. */
  readonly atMs: number;
}

/** A memory series: at the baseline, at the end of warm-up, at the end of the load, after close; its max and slope. */
export interface MemoryFigures {
  readonly baselineMiB: number | undefined;
  readonly warmMiB: number | undefined;
  readonly loadEndMiB: number | undefined;
  readonly afterCloseMiB: number | undefined;
  readonly maxMiB: number | undefined;
  /** Least-squares slope of the samples between the end of warm-up and the end of the load. */
  readonly slopeMiBPerMin: number | undefined;
  readonly slopeSamples: number;
}

export interface KindFigures {
  readonly started: number;
  readonly ok: number;
  readonly misrouted: number;
  readonly wrong: number;
  readonly errors: number;
  readonly lost: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly maxMs: number | undefined;
}

export interface SoakResult {
  readonly options: {
    readonly durationMs: number;
    readonly sessions: number;
    readonly inFlight: number;
    readonly warmupMs: number;
    readonly deadlineMs: number;
    readonly mix: CallMix;
    readonly largeBytes: readonly [number, number];
    readonly seed: number;
  };
  readonly thresholds: SoakThresholds;
  /** From the first connect to the last call settled (ms). */
  readonly loadMs: number;
  /** From the first connect to the last (ms), undefined if not every session connected. */
  readonly rampUpMs: number | undefined;
  readonly calls: {
    readonly started: number;
    readonly ok: number;
    readonly misrouted: number;
    readonly wrong: number;
    readonly errors: number;
    readonly lost: number;
    readonly late: number;
    readonly perSecond: number;
    readonly errorsByKind: Record<string, number>;
    readonly wrongByKind: Record<string, number>;
    readonly misroutedByKind: Record<string, number>;
    readonly byKind: Record<CallKind, KindFigures>;
  };
  readonly sampling: { readonly requests: number; readonly misrouted: number };
  readonly progress: { readonly notifications: number; readonly misrouted: number };
  readonly clientErrors: Record<string, number>;
  /** Answers the clients got for requests they had cancelled (or given up at the deadline): the gateway should send none. */
  readonly answersAfterCancel: number;
  /** "Session closed" answers to calls whose cancellation was still on its way when the client ended the session (the client's race; not a failure). */
  readonly closedBeforeCancelArrived: number;
  readonly sessions: { readonly opened: number; readonly closed: number; readonly failures: Record<string, number> };
  readonly memory: {
    readonly rss: MemoryFigures;
    readonly heap: MemoryFigures;
    readonly heapAfterGc: boolean;
    /** The slopes' window: from the end of warm-up (ms after the load started) to the end of the load. */
    readonly warmEndMs: number;
    readonly windowMs: number;
    /** What the probe in the gateway sampled (ms after the load started; negative: before it). */
    readonly series: readonly { readonly ms: number; readonly rssMiB: number; readonly heapMiB: number }[];
  };
  readonly fds: { readonly baseline: number; readonly max: number; readonly end: number | undefined; readonly settleMs: number | undefined };
  readonly children: {
    readonly baseline: readonly number[];
    readonly end: readonly number[] | undefined;
    /** Every child process seen during the run, with its command line. */
    readonly seen: Record<string, string>;
    /** Those still running once the gateway had exited (orphans). */
    readonly leftAfterExit: readonly string[];
  };
  /** The member processes' counters per member name at the end (sessions open, calls, cancellations seen). */
  readonly members: Record<string, unknown>;
  readonly gateway: {
    readonly pid: number;
    readonly exitedDuringLoad: ProcessExit | undefined;
    readonly exit: ProcessExit | undefined;
    /** Its warn and error log lines, by message. */
    readonly logs: Record<string, number>;
  };
  readonly verdict: { readonly pass: boolean; readonly failures: readonly string[]; readonly notes: readonly string[] };
}

/** A running soak. */
export interface SoakHandle {
  readonly gatewayPid: number;
  readonly memberPid: number;
  /** The gateway's MCP endpoint. */
  readonly url: string;
  /** Live counters of the load. */
  readonly counters: LoadCounters;
  /** Resolves when the gateway exits (whoever made it). */
  readonly gatewayExit: Promise<ProcessExit>;
  /** The result, once the load has ended (duration over, `stop()`, or the gateway gone) and everything is measured and stopped. */
  readonly done: Promise<SoakResult>;
  /** Ends the load now (no new calls; those in flight settle), then as `done`. */
  stop(): Promise<SoakResult>;
}

interface Spawned {
  readonly child: ChildProcess;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

const TAIL = 64 * 1024;

function spawnLogged(command: string, args: readonly string[], env: NodeJS.ProcessEnv, onLine?: (line: string) => void): Spawned {
  const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  let partial = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-TAIL);
    if (onLine === undefined) return;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exit, stderr: () => tail };
}

async function waitFor<T>(check: () => T | undefined, ms: number, what: () => string, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`soak: timed out after ${ms} ms waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

async function stopProcess(spawned: Spawned, ms = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { child } = spawned;
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const killed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, ms);
  });
  await Promise.race([spawned.exit, killed]);
  clearTimeout(timer);
  return spawned.exit;
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['NODE_OPTIONS'];
  return env;
}

function readJsonFile(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

interface ProbeLine {
  readonly t: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly gc: boolean;
}

function readProbe(file: string): ProbeLine[] {
  if (!existsSync(file)) return [];
  const out: ProbeLine[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as ProbeLine);
    } catch {
      // a line cut by the exit
    }
  }
  return out;
}

function memoryFigures(samples: readonly Sample[], marks: { baseline: number; warm: number; loadEnd: number }, minSamples: number): MemoryFigures {
  const last = (before: number): number | undefined => {
    let found: number | undefined;
    for (const s of samples) if (s.t <= before) found = s.value;
    return found === undefined ? undefined : mib(found);
  };
  const window = samples.filter((s) => s.t >= marks.warm && s.t <= marks.loadEnd);
  const slope = window.length >= minSamples ? slopePerMinute(window.map((s) => ({ t: s.t, value: mib(s.value) }))) : undefined;
  const lastSample = samples[samples.length - 1];
  return {
    baselineMiB: last(marks.baseline),
    warmMiB: last(marks.warm),
    loadEndMiB: last(marks.loadEnd),
    afterCloseMiB: lastSample === undefined ? undefined : mib(lastSample.value),
    maxMiB: samples.length === 0 ? undefined : mib(Math.max(...samples.map((s) => s.value))),
    slopeMiBPerMin: slope,
    slopeSamples: window.length,
  };
}

/** Starts the member, the gateway, the warm-up and the baseline; the load then runs (see the module comment). */
export async function startSoak(options: SoakOptions): Promise<SoakHandle> {
  if (!existsSync(GATEWAY_MAIN)) throw new Error(`soak: ${GATEWAY_MAIN} is missing: npm run build first`);
  const sessions = options.sessions ?? 200;
  const inFlight = options.inFlight ?? 10;
  const durationMs = options.durationMs;
  const warmupMs = options.warmupMs ?? Math.min(120_000, Math.max(20_000, Math.round(durationMs / 4)));
  const deadlineMs = options.deadlineMs ?? 90_000;
  const sampleMs = options.sampleMs ?? 1000;
  const settleMs = options.settleMs ?? 30_000;
  const mix: CallMix = { ...DEFAULT_MIX, ...options.mix };
  const largeBytes = options.largeBytes ?? [100 * 1024, 1024 * 1024];
  const seed = options.seed ?? 13;
  const thresholds: SoakThresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const say = options.onProgress ?? ((): void => undefined);

  const dir = mkdtempSync(join(tmpdir(), 'mcp-chain-soak-'));
  const tsx = import.meta.resolve('tsx');
  const memberStats = join(dir, 'member-http.json');
  const memberCStats = join(dir, 'member-c.json');
  const probeFile = join(dir, 'probe.jsonl');
  const started: Spawned[] = [];
  const cleanup = async (): Promise<void> => {
    for (const s of started.reverse()) await stopProcess(s);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    // The member on HTTP.
    const member = spawnLogged(process.execPath, ['--import', tsx, MEMBER, '--http', '--port', '0', '--stats-file', memberStats], childEnv({}));
    started.push(member);
    const memberUrl = await waitFor(
      () => /soak member listening on (http:\S+)/.exec(member.stderr())?.[1] ?? (member.child.exitCode !== null ? '' : undefined),
      30_000,
      () => `the member to listen: ${member.stderr()}`,
    );
    if (memberUrl === '') throw new Error(`soak: the member exited: ${member.stderr()}`);

    // The gateway.
    const config = join(dir, 'soak.config.json');
    writeFileSync(
      config,
      JSON.stringify(
        {
          mcpServers: {
            a: { url: `${memberUrl}/a/mcp` },
            b: { url: `${memberUrl}/b/mcp`, isolation: 'shared' },
            c: { command: process.execPath, args: ['--import', tsx, MEMBER, '--name', 'c', '--stats-file', memberCStats], isolation: 'shared' },
          },
        },
        null,
        2,
      ),
    );
    const logs: Record<string, number> = {};
    const gateway = spawnLogged(
      process.execPath,
      ['--expose-gc', '--import', pathToFileURL(PROBE).href, GATEWAY_MAIN, 'serve', config, '--http', '127.0.0.1:0', '--log-level', 'info', ...(options.gatewayArgs ?? [])],
      childEnv({ MCP_CHAIN_SOAK_PROBE_FILE: probeFile, MCP_CHAIN_SOAK_PROBE_MS: String(sampleMs) }),
      (line) => {
        const number = /"level":(\d+)/.exec(line)?.[1];
        if (number === undefined || Number(number) < 40) return;
        const level = Number(number) >= 50 ? 'error' : 'warn';
        const msg = /"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? line.slice(0, 120);
        const key = `${level}: ${msg.replace(/s\d+\.c\d+/g, '<token>')}`;
        logs[key] = (logs[key] ?? 0) + 1;
      },
    );
    started.push(gateway);
    const gatewayPid = gateway.child.pid ?? -1;
    const url = await waitFor(
      () => /^(?=.*"msg":"listening").*?"url":"([^"]+)"/m.exec(gateway.stderr())?.[1] ?? (gateway.child.exitCode !== null ? '' : undefined),
      30_000,
      () => `the gateway to listen: ${gateway.stderr()}`,
    );
    if (url === '') throw new Error(`soak: the gateway exited: ${gateway.stderr()}`);

    // Warm-up: one session, a few calls of every kind, so that b's shared session and c's process exist.
    const warm: SoakLoad = new SoakLoad({
      url,
      sessions: 1,
      inFlight: 3,
      members: ['a', 'b', 'c'],
      samplingMembers: ['a', 'b'],
      mix,
      largeBytes,
      deadlineMs,
      seed: seed + 1,
      connectConcurrency: 1,
      running: (): boolean => warm.counters.started < 40,
    });
    await warm.run();
    if (warm.counters.ok !== warm.counters.started || warm.counters.sessionsOpened !== 1) {
      throw new Error(`soak: the warm-up session failed: ${JSON.stringify({ ...warm.counters, byKind: undefined })}; gateway: ${gateway.stderr().slice(-4000)}`);
    }

    // Baseline: descriptors steady for 6 s (longer than an idle keep-alive connection lives).
    let stable = { count: fdCount(gatewayPid) ?? -1, since: Date.now() };
    const baselineFds = await waitFor(
      () => {
        const now = fdCount(gatewayPid) ?? -1;
        if (now !== stable.count) stable = { count: now, since: Date.now() };
        return Date.now() - stable.since >= 6000 ? now : undefined;
      },
      30_000,
      () => `the gateway's descriptors to settle (${stable.count})`,
      250,
    );
    const baselineChildren = descendants(gatewayPid);
    const seen = new Map<number, string>();
    const record = (pids: readonly number[]): void => {
      for (const pid of pids) if (!seen.has(pid)) seen.set(pid, commandLine(pid));
    };
    record(baselineChildren);
    const baselineAt = Date.now();
    const rss: Sample[] = [];
    const baselineRss = rssBytes(gatewayPid);
    if (baselineRss !== undefined) rss.push({ t: baselineAt, value: baselineRss });

    // The load.
    const loadStart = Date.now();
    let stopping = false;
    let gatewayGone: ProcessExit | undefined;
    const gatewayExit = gateway.exit.then(({ code, signal }) => {
      const exit = { code, signal, atMs: Date.now() - loadStart };
      gatewayGone = exit;
      return exit;
    });
    const load: SoakLoad = new SoakLoad({
      url,
      sessions,
      inFlight,
      members: ['a', 'b', 'c'],
      samplingMembers: ['a', 'b'],
      mix,
      largeBytes,
      deadlineMs,
      seed,
      connectConcurrency: 25,
      running: () => !stopping && gatewayGone === undefined && Date.now() < (load.counters.allConnectedAt ?? Infinity) + durationMs,
    });
    let maxFds = baselineFds;
    const sampler = setInterval(() => {
      const r = rssBytes(gatewayPid);
      if (r !== undefined) rss.push({ t: Date.now(), value: r });
      const fds = fdCount(gatewayPid);
      if (fds !== undefined) maxFds = Math.max(maxFds, fds);
      record(descendants(gatewayPid));
    }, sampleMs);
    let lastReport = loadStart;
    let lastCalls = 0;
    const reporter = setInterval(() => {
      const c = load.counters;
      const now = Date.now();
      const done = c.ok + c.misrouted + c.wrong + c.errors + c.lost;
      const rate = ((done - lastCalls) * 1000) / Math.max(1, now - lastReport);
      lastReport = now;
      lastCalls = done;
      const heap = readProbe(probeFile).at(-1);
      say(
        `t=${Math.round((now - loadStart) / 1000)}s sessions=${c.sessionsOpened - c.sessionsClosed} calls=${done} (${rate.toFixed(0)}/s) inflight=${c.inFlight} ` +
          `errors=${c.errors} lost=${c.lost} misrouted=${c.misrouted} wrong=${c.wrong} rss=${(mib(rssBytes(gatewayPid) ?? 0)).toFixed(0)}MiB ` +
          `heap=${heap === undefined ? '?' : mib(heap.heapUsed).toFixed(1)}MiB fds=${fdCount(gatewayPid) ?? '-'}`,
      );
    }, 10_000);

    const done = (async (): Promise<SoakResult> => {
      try {
        await load.run();
        const loadEnd = Date.now();
        const goneDuringLoad = gatewayGone;
        clearInterval(reporter);

        // The end state: back to the baseline once the sessions are closed (bounded).
        let endFds: number | undefined;
        let endChildren: number[] | undefined;
        let settledIn: number | undefined;
        if (goneDuringLoad === undefined) {
          const since = Date.now();
          try {
            await waitFor(
              () => {
                endFds = fdCount(gatewayPid);
                endChildren = descendants(gatewayPid);
                record(endChildren);
                const a = (readJsonFile(memberStats)['a'] as { sessionsOpen?: number } | undefined)?.sessionsOpen ?? 0;
                return endFds !== undefined && endFds <= baselineFds && endChildren.length <= baselineChildren.length && a === 0 ? true : undefined;
              },
              settleMs,
              () => 'the end state',
              250,
            );
            settledIn = Date.now() - since;
          } catch {
            // reported below as not back to the baseline
          }
        }
        clearInterval(sampler);
        const members = { ...readJsonFile(memberStats), ...readJsonFile(memberCStats) };

        // Stop the gateway and the member; every child the gateway had must be gone.
        const exit = await stopProcess(gateway);
        const exitFigures: ProcessExit = gatewayGone ?? { ...exit, atMs: Date.now() - loadStart };
        await stopProcess(member);
        let leftAfterExit: string[] = [];
        try {
          await waitFor(() => ([...seen.keys()].some((pid) => alive(pid)) ? undefined : true), 10_000, () => 'the gateway children to exit');
        } catch {
          leftAfterExit = [...seen].filter(([pid]) => alive(pid)).map(([pid, cmd]) => `${pid}: ${cmd}`);
        }

        const probe = readProbe(probeFile);
        const warmEnd = (load.counters.allConnectedAt ?? loadStart) + warmupMs;
        const marks = { baseline: baselineAt, warm: warmEnd, loadEnd };
        const rssFigures = memoryFigures(rss.length > 0 ? rss : probe.map((p) => ({ t: p.t, value: p.rss })), marks, thresholds.minSlopeSamples);
        const heapFigures = memoryFigures(
          probe.map((p) => ({ t: p.t, value: p.heapUsed })),
          marks,
          thresholds.minSlopeSamples,
        );
        const c = load.counters;
        const byKind = Object.fromEntries(
          CALL_KINDS.map((k) => {
            const kc = c.byKind[k];
            const max = kc.latencies.length === 0 ? undefined : kc.latencies.reduce((a, b) => Math.max(a, b), 0);
            return [k, { started: kc.started, ok: kc.ok, misrouted: kc.misrouted, wrong: kc.wrong, errors: kc.errors, lost: kc.lost, p50Ms: percentile(kc.latencies, 50), p99Ms: percentile(kc.latencies, 99), maxMs: max } satisfies KindFigures];
          }),
        ) as Record<CallKind, KindFigures>;
        const loadMs = loadEnd - loadStart;
        const finished = c.ok + c.misrouted + c.wrong + c.errors + c.lost;

        const failures: string[] = [];
        const notes: string[] = [];
        if (c.lost > 0) failures.push(`${c.lost} calls lost (no answer within ${deadlineMs} ms)`);
        if (c.misrouted > 0) failures.push(`${c.misrouted} calls answered with another call's answer`);
        if (c.samplingMisrouted > 0) failures.push(`${c.samplingMisrouted} sampling requests reached a session that had no such call in flight`);
        if (c.progressMisrouted > 0) failures.push(`${c.progressMisrouted} progress notifications reached another call`);
        if (c.wrong > 0) failures.push(`${c.wrong} answers not as their request asked`);
        if (c.started !== finished) failures.push(`${c.started - finished} calls started but never counted`);
        if (goneDuringLoad !== undefined) failures.push(`the gateway exited during the load (code ${goneDuringLoad.code}, signal ${goneDuringLoad.signal}, at ${goneDuringLoad.atMs} ms)`);
        else {
          if (endFds === undefined || endFds > baselineFds) failures.push(`descriptors not back to the baseline within ${settleMs} ms: ${baselineFds} before, ${endFds ?? '?'} after`);
          if (endChildren === undefined || endChildren.length > baselineChildren.length) failures.push(`child processes not back to the baseline: ${baselineChildren.length} before, ${endChildren?.length ?? '?'} after`);
          const a = (members['a'] as { sessionsOpen?: number } | undefined)?.sessionsOpen;
          if (a !== undefined && a !== 0) failures.push(`member a still has ${a} sessions open after every client session closed`);
        }
        if (leftAfterExit.length > 0) failures.push(`child processes left after the gateway exited: ${leftAfterExit.join('; ')}`);
        if (heapFigures.slopeMiBPerMin === undefined) notes.push(`heap slope not measured (${heapFigures.slopeSamples} samples after warm-up, ${thresholds.minSlopeSamples} needed)`);
        else {
          const windowMin = (loadEnd - warmEnd) / 60_000;
          const drift = heapFigures.slopeMiBPerMin * windowMin;
          if (heapFigures.slopeMiBPerMin > thresholds.heapSlopeMiBPerMin && drift > thresholds.heapDriftMiB)
            failures.push(`heap grows ${heapFigures.slopeMiBPerMin.toFixed(2)} MiB/min after warm-up, ${drift.toFixed(1)} MiB over ${windowMin.toFixed(1)} min (thresholds ${thresholds.heapSlopeMiBPerMin} MiB/min and ${thresholds.heapDriftMiB} MiB)`);
        }
        if (thresholds.rssSlopeMiBPerMin !== undefined && rssFigures.slopeMiBPerMin !== undefined && rssFigures.slopeMiBPerMin > thresholds.rssSlopeMiBPerMin)
          failures.push(`RSS grows ${rssFigures.slopeMiBPerMin.toFixed(2)} MiB/min after warm-up (threshold ${thresholds.rssSlopeMiBPerMin})`);
        if (c.errors > 0) notes.push(`${c.errors} calls ended with an error (not a failure by itself: see errorsByKind)`);
        if (Object.keys(c.sessionFailures).length > 0) notes.push(`session failures: ${JSON.stringify(c.sessionFailures)}`);
        if (c.answersAfterCancel > 0) failures.push(`${c.answersAfterCancel} answers came for calls the client had already cancelled or given up: ${c.answersAfterCancelSamples.join(' | ')}`);
        if (c.sessionsOpened < sessions && goneDuringLoad === undefined) failures.push(`only ${c.sessionsOpened} of ${sessions} sessions opened`);

        return {
          options: { durationMs, sessions, inFlight, warmupMs, deadlineMs, mix, largeBytes, seed },
          thresholds,
          loadMs,
          rampUpMs: c.allConnectedAt === undefined ? undefined : c.allConnectedAt - loadStart,
          calls: {
            started: c.started,
            ok: c.ok,
            misrouted: c.misrouted,
            wrong: c.wrong,
            errors: c.errors,
            lost: c.lost,
            late: c.late,
            perSecond: (finished * 1000) / Math.max(1, loadMs),
            errorsByKind: c.errorsByKind,
            wrongByKind: c.wrongByKind,
            misroutedByKind: c.misroutedByKind,
            byKind,
          },
          sampling: { requests: c.samplingRequests, misrouted: c.samplingMisrouted },
          progress: { notifications: c.progressNotifications, misrouted: c.progressMisrouted },
          clientErrors: c.clientErrors,
          answersAfterCancel: c.answersAfterCancel,
          closedBeforeCancelArrived: c.closedBeforeCancelArrived,
          sessions: { opened: c.sessionsOpened, closed: c.sessionsClosed, failures: c.sessionFailures },
          memory: {
            rss: rssFigures,
            heap: heapFigures,
            heapAfterGc: probe.some((p) => p.gc),
            warmEndMs: warmEnd - loadStart,
            windowMs: Math.max(0, loadEnd - warmEnd),
            series: probe.map((p) => ({ ms: p.t - loadStart, rssMiB: Number(mib(p.rss).toFixed(2)), heapMiB: Number(mib(p.heapUsed).toFixed(2)) })),
          },
          fds: { baseline: baselineFds, max: maxFds, end: endFds, settleMs: settledIn },
          children: {
            baseline: baselineChildren,
            end: endChildren,
            seen: Object.fromEntries([...seen].map(([pid, cmd]) => [String(pid), cmd])),
            leftAfterExit,
          },
          members,
          gateway: { pid: gatewayPid, exitedDuringLoad: goneDuringLoad, exit: exitFigures, logs },
          verdict: { pass: failures.length === 0, failures, notes },
        };
      } finally {
        clearInterval(reporter);
        clearInterval(sampler);
        await cleanup();
      }
    })();
    // A failure inside `done` is for whoever awaits it; never an unhandled rejection meanwhile.
    done.catch(() => undefined);

    return {
      gatewayPid,
      memberPid: member.child.pid ?? -1,
      url,
      counters: load.counters,
      gatewayExit,
      done,
      stop: () => {
        stopping = true;
        return done;
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

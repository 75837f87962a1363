/**
 * `npm run soak -- [--minutes 10] [--sessions 200] [--in-flight 10] [--out result.json]
 *   [--warmup-seconds S] [--deadline-seconds 90] [--heap-slope 1] [--seed 13] [--large-kib 100-1024] [--mix echo=30,cancel=20,...]`
 *
 * Runs bench/soak/soak.ts against the built CLI, prints the report (progress every 10 s on
 * stderr), writes the result as JSON with --out, and exits 1 when the verdict fails (anything
 * lost, misrouted or wrong; an answer to a call the client cancelled; descriptors or child
 * processes not back to the baseline; the heap growing after warm-up faster than --heap-slope
 * MiB/min and by more than 4 MiB over the window), 2 on a usage mistake.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CALL_KINDS, type CallKind } from './load.js';
import { formatReport } from './report.js';
import { startSoak } from './soak.js';

function usage(message: string): never {
  process.stderr.write(`soak: ${message}\n`);
  process.exit(2);
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) usage(`--${name} needs a positive number, got ${value}`);
  return n;
}

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    sessions: { type: 'string' },
    'in-flight': { type: 'string' },
    out: { type: 'string' },
    'warmup-seconds': { type: 'string' },
    'deadline-seconds': { type: 'string' },
    'heap-slope': { type: 'string' },
    seed: { type: 'string' },
    'large-kib': { type: 'string' },
    mix: { type: 'string' },
  },
});

const minutes = positive('minutes', values.minutes, 10);
const large = values['large-kib'];
let largeBytes: [number, number] | undefined;
if (large !== undefined) {
  const m = /^(\d+)-(\d+)$/.exec(large);
  if (m === null) usage(`--large-kib needs <min>-<max>, got ${large}`);
  largeBytes = [Number(m[1]) * 1024, Number(m[2]) * 1024];
}
let mix: Partial<Record<CallKind, number>> | undefined;
if (values.mix !== undefined) {
  mix = {};
  for (const part of values.mix.split(',')) {
    const m = /^([a-z]+)=(\d+(?:\.\d+)?)$/.exec(part.trim());
    if (m === null || !(CALL_KINDS as readonly string[]).includes(m[1] as string)) usage(`--mix needs <kind>=<weight>,... with kinds ${CALL_KINDS.join(', ')}; got ${part}`);
    mix[m[1] as CallKind] = Number(m[2]);
  }
}
const warmup = values['warmup-seconds'];
const heapSlope = values['heap-slope'];

const handle = await startSoak({
  durationMs: Math.round(minutes * 60_000),
  sessions: Math.round(positive('sessions', values.sessions, 200)),
  inFlight: Math.round(positive('in-flight', values['in-flight'], 10)),
  ...(warmup === undefined ? {} : { warmupMs: positive('warmup-seconds', warmup, 0) * 1000 }),
  deadlineMs: positive('deadline-seconds', values['deadline-seconds'], 90) * 1000,
  seed: Math.round(positive('seed', values.seed, 13)),
  ...(largeBytes === undefined ? {} : { largeBytes }),
  ...(mix === undefined ? {} : { mix }),
  ...(heapSlope === undefined ? {} : { thresholds: { heapSlopeMiBPerMin: positive('heap-slope', heapSlope, 1) } }),
  onProgress: (line) => process.stderr.write(`${line}\n`),
});
process.stderr.write(`soak: gateway pid ${handle.gatewayPid} at ${handle.url}, load running\n`);
const stop = (): void => {
  process.stderr.write('soak: stopping early\n');
  void handle.stop();
};
process.once('SIGINT', stop);
const result = await handle.done;
process.stdout.write(`${formatReport(result)}\n`);
if (values.out !== undefined) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
process.exit(result.verdict.pass ? 0 : 1);

#!/usr/bin/env node
// npm run fuzz [-- --runs N] [--target <part> ...] [--seed S] [--minutes M] [--out report.json]
// Runs every fuzz target of test/fuzz/*.fuzz.ts (a million inputs each by default), one after the
// other, and prints one line per target: inputs, time, inputs per second, and what failed (the
// smallest failing input, with the seed and path that replay it). Exit 1 when any target failed.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { findFuzzTargets } from '../test/fuzz/find-fuzz-targets.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000000' },
    target: { type: 'string', multiple: true },
    seed: { type: 'string' },
    minutes: { type: 'string' },
    out: { type: 'string' },
  },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const timeLimitMs = values.minutes === undefined ? undefined : Number(values.minutes) * 60_000;
if (!Number.isSafeInteger(runs) || runs <= 0 || !Number.isSafeInteger(seed)) {
  console.error('usage: npm run fuzz -- [--runs N] [--target <part> ...] [--seed S] [--minutes M] [--out report.json]');
  process.exit(2);
}
const all = await findFuzzTargets();
const chosen = values.target ? all.filter((t) => values.target.some((part) => t.name.includes(part))) : all;
if (chosen.length === 0) {
  console.error(`no fuzz target matches ${values.target.join(', ')}; there are: ${all.map((t) => t.name).join(', ')}`);
  process.exit(2);
}
console.error(`fuzzing ${chosen.length} target(s), ${runs} inputs each, seed ${seed}${timeLimitMs ? `, at most ${values.minutes} min each` : ''}`);
const reports = [];
for (const target of chosen) {
  const report = await target.run({ runs, seed, ...(timeLimitMs === undefined ? {} : { timeLimitMs }) });
  reports.push(report);
  const rate = Math.round(report.runs / Math.max(report.ms / 1000, 0.001));
  const outcome = report.failure === undefined ? 'no failure' : 'FAILED';
  console.log(`${report.name}: ${report.runs} inputs in ${(report.ms / 1000).toFixed(1)} s (${rate}/s)${report.interrupted ? ' (time limit)' : ''}: ${outcome}`);
  if (report.failure !== undefined) console.log(report.failure);
}
if (values.out) writeFileSync(values.out, JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, seed, reports }, null, 2) + '\n');
process.exit(reports.some((r) => r.failure !== undefined) ? 1 : 0);

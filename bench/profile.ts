/**
 * A CPU profile of mcp-chain under load: starts `node --cpu-prof dist/cli/main.js [--http
 * 127.0.0.1:0] -- node bench/upstream.mjs` (`--front stdio` or `http`), drives echo
 * calls with `--inflight` in flight for `--calls` calls (plus a few 1 MiB results and 500-tool
 * lists with `--sized`), and stops it; the .cpuprofile lands in `--dir` (default: a temp dir).
 * Open it in Chrome DevTools, or summarise it with `--top`.
 *
 * `--chain <name>` serves bench/chains/<name>.ts (`mcp-chain run`, stdio only) instead of the bare
 * chain; with `--members N` (an aggregate of N copies of the upstream, as `aggregate-3`) the calls
 * go to `a__echo` and a list holds N × 500 tools. `--lists N` adds N `tools/list` calls (after the
 * echo calls; `--calls 0` profiles the lists alone). `--payloads N --kib K` adds N results of K KiB
 * (default 100).
 *
 *   npm run build && node --import tsx bench/profile.ts --front stdio --inflight 16 --calls 20000 --top 25
 *   node --import tsx bench/profile.ts --front stdio --chain aggregate-3 --members 3 --calls 0 --lists 300
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect, echo, initialize, listTools, median, payload, sequential, throughput } from './load-client.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    front: { type: 'string', default: 'http' },
    inflight: { type: 'string', default: '16' },
    calls: { type: 'string', default: '20000' },
    sized: { type: 'boolean', default: false },
    dir: { type: 'string' },
    top: { type: 'string', default: '25' },
    chain: { type: 'string' },
    members: { type: 'string', default: '1' },
    lists: { type: 'string', default: '0' },
    payloads: { type: 'string', default: '0' },
    kib: { type: 'string', default: '100' },
  },
});
const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'mcp-chain-prof-'));
const env = { ...process.env, BENCH_TOOLS: '500' } as Record<string, string>;
delete env.NODE_TEST_CONTEXT;
if (values.front !== 'http' && values.front !== 'stdio') throw new Error(`--front takes stdio or http, got ${values.front}`);
const http = values.front === 'http';
if (http && values.chain !== undefined) throw new Error('--chain is for --front stdio');
const members = Number(values.members);
const tool = members > 1 ? 'a__' : '';
const served = values.chain === undefined ? [] : ['run', join(root, 'bench', 'chains', `${values.chain}.ts`)];
const client = connect({
  id: http ? 'chain-http' : 'mw-0',
  label: http ? 'mcp-chain --http' : 'mcp-chain',
  proxy: true,
  transport: http ? 'http' : 'stdio',
  ...(http ? { url: 'printed' as const } : {}),
  command: process.execPath,
  args: [
    '--cpu-prof',
    '--cpu-prof-dir',
    dir,
    join(root, 'dist', 'cli', 'main.js'),
    ...served,
    ...(http ? ['--http', '127.0.0.1:0'] : ['--log-level', 'silent']),
    '--env',
    'BENCH_TOOLS=500',
    '--',
    process.execPath,
    join(root, 'bench', 'upstream.mjs'),
  ],
  env,
});
try {
  await initialize(client);
  const echoTool = `${tool}echo`;
  // Steady state: the first calls warm the JIT (and an aggregate's first call lists its members).
  await sequential(100, () => echo(client, 'hello', echoTool));
  if (Number(values.calls) > 0) {
    const rate = await throughput(Number(values.inflight), Number(values.calls), () => echo(client, 'hello', echoTool));
    process.stderr.write(`${Math.round(rate)} calls/s at ${values.inflight} in flight\n`);
  }
  if (values.sized) {
    await sequential(20, () => payload(client, 1024, `${tool}payload`));
    await sequential(50, () => listTools(client, 500 * members));
  }
  if (Number(values.payloads) > 0) {
    const kib = Number(values.kib);
    const durations = await sequential(Number(values.payloads), () => payload(client, kib, `${tool}payload`));
    process.stderr.write(`payload of ${kib} KiB: median ${(median(durations) / 1000).toFixed(2)} ms\n`);
  }
  if (Number(values.lists) > 0) {
    const durations = await sequential(Number(values.lists), () => listTools(client, 500 * members));
    process.stderr.write(`tools/list of ${500 * members}: median ${(median(durations) / 1000).toFixed(2)} ms\n`);
  }
} finally {
  await client.close();
}

// Self time per function, from the profile's samples (the same figure as DevTools' "Self Time").
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`no .cpuprofile in ${dir}`);
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: Node[]; samples: number[] };
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<string, number>();
for (const id of profile.samples) {
  const frame = byId.get(id)?.callFrame;
  const where = frame ? `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|dist|src)\//, '$1/')}:${frame.lineNumber + 1}` : '?';
  self.set(where, (self.get(where) ?? 0) + 1);
}
const total = profile.samples.length;
process.stdout.write(`${join(dir, file)}: ${total} samples\n`);
for (const [where, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  process.stdout.write(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${where}\n`);
}

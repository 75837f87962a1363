/**
 * The long form of the HTTP load test: many sessions of the official SDK client, each with calls
 * in flight all the time, against `mcp-chain --http 127.0.0.1:0 --shared -- node bench/upstream.mjs`
 * (or the SDK's own server, `bench/upstream-http.mjs`, with `--target sdk`) for a while. Reports
 * calls, failures by message, the TCP connections of the port on both sides and the descriptors
 * and RSS of both processes over time. Needs `npm run build` (dist/) and Linux (`/proc`).
 *
 *   npm run bench:load                                  # 200 sessions × 10 in flight, 180 s
 *   npm run bench:load -- --duration 60 --sessions 50 --inflight 4
 *   npm run bench:load -- --session-calls 500           # sessions end (DELETE) and are replaced
 *   npm run bench:load -- --target sdk                  # the SDK's own server, no proxy
 *
 * Exits 1 if any call failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fetchPoolStats, newProgress, openDescriptors, openSockets, rssMiB, runSdkLoad, tcpSockets } from './sdk-load.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '200' },
    inflight: { type: 'string', default: '10' },
    duration: { type: 'string', default: '180' },
    'session-calls': { type: 'string', default: '0' },
    sample: { type: 'string', default: '10' },
    target: { type: 'string', default: 'chain' },
  },
});
const sessions = Number(values.sessions);
const inflight = Number(values.inflight);
const durationS = Number(values.duration);
const sampleS = Number(values.sample);

/** Starts the target and resolves with its process and URL (from its stderr). */
function start(): Promise<{ child: ChildProcess; url: string }> {
  const upstream = [process.execPath, join(root, 'bench/upstream.mjs')];
  const args = values.target === 'sdk'
    ? [join(root, 'bench/upstream-http.mjs')]
    : [join(root, 'dist/cli/main.js'), '--http', '127.0.0.1:0', '--shared', '--log-level', 'warn', '--', ...upstream];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let found = false;
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => {
      if (found) return; // keep draining, stop collecting
      stderr += d.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match?.[1]) {
        found = true;
        resolve({ child, url: match[1] });
      }
    });
    child.once('exit', (code) => reject(new Error(`target exited (${code}) before listening: ${stderr}`)));
  });
}

const { child, url } = await start();
const port = Number(new URL(url).port);
const pid = child.pid ?? 0;
const t0 = Date.now();
const progress = newProgress();
const rows: string[] = [];
let peakServer = 0;
let peakClient = 0;
let peakServerFds = 0;
let peakClientFds = 0;
let peakServerRss = 0;
let peakClientRss = 0;
let peakTimeWait = 0;

function sample(label: string): void {
  const sockets = tcpSockets(port);
  const server = openSockets(sockets.server);
  const client = openSockets(sockets.client);
  const timeWait = (sockets.server.TIME_WAIT ?? 0) + (sockets.client.TIME_WAIT ?? 0);
  const timeWaitCell = `${sockets.server.TIME_WAIT ?? 0}/${sockets.client.TIME_WAIT ?? 0}`;
  const serverFds = openDescriptors(pid);
  const clientFds = openDescriptors('self');
  const serverRss = rssMiB(pid);
  const clientRss = rssMiB('self');
  peakServer = Math.max(peakServer, server);
  peakClient = Math.max(peakClient, client);
  peakServerFds = Math.max(peakServerFds, serverFds);
  peakClientFds = Math.max(peakClientFds, clientFds);
  peakServerRss = Math.max(peakServerRss, serverRss);
  peakClientRss = Math.max(peakClientRss, clientRss);
  peakTimeWait = Math.max(peakTimeWait, timeWait);
  const pool = fetchPoolStats();
  const poolCell = pool ? `${pool.connected}/${pool.free}/${pool.running}/${pool.pending}` : '–';
  const row = [label, progress.calls, progress.failures, progress.sessionsOpened, server, client, poolCell, timeWaitCell, serverFds, clientFds, serverRss.toFixed(0), clientRss.toFixed(0)].join(' | ');
  rows.push(`| ${row} |`);
  process.stderr.write(`${row}\n`);
}

const header = '| t (s) | calls ok | failures | sessions opened | server sockets | client sockets | fetch pool connected/free/running/pending | TIME_WAIT server/client | server fds | client fds | server RSS (MiB) | client RSS (MiB) |';
process.stderr.write(`${values.target} at ${url}: ${sessions} sessions × ${inflight} in flight for ${durationS} s\n${header}\n`);
sample('0');
const sampler = setInterval(() => sample(String(Math.round((Date.now() - t0) / 1000))), sampleS * 1000);
await runSdkLoad({ url, sessions, inflight, until: t0 + durationS * 1000, callsPerSession: Number(values['session-calls']) }, progress);
clearInterval(sampler);
const elapsed = (Date.now() - t0) / 1000;
sample(`${elapsed.toFixed(0)} (clients closed)`);
// Idle connections end by the keep-alive timeouts: wait (bounded) until both sides hold none.
const settle = Date.now() + 30_000;
while (Date.now() < settle) {
  const sockets = tcpSockets(port);
  if (openSockets(sockets.server) === 0 && openSockets(sockets.client) === 0) break;
  await new Promise((resolve) => setTimeout(resolve, 250));
}
sample(`${((Date.now() - t0) / 1000).toFixed(0)} (idle)`);
child.kill('SIGTERM');

const out = process.stdout;
out.write(`\n### ${values.target === 'sdk' ? 'SDK server (no proxy)' : 'mcp-chain --http --shared'}: ${sessions} sessions × ${inflight} in flight, ${durationS} s\n\n`);
out.write(`calls ok ${progress.calls} (${(progress.calls / elapsed).toFixed(0)}/s), failures ${progress.failures}, sessions opened ${progress.sessionsOpened}\n`);
out.write(`peak: server sockets ${peakServer}, client sockets ${peakClient}, TIME_WAIT ${peakTimeWait}, server fds ${peakServerFds}, client fds ${peakClientFds}, server RSS ${peakServerRss.toFixed(0)} MiB, client RSS ${peakClientRss.toFixed(0)} MiB\n`);
for (const [message, count] of progress.failuresByMessage) out.write(`  ${count} × ${message}\n`);
out.write(`\n${header}\n|${'---|'.repeat(12)}\n${rows.join('\n')}\n`);
process.exit(progress.failures === 0 ? 0 : 1);

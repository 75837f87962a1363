/* global process, setInterval */
// Preloaded into the process under test (`node --expose-gc --import <this file> ...`): every
// MCP_CHAIN_SOAK_PROBE_MS (default 1000) ms, one JSON line with process.memoryUsage() and the time
// is written to the file MCP_CHAIN_SOAK_PROBE_FILE (opened once, kept open: one descriptor for the
// whole life of the process). With --expose-gc, a full collection runs first, so heapUsed is the
// live heap, not where the collector happened to be. The timer is unref'd: the process exits as
// it would without the probe. Without MCP_CHAIN_SOAK_PROBE_FILE it does nothing.
import { closeSync, openSync, writeSync } from 'node:fs';

const file = process.env.MCP_CHAIN_SOAK_PROBE_FILE;
if (file) {
  const fd = openSync(file, 'a');
  const every = Number(process.env.MCP_CHAIN_SOAK_PROBE_MS ?? '1000') || 1000;
  const gc = typeof globalThis.gc === 'function' ? globalThis.gc : undefined;
  const sample = () => {
    gc?.();
    const m = process.memoryUsage();
    writeSync(fd, `${JSON.stringify({ t: Date.now(), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, gc: gc !== undefined })}\n`);
  };
  sample();
  setInterval(sample, every).unref();
  process.once('exit', () => {
    try {
      sample();
      closeSync(fd);
    } catch {
      // the process is going away
    }
  });
}

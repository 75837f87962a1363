#!/usr/bin/env node
// The benchmark's upstream: a trivial MCP server speaking raw newline-delimited JSON-RPC on
// stdio, in plain JavaScript with no dependencies so it starts fast and costs next to nothing.
//
//   BENCH_TOOLS=500 node bench/upstream.mjs
//
// Its tools are in `upstream-core.mjs` (shared with `upstream-http.mjs`, the same server over
// Streamable HTTP). Exits when stdin ends (after flushing stdout).
import { Buffer } from 'node:buffer';
import process from 'node:process';

import { handle } from './upstream-core.mjs';

const NEWLINE = 0x0a;

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function onLine(buffer) {
  if (buffer.length === 0) return;
  let message;
  try {
    message = JSON.parse(buffer.toString('utf8'));
  } catch {
    return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
  const answer = handle(message);
  if (answer !== undefined) send(answer);
}

/** @type {Buffer[]} the start of a line split across chunks */
let partial = [];
process.stdin.on('data', (chunk) => {
  let start = 0;
  let nl = chunk.indexOf(NEWLINE, start);
  while (nl !== -1) {
    const piece = chunk.subarray(start, nl);
    if (partial.length > 0) {
      partial.push(piece);
      onLine(Buffer.concat(partial));
      partial = [];
    } else {
      onLine(piece);
    }
    start = nl + 1;
    nl = chunk.indexOf(NEWLINE, start);
  }
  if (start < chunk.length) partial.push(chunk.subarray(start));
});
// When stdin ends nothing is left to keep the event loop alive: we exit once stdout is flushed.
process.stdout.on('error', () => process.exit(0)); // EPIPE: the client is gone

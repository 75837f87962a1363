#!/usr/bin/env node
// The benchmark's upstream: a trivial MCP server speaking raw newline-delimited JSON-RPC on
// stdio, in plain JavaScript with no dependencies so it starts fast and costs next to nothing.
//
//   BENCH_TOOLS=500 node bench/upstream.mjs
//
// Tools: `echo` (returns its `text` argument), `payload` (returns `kib` KiB of text), and filler
// tools up to BENCH_TOOLS in all (default 3), each ~400 bytes of realistic JSON, so a 500-tool
// `tools/list` result is ~200 KiB. Exits when stdin ends (after flushing stdout).
import { Buffer } from 'node:buffer';
import process from 'node:process';

const TOOL_COUNT = Math.max(2, Number.parseInt(process.env.BENCH_TOOLS ?? '3', 10) || 3);
const SERVER_INFO = { name: 'bench-upstream', version: '1.0.0' };
const NEWLINE = 0x0a;

/** @type {unknown[] | undefined} built on the first tools/list */
let toolsCache;
/** @type {Map<number, string>} payload texts by size in KiB */
const payloads = new Map();

const VERBS = ['search', 'get', 'list', 'create', 'update', 'archive', 'export', 'sync'];
const NOUNS = ['issues', 'invoices', 'customers', 'documents', 'builds', 'tickets', 'orders', 'reports'];

function fillerTool(i) {
  const verb = VERBS[i % VERBS.length];
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
  return {
    name: `${verb}_${noun}_${String(i).padStart(3, '0')}`,
    description: `${verb[0].toUpperCase()}${verb.slice(1)}s ${noun} in workspace ${i} of the ACME tracker. Results are paginated; pass the cursor from a previous page to continue.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Free-text filter' },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Page size' },
        cursor: { type: 'string', description: 'Opaque cursor' },
      },
      required: ['query'],
    },
  };
}

function tools() {
  if (toolsCache) return toolsCache;
  const list = [
    {
      name: 'echo',
      description: 'Returns its text argument unchanged.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    {
      name: 'payload',
      description: 'Returns a text content of the requested size in KiB.',
      inputSchema: { type: 'object', properties: { kib: { type: 'integer', minimum: 0 } }, required: ['kib'] },
    },
  ];
  for (let i = 2; i < TOOL_COUNT; i++) list.push(fillerTool(i));
  toolsCache = list;
  return list;
}

function payloadText(kib) {
  let text = payloads.get(kib);
  if (text === undefined) {
    text = 'abcdefghijklmnopqrstuvwxyz012345'.repeat(32 * kib); // 32 bytes × 32 = 1 KiB
    payloads.set(kib, text);
  }
  return text;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function reply(id, result) {
  send({ jsonrpc: '2.0', id, result });
}

function fail(id, code, message) {
  send({ jsonrpc: '2.0', id, error: { code, message } });
}

function callTool(id, params) {
  const name = params?.name;
  const args = params?.arguments ?? {};
  if (name === 'echo') {
    reply(id, { content: [{ type: 'text', text: String(args.text ?? '') }] });
  } else if (name === 'payload') {
    const kib = Number(args.kib);
    if (!Number.isInteger(kib) || kib < 0 || kib > 64 * 1024) return fail(id, -32602, 'kib must be an integer 0..65536');
    reply(id, { content: [{ type: 'text', text: payloadText(kib) }] });
  } else if (typeof name === 'string' && tools().some((tool) => tool.name === name)) {
    reply(id, { content: [{ type: 'text', text: `${name}: nothing found` }] });
  } else {
    fail(id, -32602, `Unknown tool: ${String(name)}`);
  }
}

function handle(message) {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return;
  const { id, method, params } = message;
  if (id === undefined || id === null) return; // notifications (initialized, cancelled): nothing to do
  switch (method) {
    case 'initialize':
      return reply(id, {
        protocolVersion: typeof params?.protocolVersion === 'string' ? params.protocolVersion : '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: SERVER_INFO,
      });
    case 'ping':
      return reply(id, {});
    case 'tools/list':
      return reply(id, { tools: tools() });
    case 'tools/call':
      return callTool(id, params);
    default:
      if (typeof method === 'string') return fail(id, -32601, `Method not found: ${method}`);
  }
}

function onLine(buffer) {
  if (buffer.length === 0) return;
  let message;
  try {
    message = JSON.parse(buffer.toString('utf8'));
  } catch {
    return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
  handle(message);
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

// The benchmark upstream's behaviour, shared by its two transports: `upstream.mjs` (raw
// newline-delimited JSON-RPC on stdio) and `upstream-http.mjs` (the official SDK's Streamable
// HTTP server transport). Plain JavaScript, no dependencies.
//
// Tools: `echo` (returns its `text` argument), `payload` (returns `kib` KiB of text), and filler
// tools up to BENCH_TOOLS in all (default 3), each ~400 bytes of realistic JSON, so a 500-tool
// `tools/list` result is ~200 KiB.
import process from 'node:process';

const TOOL_COUNT = Math.max(2, Number.parseInt(process.env.BENCH_TOOLS ?? '3', 10) || 3);
const SERVER_INFO = { name: 'bench-upstream', version: '1.0.0' };

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

const reply = (id, result) => ({ jsonrpc: '2.0', id, result });
const fail = (id, code, message) => ({ jsonrpc: '2.0', id, error: { code, message } });

function callTool(id, params) {
  const name = params?.name;
  const args = params?.arguments ?? {};
  if (name === 'echo') return reply(id, { content: [{ type: 'text', text: String(args.text ?? '') }] });
  if (name === 'payload') {
    const kib = Number(args.kib);
    if (!Number.isInteger(kib) || kib < 0 || kib > 64 * 1024) return fail(id, -32602, 'kib must be an integer 0..65536');
    return reply(id, { content: [{ type: 'text', text: payloadText(kib) }] });
  }
  if (typeof name === 'string' && tools().some((tool) => tool.name === name)) return reply(id, { content: [{ type: 'text', text: `${name}: nothing found` }] });
  return fail(id, -32602, `Unknown tool: ${String(name)}`);
}

/**
 * The answer to one parsed JSON-RPC message, or undefined when none is due (a notification, a
 * response, anything that is not an object).
 * @param {unknown} message
 * @returns {{ jsonrpc: '2.0', id: unknown, result?: unknown, error?: { code: number, message: string } } | undefined}
 */
export function handle(message) {
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
      return typeof method === 'string' ? fail(id, -32601, `Method not found: ${method}`) : undefined;
  }
}

#!/usr/bin/env node
// The benchmark upstream (`upstream-core.mjs`, the same tools as `upstream.mjs`) served over
// Streamable HTTP by the official SDK's `StreamableHTTPServerTransport`, stateful (one transport
// per `Mcp-Session-Id`): the "SDK direct" target, the ceiling of the HTTP targets. The handler
// sits on the transport itself (no `Server` class), so what is measured is the SDK's HTTP
// transport and nothing of ours.
//
//   BENCH_TOOLS=500 node bench/upstream-http.mjs [--port 0]
//
// Listens on 127.0.0.1 (port 0 by default: a free one) and writes
// `listening on http://127.0.0.1:PORT/mcp` to stderr. Exits on SIGTERM / SIGINT.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

import { handle } from './upstream-core.mjs';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });

/** @type {Map<string, StreamableHTTPServerTransport>} */
const sessions = new Map();

function jsonError(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

async function onRequest(req, res) {
  if (!req.url?.startsWith('/mcp')) return jsonError(res, 404, 'Not found');
  const header = req.headers['mcp-session-id'];
  const sessionId = Array.isArray(header) ? header[0] : header;
  if (sessionId !== undefined) {
    const transport = sessions.get(sessionId);
    if (!transport) return jsonError(res, 404, 'Session not found');
    return transport.handleRequest(req, res);
  }
  if (req.method !== 'POST') return jsonError(res, 400, 'Bad Request: Mcp-Session-Id header is required');
  // A new session: the transport accepts only an initialize request here and answers 400 otherwise.
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
    onsessionclosed: (id) => sessions.delete(id),
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  transport.onmessage = (message) => {
    const answer = handle(message);
    if (answer !== undefined) void transport.send(answer);
  };
  await transport.start();
  return transport.handleRequest(req, res);
}

const server = createServer((req, res) => {
  onRequest(req, res).catch((error) => {
    process.stderr.write(`upstream-http: ${error instanceof Error ? error.message : String(error)}\n`);
    if (!res.headersSent) jsonError(res, 500, 'Internal error');
    else res.end();
  });
});
server.listen(Number(values.port), '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});

function shutdown() {
  for (const transport of sessions.values()) void transport.close();
  server.closeAllConnections();
  server.close(() => process.exit(0));
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

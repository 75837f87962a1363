// The soak's member: an MCP server (official SDK, McpServer) whose every answer is derived from
// its request, so the load can check it (bench/soak/content.ts).
//
//   echo     {token}                 -> {member, token}
//   progress {token, steps, gapMs}    -> `steps` notifications/progress (message <token>/<i>), then {member, token, steps}
//   sample   {token}                  -> sampling/createMessage to the client (text: token), then {member, token, answer}
//   large    {token, bytes}           -> [largeText(token, bytes), {member, token, bytes}]
//   slow     {token, ms}              -> {member, token, ms} after `ms`, unless cancelled first
//
//   Streamable HTTP: node --import tsx bench/soak/soak-member.ts --http [--port 0] [--stats-file F]
//                    stateful sessions at /<name>/mcp for any name [a-z0-9-]+ (the name is the member's);
//                    prints "soak member listening on http://127.0.0.1:<port>" on stderr.
//   stdio:           node --import tsx bench/soak/soak-member.ts --name <name> [--stats-file F]
//
// --stats-file: every 250 ms (and at exit) the counters per name as JSON (written by rename):
// sessions open and opened, calls per tool, cancellations seen, slow calls in progress.
import { randomUUID } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { largeText, progressMessage } from './content.js';

/** Counters of one member name. */
interface MemberStats {
  sessionsOpen: number;
  sessionsOpened: number;
  calls: Record<string, number>;
  cancelled: number;
  slowActive: number;
}

const stats = new Map<string, MemberStats>();
function statsOf(name: string): MemberStats {
  let s = stats.get(name);
  if (s === undefined) {
    s = { sessionsOpen: 0, sessionsOpened: 0, calls: {}, cancelled: 0, slowActive: 0 };
    stats.set(name, s);
  }
  return s;
}

function json(value: unknown): { content: [{ type: 'text'; text: string }] } {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** One McpServer (one per session) of member `name`. */
function soakServer(name: string): McpServer {
  const s = statsOf(name);
  const count = (tool: string): void => {
    s.calls[tool] = (s.calls[tool] ?? 0) + 1;
  };
  const server = new McpServer({ name: `soak-${name}`, version: '1.0.0' });
  server.registerTool('echo', { description: 'Returns its token', inputSchema: { token: z.string() } }, async ({ token }) => {
    count('echo');
    return json({ member: name, token });
  });
  server.registerTool(
    'progress',
    { description: 'Sends `steps` progress notifications, then returns', inputSchema: { token: z.string(), steps: z.number().int().min(0).max(100), gapMs: z.number().int().min(0).max(1000) } },
    async ({ token, steps, gapMs }, extra) => {
      count('progress');
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (extra.signal.aborted) break;
        if (progressToken !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps, message: progressMessage(token, i) } });
        }
        if (gapMs > 0) await sleep(gapMs, extra.signal);
      }
      return json({ member: name, token, steps });
    },
  );
  server.registerTool('sample', { description: 'Asks the client to sample the token, returns its answer', inputSchema: { token: z.string() } }, async ({ token }, extra) => {
    count('sample');
    const result = await extra.sendRequest(
      { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: token } }], maxTokens: 16 } },
      CreateMessageResultSchema,
    );
    const answer = result.content.type === 'text' ? result.content.text : `(${result.content.type})`;
    return json({ member: name, token, answer });
  });
  server.registerTool(
    'large',
    { description: 'Returns `bytes` characters derived from the token', inputSchema: { token: z.string(), bytes: z.number().int().min(0).max(8 * 1024 * 1024) } },
    async ({ token, bytes }) => {
      count('large');
      return { content: [{ type: 'text', text: largeText(token, bytes) }, { type: 'text', text: JSON.stringify({ member: name, token, bytes }) }] };
    },
  );
  server.registerTool(
    'slow',
    { description: 'Answers after `ms`, unless cancelled', inputSchema: { token: z.string(), ms: z.number().int().min(0).max(3_600_000) } },
    async ({ token, ms }, extra) => {
      count('slow');
      s.slowActive++;
      try {
        const done = await sleep(ms, extra.signal);
        if (!done) s.cancelled++;
        return json({ member: name, token, ms, cancelled: !done });
      } finally {
        s.slowActive--;
      }
    },
  );
  return server;
}

// ---------------------------------------------------------------------------------------------

function writeStats(file: string | undefined): void {
  if (file === undefined) return;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(Object.fromEntries(stats)));
  renameSync(tmp, file);
}

function sendJsonRpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

async function serveHttp(port: number, statsFile: string | undefined): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function handle(name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const transport = sessions.get(sessionId);
      if (transport === undefined) return sendJsonRpcError(res, 404, 'Session not found');
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      return transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') return sendJsonRpcError(res, 400, 'Mcp-Session-Id header is required');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return sendJsonRpcError(res, 400, 'Mcp-Session-Id header is required');
    const s = statsOf(name);
    let closed = false;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        s.sessionsOpen++;
        s.sessionsOpened++;
      },
    });
    transport.onclose = () => {
      if (closed) return;
      closed = true;
      if (transport.sessionId !== undefined && sessions.delete(transport.sessionId)) s.sessionsOpen--;
    };
    await soakServer(name).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const server = createServer((req, res) => {
    const match = /^\/([a-z0-9-]+)\/mcp$/.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (match?.[1] === undefined) {
      res.writeHead(404).end();
      return;
    }
    handle(match[1], req, res).catch((error: unknown) => {
      process.stderr.write(`soak member: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!res.headersSent) sendJsonRpcError(res, 500, 'Internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const timer = setInterval(() => writeStats(statsFile), 250);
  writeStats(statsFile);
  process.stderr.write(`soak member listening on http://127.0.0.1:${bound}\n`);
  const shutdown = (): void => {
    clearInterval(timer);
    writeStats(statsFile);
    for (const transport of sessions.values()) void transport.close();
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

async function serveStdio(name: string, statsFile: string | undefined): Promise<void> {
  const s = statsOf(name);
  const server = soakServer(name);
  await server.connect(new StdioServerTransport());
  s.sessionsOpen++;
  s.sessionsOpened++;
  const timer = setInterval(() => writeStats(statsFile), 250);
  timer.unref();
  writeStats(statsFile);
  const exit = (): void => {
    clearInterval(timer);
    s.sessionsOpen--;
    writeStats(statsFile);
    process.exit(0);
  };
  process.stdin.on('end', exit);
  process.on('SIGTERM', exit);
  process.on('SIGINT', exit);
}

const { values: cli } = parseArgs({ options: { http: { type: 'boolean' }, port: { type: 'string' }, name: { type: 'string' }, 'stats-file': { type: 'string' } } });
if (cli.http === true) await serveHttp(Number(cli.port ?? '0'), cli['stats-file']);
else await serveStdio(cli.name ?? 'stdio', cli['stats-file']);

/**
 * Sustained load through the official SDK client (`Client` over `StreamableHTTPClientTransport`,
 * i.e. Node's fetch): `sessions` sessions at once, each with `inflight` `tools/call echo` in flight
 * all the time, every failure counted by its message. Used by `bench/load-sessions.ts` (the long
 * form) and `test/integration/http-load.test.ts` (the short form). Also: the TCP connections of
 * one port on both sides, read from `/proc/net/tcp{,6}` (Linux), and a process's open descriptors
 * and RSS.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface SdkLoadOptions {
  url: string;
  sessions: number;
  inflight: number;
  /** Stop starting calls once this many have been started (in all). */
  maxCalls?: number;
  /** Stop starting calls at this `Date.now()`. */
  until?: number;
  /** A session ends (DELETE, close) after this many calls and a new one takes its place; 0 never. */
  callsPerSession?: number;
  /** Called after every call, answered or failed (to sample counters by progress, not by time). */
  onSettled?: (progress: SdkLoadProgress) => void;
}

export interface SdkLoadResult {
  calls: number;
  failures: number;
  /** Failures by message (the cause's message appended, e.g. `fetch failed: other side closed`). */
  failuresByMessage: Map<string, number>;
  sessionsOpened: number;
}

/** Live counters, read while the load runs. */
export interface SdkLoadProgress extends SdkLoadResult {
  readonly started: number;
}

/** Runs the load; `progress` is updated as it goes. */
export async function runSdkLoad(options: SdkLoadOptions, progress: SdkLoadProgress = newProgress()): Promise<SdkLoadResult> {
  const { maxCalls = Infinity, until = Infinity, callsPerSession = 0 } = options;
  let started = 0;
  const more = (): boolean => started < maxCalls && Date.now() < until;
  const fail = (error: unknown): void => {
    progress.failures++;
    const key = describe(error);
    progress.failuresByMessage.set(key, (progress.failuresByMessage.get(key) ?? 0) + 1);
  };

  const worker = async (w: number): Promise<void> => {
    while (more()) {
      const client = new Client({ name: `load-${w}`, version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(options.url));
      transport.onerror = (error) => {
        // The GET stream's reconnect noise is not a call failure; calls report their own.
        if (!/SSE stream disconnected|AbortError|aborted/i.test(describe(error))) fail(error);
      };
      try {
        await client.connect(transport);
      } catch (error) {
        fail(error);
        await client.close().catch(() => undefined);
        continue;
      }
      progress.sessionsOpened++;
      let calls = 0;
      const sessionMore = (): boolean => more() && (callsPerSession === 0 || calls < callsPerSession);
      await Promise.all(Array.from({ length: options.inflight }, async (_, slot) => {
        while (sessionMore()) {
          started++;
          calls++;
          (progress as { started: number }).started = started;
          const text = `${w}.${slot}.${calls}`;
          try {
            const result = await client.callTool({ name: 'echo', arguments: { text } });
            const content = (result as { content?: Array<{ text?: string }> }).content;
            if (content?.[0]?.text !== text) throw new Error(`wrong answer: ${JSON.stringify(result)}`);
            progress.calls++;
          } catch (error) {
            fail(error);
          }
          options.onSettled?.(progress);
        }
      }));
      try {
        await transport.terminateSession();
      } catch (error) {
        fail(error);
      }
      await client.close().catch(fail);
    }
  };
  await Promise.all(Array.from({ length: options.sessions }, (_, w) => worker(w)));
  return progress;
}

export function newProgress(): SdkLoadProgress {
  return { calls: 0, failures: 0, failuresByMessage: new Map(), sessionsOpened: 0, started: 0 };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${(error.cause as NodeJS.ErrnoException).code ?? ''} ${error.cause.message}` : '';
  return `${error.message}${cause}`.slice(0, 200);
}

const TCP_STATES: Record<string, string> = {
  '01': 'ESTABLISHED', '02': 'SYN_SENT', '03': 'SYN_RECV', '04': 'FIN_WAIT1', '05': 'FIN_WAIT2', '06': 'TIME_WAIT',
  '07': 'CLOSE', '08': 'CLOSE_WAIT', '09': 'LAST_ACK', '0A': 'LISTEN', '0B': 'CLOSING',
};

/** TCP connections of `port` by state: `server` where it is the local port, `client` where it is the remote one. */
export interface PortSockets {
  server: Record<string, number>;
  client: Record<string, number>;
}

/** The connections of a TCP port on this machine (both ends are here on loopback), by state. */
export function tcpSockets(port: number): PortSockets {
  const sockets: PortSockets = { server: {}, client: {} };
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [, local, remote, st] = fields;
      if (local === undefined || remote === undefined || st === undefined) continue;
      const state = TCP_STATES[st] ?? st;
      if (state === 'LISTEN') continue;
      if (local.endsWith(`:${hex}`)) sockets.server[state] = (sockets.server[state] ?? 0) + 1;
      else if (remote.endsWith(`:${hex}`)) sockets.client[state] = (sockets.client[state] ?? 0) + 1;
    }
  }
  return sockets;
}

/** Sockets with a descriptor (every state but TIME_WAIT, which has none). */
export function openSockets(side: Record<string, number>): number {
  let n = 0;
  for (const [state, count] of Object.entries(side)) if (state !== 'TIME_WAIT') n += count;
  return n;
}

/** Open file descriptors of a process (`self` for this one); -1 once it is gone. */
export function openDescriptors(pid: number | 'self'): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return -1;
  }
}

/** Resident set size in MiB; -1 once the process is gone. */
export function rssMiB(pid: number | 'self'): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) / 1024 : -1;
  } catch {
    return -1;
  }
}

/** The global fetch dispatcher's connection pools (Node's bundled undici), summed; undefined if not found. */
export interface FetchPoolStats {
  connected: number;
  free: number;
  running: number;
  pending: number;
}

/**
 * What Node's fetch holds, from undici's `Pool#stats` of the global dispatcher: connected sockets,
 * idle ones, requests running and waiting. Reaches into undici by symbol description (a
 * diagnostic for the benchmark, not an API), so it may find nothing on another Node version.
 */
export function fetchPoolStats(): FetchPoolStats | undefined {
  const dispatcherKey = Object.getOwnPropertySymbols(globalThis).find((s) => String(s).startsWith('Symbol(undici.globalDispatcher'));
  const agent = dispatcherKey === undefined ? undefined : (globalThis as Record<symbol, unknown>)[dispatcherKey];
  if (typeof agent !== 'object' || agent === null) return undefined;
  const clientsKey = Object.getOwnPropertySymbols(agent).find((s) => String(s) === 'Symbol(clients)');
  const clients = clientsKey === undefined ? undefined : (agent as Record<symbol, unknown>)[clientsKey];
  if (!(clients instanceof Map)) return undefined;
  const total: FetchPoolStats = { connected: 0, free: 0, running: 0, pending: 0 };
  for (const value of clients.values() as Iterable<unknown>) {
    const pool = value instanceof WeakRef ? (value.deref() as unknown) : value;
    const stats = (pool as { stats?: Partial<FetchPoolStats> } | undefined)?.stats;
    if (!stats) continue;
    total.connected += stats.connected ?? 0;
    total.free += stats.free ?? 0;
    total.running += stats.running ?? 0;
    total.pending += stats.pending ?? 0;
  }
  return total;
}

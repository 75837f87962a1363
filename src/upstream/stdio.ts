import type { ChildProcess } from 'node:child_process';
import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import type { Logger } from '../log/logger.js';
import type { McpMessage, Result } from '../message/jsonrpc.js';
import { Peer } from '../rpc/peer.js';
import { withEras } from '../eras/era-connection.js';
import { StreamTransport } from '../transport/stream-transport.js';
import { killProcessGroup } from './kill-process-group.js';
import { trackProcessGroup } from './live-process-groups.js';
import { LineSplitter } from './line-splitter.js';
import { jitteredDelay } from './restart-backoff.js';
import { SessionReplay } from './session-replay.js';
import { spawnServer, type ServerCommand, type SpawnedServer } from './spawn-server.js';
import { requestScope, type RequestScope } from '../core/request-scope.js';
import type { Downstream } from '../core/downstream.js';
import type { SessionInfo } from '../core/session-info.js';
import { StatusReporter } from '../core/status-reporter.js';
import type { Upstream, UpstreamConnection } from '../core/upstream.js';
import type { UpstreamStatusListener } from '../core/upstream-status.js';

/** A stdio server: how to start it (command, args, env, inheritEnv, cwd), and how to run it. */
export interface StdioOptions extends ServerCommand {
  /** The name in logs; defaults to the command's base name. */
  name?: string;
  /**
   * Restart backoff after a crash: first delay, factor, ceiling (ms), defaults 250, 2, 30 000, with
   * full jitter (each delay a uniform draw up to the backoff, never above the ceiling); `random`
   * (default `Math.random`, for tests) is the source of the draw.
   */
  restart?: { initialDelayMs?: number; factor?: number; maxDelayMs?: number; random?: () => number };
  /**
   * How long each shutdown step (stdin closed, then SIGTERM) waits before the next. Default 1000 ms,
   * so that the whole shutdown fits in the time clients give us (the official SDK sends its own
   * SIGTERM 2 s after closing our stdin).
   */
  shutdownGraceMs?: number;
  maxMessageBytes?: number;
  /** Start the server on the first message instead of as soon as the session opens. Default false. */
  lazy?: boolean;
  /**
   * A process already started with {@link spawnServer} from these same options, used by the first
   * connection (the CLI starts the server before it loads the rest of itself).
   */
  prestarted?: SpawnedServer;
}

/**
 * An upstream MCP server started as a child process, one per downstream session. Its stdout
 * carries the protocol (lines that are not JSON-RPC are logged and dropped); its stderr is relayed
 * to our log, line by line, with its name. If it crashes, every request in flight fails at once and
 * the next message restarts it (after an exponential backoff with jitter), re-initializes it with the client's
 * original parameters, and tells it again the log level and resource subscriptions the session had.
 */
export function stdio(options: StdioOptions): Upstream {
  let prestarted = options.prestarted;
  const upstream: Upstream = {
    connect: (downstream, session) => {
      const adopted = prestarted;
      prestarted = undefined;
      return new StdioConnection(options, downstream, session, adopted);
    },
  };
  // Each client in its own era, where the server speaks both (see EraProbe).
  return withEras(upstream, { probe: 'client' });
}

interface Running {
  child: ChildProcess;
  peer: Peer;
  transport: StreamTransport;
  exited: Promise<void>;
}

class StdioConnection implements UpstreamConnection {
  readonly #options: StdioOptions;
  readonly #downstream: Downstream;
  readonly #log: Logger;
  readonly #name: string;
  #running: Running | undefined;
  #starting: Promise<Peer> | undefined;
  /** What a restarted server must be told again. */
  readonly #replay = new SessionReplay();
  #crashes = 0;
  #lastCrash = 0;
  #startedAt = 0;
  #closed = false;
  #adopted: SpawnedServer | undefined;
  /** Nested pauses asked by the session (the client is not reading what we relay). */
  #paused = 0;
  /** Down when the server exits on its own; up once a restarted one is re-initialized. */
  readonly #status: StatusReporter;

  constructor(options: StdioOptions, downstream: Downstream, session: SessionInfo, adopted?: SpawnedServer) {
    this.#options = options;
    this.#adopted = adopted;
    this.#downstream = downstream;
    this.#name = options.name ?? options.command.split('/').pop() ?? options.command;
    this.#log = session.log.child({ upstream: this.#name });
    this.#status = new StatusReporter(this.#log);
    // Start now, so the server boots while the client is still connecting; a failure to start is
    // reported to the first request.
    if (options.lazy !== true) this.#ready(false).catch(() => undefined);
  }

  // Both go out at once while the server runs (no await on the hot path), and otherwise after it
  // is ready: either way requests and notifications keep the order they came in.
  request(message: McpMessage, scope: RequestScope): Promise<Result> {
    this.#replay.sending(message);
    const running = this.#readyNow();
    const sent = running
      ? running.peer.request(message, scope)
      : this.#ready(message.method !== 'initialize').then((peer) => peer.request(message, scope));
    if (!SessionReplay.remembers(message)) return sent;
    return sent.then((result) => {
      this.#replay.succeeded(message);
      return result;
    });
  }

  notify(message: McpMessage): Promise<void> {
    this.#replay.sending(message);
    const running = this.#readyNow();
    if (running) {
      running.peer.notify(message);
      return Promise.resolve();
    }
    return this.#ready(message.method !== 'notifications/initialized').then((peer) => peer.notify(message));
  }

  /** Stop reading the server's stdout: it blocks on a full pipe, and so is held back. */
  pause(): void {
    if (this.#paused++ === 0) this.#running?.transport.pause();
  }

  resume(): void {
    if (this.#paused > 0 && --this.#paused === 0) this.#running?.transport.resume();
  }

  /** Down when the server exits or crashes (or cannot be started); up, restarted, once the next message restarted it. */
  onStatus(listener: UpstreamStatusListener): () => void {
    return this.#status.subscribe(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#status.close();
    const running = this.#running;
    if (!running) return;
    await running.peer.close(new McpError(ErrorCode.ConnectionClosed, `Upstream ${this.#name} closed`));
    running.child.stdin?.end();
    await killProcessGroup(running.child, running.exited, this.#options.shutdownGraceMs ?? 1000);
  }

  /** The running child, if it is ready for traffic now (not closed, not being started or restored). */
  #readyNow(): Running | undefined {
    return this.#closed || this.#starting ? undefined : this.#running;
  }

  /** The peer of a running child; starts (or restarts and re-initializes) one when needed. */
  #ready(reinitialize: boolean): Promise<Peer> {
    if (this.#closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, `Upstream ${this.#name} closed`));
    // A restarted server is running before it is ready: its session is being restored.
    if (this.#starting) return this.#starting;
    if (this.#running) return Promise.resolve(this.#running.peer);
    this.#starting ??= this.#start(reinitialize).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(reinitialize: boolean): Promise<Peer> {
    if (this.#crashes > 0) {
      const { initialDelayMs = 250, factor = 2, maxDelayMs = 30_000, random } = this.#options.restart ?? {};
      const delay = jitteredDelay({ initialDelayMs, factor, maxDelayMs }, this.#crashes - 1, random) - (Date.now() - this.#lastCrash);
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      this.#log.info('restarting upstream', { attempt: this.#crashes });
    }
    const running = await this.#spawn();
    if (reinitialize) {
      const { peer } = running;
      await this.#replay.restore({
        request: (message) => peer.request(message, { signal: AbortSignal.timeout(30_000) }),
        notify: (message) => peer.notify(message),
      }, this.#log);
    }
    this.#status.up(true);
    return running.peer;
  }

  async #spawn(): Promise<Running> {
    this.#startedAt = Date.now();
    const spawned = this.#adopted ?? spawnServer(this.#options);
    this.#adopted = undefined;
    try {
      await spawned.started;
    } catch (error) {
      const reason = `could not start: ${error instanceof Error ? error.message : String(error)}`;
      this.#crashed();
      if (!this.#closed) this.#status.down(reason);
      throw new McpError(ErrorCode.ConnectionClosed, `Upstream ${this.#name} ${reason}`);
    }
    trackProcessGroup(spawned.child);
    return this.#attach(spawned.child);
  }


  #attach(child: ChildProcess): Running {
    const { stdin, stdout, stderr } = child;
    if (!stdin || !stdout || !stderr) throw new Error('spawned without pipes');
    const transport = new StreamTransport(stdout, stdin, this.#maxBytes());
    const peer = new Peer(
      transport,
      {
        request: (message, scope) => this.#downstream.request(message, requestScope(scope.cancel, undefined)),
        notification: (message) => {
          this.#downstream.notify(message).catch((error: unknown) => {
            this.#log.warn('delivering a notification failed', { method: message.method, error: String(error) });
          });
        },
        // stdout ended on its own: a server that can no longer talk to us is stopped. (When we
        // close the connection ourselves, close() runs the orderly shutdown instead.)
        closed: () => {
          if (!this.#closed && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        },
      },
      { log: this.#log, answerInvalid: false },
    );
    // A server that does not read its stdin holds the client back until it drains (and always
    // lets it go when the server exits).
    let holding = false;
    const hold = (congested: boolean): void => {
      if (congested === holding) return;
      holding = congested;
      if (congested) this.#downstream.pause?.();
      else this.#downstream.resume?.();
    };
    transport.oncongestion = hold;
    if (this.#paused > 0) transport.pause();
    const splitter = new LineSplitter((line) => this.#log.info(line, { stream: 'stderr' }));
    stderr.on('data', (chunk: Buffer) => splitter.push(chunk));
    stdin.on('error', () => undefined); // EPIPE after a crash is reported by 'close' below
    const exited = new Promise<void>((resolve) => {
      child.once('close', (code, signal) => {
        splitter.flush();
        hold(false);
        const how = signal ? `signal ${signal}` : `code ${String(code)}`;
        if (this.#running?.child === child) this.#running = undefined;
        if (!this.#closed) {
          this.#log.warn(`upstream exited (${how})`);
          this.#crashed();
          this.#status.down(`exited (${how})`);
        }
        void peer.close(new McpError(ErrorCode.ConnectionClosed, `Upstream ${this.#name} exited (${how}) before answering`));
        resolve();
      });
      // The leader is gone: take whatever it left in its process group with it, so pipes close.
      child.once('exit', () => killProcessGroup.now(child, 'SIGKILL'));
    });
    void peer.start();
    const running: Running = { child, peer, transport, exited };
    this.#running = running;
    return running;
  }

  #maxBytes(): { maxMessageBytes?: number } {
    return this.#options.maxMessageBytes === undefined ? {} : { maxMessageBytes: this.#options.maxMessageBytes };
  }

  /** Backoff grows with crashes in a row; a child that ran for a minute starts the count again. */
  #crashed(): void {
    this.#crashes = Date.now() - this.#startedAt > 60_000 ? 1 : this.#crashes + 1;
    this.#lastCrash = Date.now();
  }
}

import type { JsonRpcMessage } from '../../message/jsonrpc.js';
import type { ReplayTarget } from '../session-replay.js';
import type { StandaloneStream } from './standalone-stream.js';
import type { UpstreamSession } from './upstream-session.js';

/**
 * Starts a new server session when the server forgot ours (404): once, however many messages found
 * it gone, with the client's own `initialize` parameters, `notifications/initialized`, the log level
 * and subscriptions (`SessionReplay`), sent through `target` with the transport's own ids. Messages
 * wait meanwhile (`ready`). The connection is down from the 404 until the new session is restored.
 */
export class SessionRecovery {
  readonly #session: UpstreamSession;
  readonly #standalone: StandaloneStream;
  readonly #target: ReplayTarget;
  #recovering: Promise<void> | undefined;

  constructor(session: UpstreamSession, standalone: StandaloneStream, target: ReplayTarget) {
    this.#session = session;
    this.#standalone = standalone;
    this.#target = target;
  }

  /** Whether a new session is being started now. */
  get recovering(): boolean {
    return this.#recovering !== undefined;
  }

  /** Waits for a re-initialization in progress, or starts one if the session is known to be gone. */
  async ready(message: JsonRpcMessage): Promise<void> {
    if (this.#recovering) await this.#recovering;
    else if (this.#session.expired && !('method' in message && message.method === 'initialize')) await this.recover(undefined);
  }

  /**
   * Starts a new server session in place of `expired` (undefined: the one known to be gone);
   * nothing to do when the session is already another one.
   */
  recover(expired: string | undefined): Promise<void> {
    if (this.#recovering) return this.#recovering;
    const session = this.#session;
    if (expired !== undefined && session.id !== expired) return Promise.resolve();
    const { log, replay, status } = session.options;
    session.id = undefined;
    session.expired = true;
    this.#standalone.stop();
    status.down('forgot the session (HTTP 404)');
    this.#recovering = (async () => {
      log.info('the upstream session is gone; initializing a new one');
      await replay.restore(this.#target, log);
      session.expired = false;
      status.up(true);
    })().finally(() => {
      this.#recovering = undefined;
    });
    return this.#recovering;
  }
}

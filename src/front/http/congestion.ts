import type { ServerResponse } from 'node:http';

/**
 * Flow control for one HTTP session: which of its connections have a full buffer (a write
 * returned false because the client is not reading). The session is congested while any is;
 * `report(true)` when the first fills, `report(false)` when the last drains or closes, so the
 * session's `Transport.oncongestion` can pause its upstream and resume it (nothing is dropped:
 * what was written waits in the connection's buffer).
 */
export class Congestion {
  readonly #report: (congested: boolean) => void;
  readonly #full = new Set<ServerResponse>();

  constructor(report: (congested: boolean) => void) {
    this.#report = report;
  }

  /** Writes `chunk` on `res`, noting a full buffer. */
  write(res: ServerResponse, chunk: string): void {
    if (!res.write(chunk)) this.full(res);
  }

  /** A write on `res` returned false: congested until it drains or closes. */
  full(res: ServerResponse): void {
    if (this.#full.has(res)) return;
    this.#full.add(res);
    if (this.#full.size === 1) this.#report(true);
    const relieved = (): void => {
      res.off('drain', relieved);
      res.off('close', relieved);
      if (this.#full.delete(res) && this.#full.size === 0) this.#report(false);
    };
    res.on('drain', relieved);
    res.on('close', relieved);
  }
}

/**
 * @module
 * One question at a time per tool in a session, so that a call arriving while the user is still
 * being asked about the same tool waits for that answer (which may allow the tool for the rest of
 * the session) instead of asking again at once.
 */
import type { Context } from '../../chain/context.js';

/** Ends a turn: the next call waiting for the same tool gets its own. */
export type EndTurn = () => void;

/**
 * The queue of calls waiting to ask the user about each tool, for one session. Turns are given in
 * the order the calls asked for them; a call that stops waiting (cancelled, or out of time) gives
 * its place up without holding up those behind it.
 */
export class ToolTurns {
  /** Per tool, settles when the last call queued so far has ended its turn (or given up its place). */
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Waits for the turn of the call of `ctx` to ask about `tool`: at once when nobody is asking,
   * else when every earlier call has ended its turn. Resolves with the function that ends the
   * turn, or with `undefined` when `timeoutMs` passed first; rejects with the request's abort
   * reason when the call is cancelled while waiting. The place in the queue is taken
   * synchronously, before this returns.
   */
  take(tool: string, ctx: Context, timeoutMs: number): Promise<EndTurn | undefined> {
    const before = this.#tails.get(tool);
    let end: EndTurn = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const tail = before === undefined ? ended : before.then(() => ended);
    this.#tails.set(tool, tail);
    void tail.then(() => {
      if (this.#tails.get(tool) === tail) this.#tails.delete(tool);
    });
    if (before === undefined) return Promise.resolve(end);
    return new Promise<EndTurn | undefined>((resolve, reject) => {
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        return true;
      };
      const timer = setTimeout(() => {
        if (!settle()) return;
        unlink();
        end();
        resolve(undefined);
      }, Math.max(0, timeoutMs));
      // Called at once for a call already cancelled; called once, so it need not unlink itself.
      const unlink = ctx.onAbort((reason) => {
        if (!settle()) return;
        end();
        reject(reason);
      });
      void before.then(() => {
        if (!settle()) return;
        unlink();
        resolve(end);
      });
    });
  }
}

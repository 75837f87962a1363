/** MCP log levels, from the most verbose. */
const ORDER = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

export type McpLogLevel = (typeof ORDER)[number];

export function isLogLevel(value: unknown): value is McpLogLevel {
  return typeof value === 'string' && (ORDER as readonly string[]).includes(value);
}

/**
 * The log level each session asked for with `logging/setLevel`, when sessions share one upstream:
 * the upstream is set to the most verbose of them, and each session gets only the
 * `notifications/message` at or above its own level.
 */
export class LogLevels<Member> {
  readonly #levels = new Map<Member, number>();
  /** The level the upstream was last set to. */
  #upstream: number | undefined;

  /**
   * The level the upstream must be set to if `member` had `level` (undefined: unset), or
   * undefined when it is already right (or no session asked for one).
   */
  upstreamFor(member: Member, level: McpLogLevel | undefined): McpLogLevel | undefined {
    let wanted = level === undefined ? undefined : ORDER.indexOf(level);
    for (const [other, index] of this.#levels) {
      if (other !== member && (wanted === undefined || index < wanted)) wanted = index;
    }
    return wanted === undefined || wanted === this.#upstream ? undefined : ORDER[wanted];
  }

  /** Records what the upstream was set to and what `member` asked for (undefined: it left). */
  set(member: Member, level: McpLogLevel | undefined, upstream: McpLogLevel | undefined): void {
    if (level === undefined) this.#levels.delete(member);
    else this.#levels.set(member, ORDER.indexOf(level));
    if (upstream !== undefined) this.#upstream = ORDER.indexOf(upstream);
  }

  /** Whether `member` wants a message of `level` (a session that never set one gets everything). */
  accepts(member: Member, level: unknown): boolean {
    const own = this.#levels.get(member);
    if (own === undefined || !isLogLevel(level)) return true;
    return ORDER.indexOf(level) >= own;
  }
}

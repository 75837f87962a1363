/**
 * @module
 * Tool annotations as `approve` matches them: what the session's `tools/list` results said, with
 * the specification's defaults for what a tool does not state.
 */
import type { Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import type { ApprovalHints } from './options.js';

type HintName = keyof ApprovalHints;
type Effective = { [Name in HintName]-?: boolean };

/**
 * The specification's defaults for a tool that does not state a hint: it may change things
 * (`readOnlyHint` false), destructively (`destructiveHint` true), not idempotently, in an open
 * world. A tool known by no list (called before any `tools/list`) has all of them.
 */
export const SPEC_DEFAULTS: Readonly<Effective> = { destructiveHint: true, readOnlyHint: false, idempotentHint: false, openWorldHint: true };

const NAMES: readonly HintName[] = ['destructiveHint', 'readOnlyHint', 'idempotentHint', 'openWorldHint'];

/**
 * A tool's hints with the defaults filled in. `destructiveHint` and `idempotentHint` mean
 * something only when `readOnlyHint` is false: a read-only tool changes nothing, so it counts as
 * not destructive and idempotent whatever else it says.
 */
export function effectiveHints(stated: unknown): Effective {
  const hints: Effective = { ...SPEC_DEFAULTS };
  if (isJsonObject(stated)) {
    for (const name of NAMES) {
      const value = stated[name];
      if (typeof value === 'boolean') hints[name] = value;
    }
  }
  if (hints.readOnlyHint) {
    hints.destructiveHint = false;
    hints.idempotentHint = true;
  }
  return hints;
}

/** A test of a tool's effective hints: every hint named in `wanted` has the wanted value. */
export function hintsMatcher(wanted: ApprovalHints): (hints: Effective) => boolean {
  const required = NAMES.filter((name) => typeof wanted[name] === 'boolean').map((name) => [name, wanted[name]] as const);
  return (hints) => required.every(([name, value]) => hints[name] === value);
}

/**
 * The hints of the tools one session was shown, by name. A first page (no cursor) starts over;
 * later pages add to it.
 */
export class SessionHints {
  #byName = new Map<string, Effective>();

  /** The tool's hints as last listed, or the defaults for a tool no list showed. */
  of(tool: string): Effective {
    return this.#byName.get(tool) ?? SPEC_DEFAULTS;
  }

  /** Forgets every tool (their list changed): until listed again they have the defaults. */
  forget(): void {
    this.#byName = new Map();
  }

  /** Learns the hints of a `tools/list` page (`firstPage`: asked without a cursor). */
  learn(reply: Reply, firstPage: boolean): void {
    if (!isJsonObject(reply) || !Array.isArray(reply.tools)) return;
    if (firstPage) this.#byName = new Map();
    for (const tool of reply.tools) {
      if (isJsonObject(tool) && typeof tool.name === 'string') this.#byName.set(tool.name, effectiveHints(tool.annotations));
    }
  }
}

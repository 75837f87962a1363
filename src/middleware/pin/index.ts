/**
 * @module
 * `pin`: protection against a server changing its tools under you (a "rug pull") and against
 * tool poisoning. The first time a tool is listed its definition is pinned in a store file (trust
 * on first use); a later, different definition is held back as configured (`warn`, `hide` the tool,
 * `block` everything behind this middleware) until a person reviews the diff and accepts it with
 * `mcp-chain pin accept`. A tool added later to a pinned server is pinned, warned about, or held
 * back in the same way (`onNew`). Descriptions and schemas are scanned for instructions aimed at the model,
 * invisible or bidirectional Unicode and very long descriptions: warn, strip, or hide.
 */
import type { Context } from '../../chain/context.js';
import type { Middleware, Next } from '../../chain/middleware.js';
import type { SessionInfo } from '../../core/session-info.js';
import { ChainError } from '../../errors/chain-error.js';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { defaultPinStorePath, PinStore, PinStoreError, type PinEntry, type PinVerdict, type SeenTool } from './pin-store.js';
import { scanTool, stripPoison, type PoisonFinding } from './poison-scan.js';
import { PINNED_FIELDS, pinnedDefinition, toolHash } from './tool-hash.js';
import type { Logger } from '../../log/logger.js';
import type { PinChangeAction, PinCodeOptions, PinNewAction, PinOptions, PinScanOptions } from './options.js';

/** What `pin()` takes: the options a config file can give, and what only code can (a `PinStore` object as `store`). */
type PinMiddlewareOptions = Omit<PinOptions, 'store'> & PinCodeOptions;

export type { PinChangeAction, PinCodeOptions, PinNewAction, PinOptions, PinScanOptions } from './options.js';

export { defaultPinStorePath, PinStore, PinStoreError } from './pin-store.js';
export type { AcceptedChange, PendingChange, PinCheckOptions, PinEntry, PinFile, PinStoreOptions, PinVerdict, SeenTool } from './pin-store.js';
export type { PoisonRule } from './poison-scan.js';

/** What one session was last shown. */
interface SessionPins {
  /** Tools hidden because they changed (hide), with the refusal. */
  changed: Map<string, McpError>;
  /** Tools hidden because they are new to a pinned namespace (onNew hide), with the refusal. */
  held: Map<string, McpError>;
  /** Tools hidden by the scan (hide), with the refusal. */
  poisoned: Map<string, McpError>;
  /** Set when a tool changed and onChange is block. */
  blocked: McpError | undefined;
  /** Whether a tools/list of the session was checked against the store (its first page). */
  listed: boolean;
  /** A listing made for a call that came before any tools/list of the session. */
  listing: Promise<void> | undefined;
}

/** Lists refused (emptied) while blocked, with their item key. */
const LISTS: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};
/** Requests refused while blocked. */
const REFUSED_WHEN_BLOCKED = new Set(['tools/call', 'prompts/get', 'resources/read', 'resources/subscribe', 'completion/complete']);
/** A guard against a server whose cursors never end. */
const MAX_PAGES = 100;

/**
 * Pins the definition of every tool listed through it and applies `onChange` when a server later
 * presents a different one. A definition is its `name`, `title`, `description`, `inputSchema`,
 * `outputSchema` and `annotations` (see `PINNED_FIELDS`), hashed as SHA-256 of their canonical
 * JSON; the hash is of what the server sent, before any stripping.
 *
 * - First seen: pinned, logged at info (one line per list). Same hash: nothing.
 * - First seen in a namespace that already has pins (a tool the server added): as `onNew` says:
 *   `pin` as above; `warn` pinned, with a warning naming it; `hide` not pinned but recorded as
 *   pending-new (for `mcp-chain pin accept` to show as a diff from nothing), left out of the list,
 *   a call to it refused with -32602 `Tool "<name>" is new since the tools of "<namespace>" were
 *   pinned …`.
 * - Different: recorded as the entry's `pending` change (for `mcp-chain pin accept` to show and
 *   accept), and then `warn`: a warning naming the tool, the tool shown; `hide`: the tool left out
 *   of the list, a call to it refused with -32602 `Tool "<name>" changed since it was pinned …`;
 *   `block`: every tool (and prompt and resource) of the lists hidden, and every `tools/call`,
 *   `prompts/get`, `resources/read`, `resources/subscribe` and `completion/complete` refused with
 *   -32602 naming the changed tool. Decisions are remade at every `tools/list`, so an accept
 *   (from any process) applies at the next list.
 * - A call before its session listed the tools lists them first (through the rest of the chain).
 * - A store that cannot be read (a corrupt file) fails `tools/list`, and the calls it would judge,
 *   with -32603 saying so (fail closed); the file is never overwritten.
 * - In one server's own middleware list of a gateway, a hidden tool is no longer in the gateway's
 *   catalog, so a call to it is the gateway's -32602 `Unknown tool: <name>` (the reason is logged);
 *   on the gateway's own list the refusals above reach the client as written.
 *
 * @example
 * chain()
 *   .use(pin({ store: '/etc/mcp/pins.json', namespace: 'github', onChange: 'hide', scan: { action: 'strip' } }))
 *   .to(stdio({ command: 'github-mcp' }));
 */
export function pin(options: PinMiddlewareOptions = {}): Middleware {
  const guard = new PinGuard(options);
  return async function pin(ctx, next) {
    return guard.handle(ctx, next);
  };
}

/** A tool of a listed page, named, with the hash of its definition. */
interface ListedTool {
  readonly item: JsonObject;
  readonly name: string;
  readonly hash: string;
}

/** One `pin()`: its settings, what each session was shown, what was logged. */
class PinGuard {
  readonly #store: PinStore;
  readonly #namespace: string;
  readonly #onChange: PinChangeAction;
  readonly #onNew: PinNewAction;
  readonly #scan: { readonly action: NonNullable<PinScanOptions['action']>; readonly maxDescriptionLength: number | undefined } | undefined;
  readonly #logger: Logger | undefined;
  readonly #sessions = new WeakMap<SessionInfo, SessionPins>();
  /** What was logged already (pins, changes, findings), so a list repeated does not repeat it. */
  readonly #logged = new Set<string>();
  /** The `--store` of the commands suggested, when the store is not the default one. */
  readonly #storeHint: string;

  constructor(options: PinMiddlewareOptions) {
    this.#store = typeof options.store === 'object' ? options.store : new PinStore(options.store ?? defaultPinStorePath());
    this.#namespace = options.namespace ?? 'gateway';
    this.#onChange = options.onChange ?? 'warn';
    this.#onNew = options.onNew ?? 'pin';
    this.#scan = options.scan === false ? undefined : { action: options.scan?.action ?? 'warn', maxDescriptionLength: options.scan?.maxDescriptionLength };
    const max = this.#scan?.maxDescriptionLength;
    if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
      throw new ChainError('CONFIG', `pin.scan.maxDescriptionLength: expected a whole number of at least 1, found ${max}`);
    }
    this.#logger = options.logger;
    this.#storeHint = options.store === undefined || (typeof options.store === 'string' && options.store === defaultPinStorePath()) ? '' : ` --store ${quoteArg(this.#store.file)}`;
  }

  /** The middleware: lists reviewed, lists emptied while blocked, calls judged (after a listing of their own when none came first). */
  async handle(ctx: Context, next: Next): Promise<Reply> {
    if (ctx.direction !== 'toUpstream' || ctx.kind !== 'request') return next();
    const method = ctx.method;
    if (method === 'tools/list') {
      const firstPage = typeof ctx.message.params?.cursor !== 'string';
      const reviewed = await this.#reviewPage(ctx, await next(), firstPage);
      return reviewed;
    }
    const list = LISTS[method];
    if (list !== undefined) {
      const reply = await next();
      return this.#sessions.get(ctx.session)?.blocked !== undefined && Array.isArray(reply?.[list]) ? { ...reply, [list]: [] } : reply;
    }
    const refusable = method === 'tools/call' || (this.#onChange === 'block' && REFUSED_WHEN_BLOCKED.has(method));
    if (!refusable) return next();
    // Fail closed: a call is judged only once its session's tools were checked against the store.
    if (this.#sessions.get(ctx.session)?.listed !== true) await this.#listFirst(ctx, next);
    const state = this.#stateOf(ctx.session);
    if (state.blocked !== undefined) throw state.blocked;
    if (method === 'tools/call') {
      const name = ctx.message.params?.name;
      const refusal = typeof name === 'string' ? (state.changed.get(name) ?? state.held.get(name) ?? state.poisoned.get(name)) : undefined;
      if (refusal !== undefined) throw refusal;
    }
    return next();
  }

  #stateOf(session: SessionInfo): SessionPins {
    let state = this.#sessions.get(session);
    if (!state) {
      state = { changed: new Map(), held: new Map(), poisoned: new Map(), blocked: undefined, listed: false, listing: undefined };
      this.#sessions.set(session, state);
    }
    return state;
  }

  #acceptHint(tool?: string): string {
    return `mcp-chain pin accept${tool === undefined ? '' : ` ${quoteArg(tool)}`} --namespace ${quoteArg(this.#namespace)}${this.#storeHint}`;
  }

  #once(key: string, write: () => void): void {
    if (this.#logged.has(key)) return;
    if (this.#logged.size > 10_000) this.#logged.clear();
    this.#logged.add(key);
    write();
  }

  /** Checks one page against the store, updates the session's decisions, and returns what the client sees. */
  async #reviewPage(ctx: Context, reply: Reply, firstPage: boolean): Promise<Reply> {
    const log = this.#logger ?? ctx.log;
    const state = this.#stateOf(ctx.session);
    if (firstPage) {
      state.changed.clear();
      state.held.clear();
      state.poisoned.clear();
      state.blocked = undefined;
    }
    const items = reply?.tools;
    if (!Array.isArray(items)) return reply;
    const tools = items.filter((item: unknown): item is JsonObject => isJsonObject(item) && typeof item.name === 'string');
    const seen = tools.map((tool) => ({ name: tool.name as string, hash: toolHash(tool), definition: pinnedDefinition(tool) }));
    const { verdicts, pinned } = await this.#check(seen, log);
    if (firstPage) state.listed = true;
    this.#logFirstSeen(seen, verdicts, log);
    const shown: unknown[] = [];
    for (const item of items as unknown[]) {
      if (!isJsonObject(item) || typeof item.name !== 'string') {
        shown.push(item);
        continue;
      }
      const name = item.name;
      const tool: ListedTool = { item, name, hash: seen.find((one) => one.name === name)?.hash ?? '' };
      const verdict = verdicts.get(name);
      if (verdict === 'held') {
        this.#hold(tool, state, log);
        continue;
      }
      if (verdict === 'changed' && this.#hidesChange(tool, pinned[name]?.definition, state, log)) continue;
      const scanned = this.#scanned(tool, state, log);
      if (scanned !== undefined) shown.push(scanned);
    }
    if (state.blocked !== undefined) return { ...reply, tools: [] };
    return { ...reply, tools: shown };
  }

  /** The store's verdict on each tool of a page, and the pins of the namespace; a store that cannot be read fails the list (-32603). */
  async #check(seen: readonly SeenTool[], log: Logger): Promise<{ verdicts: Map<string, PinVerdict>; pinned: Record<string, PinEntry> }> {
    try {
      const verdicts = await this.#store.check(this.#namespace, seen, { onNew: this.#onNew === 'hide' ? 'hold' : 'pin' });
      const pinned = (await this.#store.read()).namespaces[this.#namespace] ?? {};
      return { verdicts, pinned };
    } catch (error) {
      const message = error instanceof PinStoreError ? error.message : `pin store ${this.#store.file}: ${String(error)}`;
      log.error(`pin: ${message}`);
      throw new McpError(ErrorCode.InternalError, `The gateway cannot check the tools against their pins: ${message}`);
    }
  }

  /** Logs the tools pinned by this page: at info when first seen (or added, with `onNew: 'pin'`), a warning when added (`onNew: 'warn'`). */
  #logFirstSeen(seen: readonly SeenTool[], verdicts: Map<string, PinVerdict>, log: Logger): void {
    const namespace = this.#namespace;
    const pinnedNow = seen.filter((tool) => {
      const verdict = verdicts.get(tool.name);
      return (verdict === 'new' || (verdict === 'added' && this.#onNew === 'pin')) && !this.#logged.has(`new ${tool.name} ${tool.hash}`);
    });
    if (pinnedNow.length > 0) {
      for (const tool of pinnedNow) this.#once(`new ${tool.name} ${tool.hash}`, () => undefined);
      const names = pinnedNow.map((tool) => tool.name);
      log.info(`pin: pinned ${names.length} new ${names.length === 1 ? 'tool' : 'tools'} of "${namespace}" (trust on first use): ${names.join(', ')}`, { namespace, tools: names });
    }
    const addedNow = seen.filter((tool) => verdicts.get(tool.name) === 'added' && this.#onNew === 'warn' && !this.#logged.has(`new ${tool.name} ${tool.hash}`));
    if (addedNow.length > 0) {
      for (const tool of addedNow) this.#once(`new ${tool.name} ${tool.hash}`, () => undefined);
      const names = addedNow.map((tool) => tool.name);
      log.warn(
        `pin: ${names.length === 1 ? 'a tool' : `${names.length} tools`} new since the tools of "${namespace}" were pinned, now pinned too: ${names.join(', ')}; review ${names.length === 1 ? 'it' : 'them'} (\`mcp-chain pin status${this.#storeHint}\`)`,
        { namespace, tools: names },
      );
    }
  }

  /** A tool new to a pinned namespace, with `onNew: 'hide'`: left out, a call to it refused. */
  #hold({ name, hash }: ListedTool, state: SessionPins, log: Logger): void {
    const namespace = this.#namespace;
    this.#once(`held ${name} ${hash}`, () =>
      log.warn(`pin: tool "${name}" is new since the tools of "${namespace}" were pinned; hidden until a person reviews it: \`${this.#acceptHint(name)}\``, { namespace, tool: name, hash }),
    );
    state.held.set(
      name,
      new McpError(
        ErrorCode.InvalidParams,
        `Tool "${name}" is new since the tools of "${namespace}" were pinned; it is hidden until a person reviews it: run \`${this.#acceptHint(name)}\``,
        { tool: name, reason: 'new', namespace },
      ),
    );
  }

  /** A tool that differs from its pin, as `onChange` says: warned about, hidden (returns true), or the namespace blocked. */
  #hidesChange({ item, name, hash }: ListedTool, definition: JsonObject | undefined, state: SessionPins, log: Logger): boolean {
    const namespace = this.#namespace;
    const fields = changedFields(definition, item);
    const what = `tool "${name}" changed since it was pinned (${fields.join(', ')} ${fields.length === 1 ? 'differs' : 'differ'})`;
    if (this.#onChange === 'warn') {
      this.#once(`changed ${name} ${hash}`, () =>
        log.warn(`pin: ${what}; shown anyway: review the change and accept it with \`${this.#acceptHint(name)}\``, { namespace, tool: name, fields, hash }),
      );
      return false;
    }
    if (this.#onChange === 'hide') {
      this.#once(`changed ${name} ${hash}`, () =>
        log.warn(`pin: ${what}; hidden until a person reviews it: \`${this.#acceptHint(name)}\``, { namespace, tool: name, fields, hash }),
      );
      state.changed.set(
        name,
        new McpError(
          ErrorCode.InvalidParams,
          `Tool "${name}" changed since it was pinned (${fields.join(', ')}); it is hidden until a person reviews the change: run \`${this.#acceptHint(name)}\``,
          { tool: name, reason: 'changed', fields },
        ),
      );
      return true;
    }
    this.#once(`changed ${name} ${hash}`, () =>
      log.warn(`pin: ${what}; every tool of "${namespace}" is blocked until a person reviews it: \`${this.#acceptHint(name)}\``, { namespace, tool: name, fields, hash }),
    );
    state.blocked ??= new McpError(
      ErrorCode.InvalidParams,
      `Blocked by the gateway: ${what}, so every call to "${namespace}" is refused until a person reviews the change: run \`${this.#acceptHint(name)}\``,
      { tool: name, reason: 'changed', namespace, fields },
    );
    return false;
  }

  /** The tool as the poisoning scan leaves it: as is, stripped, or undefined when hidden (a call to it refused). */
  #scanned({ item, name, hash }: ListedTool, state: SessionPins, log: Logger): JsonObject | undefined {
    const scan = this.#scan;
    if (scan === undefined) return item;
    const findings = scanTool(item, scan);
    if (findings.length === 0) return item;
    this.#once(`scan ${name} ${hash}`, () =>
      log.warn(`pin: tool "${name}" may be poisoned: ${describeFindings(findings)}${scan.action === 'warn' ? '' : ` (${scan.action === 'strip' ? 'stripped' : 'hidden'})`}`, {
        namespace: this.#namespace,
        tool: name,
        findings,
      }),
    );
    if (scan.action === 'hide') {
      state.poisoned.set(
        name,
        new McpError(ErrorCode.InvalidParams, `Tool "${name}" is hidden by the gateway: its definition looks like tool poisoning (${describeRules(findings)})`, {
          tool: name,
          reason: 'poisoning',
          rules: [...new Set(findings.map((finding) => finding.rule))],
        }),
      );
      return undefined;
    }
    return scan.action === 'strip' ? stripPoison(item, scan) : item;
  }

  /** Lists the tools through the rest of the chain, for a call that came before any list. */
  async #listFirst(ctx: Context, next: Next): Promise<void> {
    const state = this.#stateOf(ctx.session);
    state.listing ??= (async () => {
      try {
        await this.#listAll(ctx, next, state);
      } finally {
        state.listing = undefined;
      }
    })();
    await state.listing;
  }

  async #listAll(ctx: Context, next: Next, state: SessionPins): Promise<void> {
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let page = 0; page < MAX_PAGES; page++) {
      let reply: Reply;
      try {
        reply = await next({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } });
      } catch {
        state.listed = true; // a server that lists no tools: nothing to pin
        return;
      }
      await this.#reviewPage(ctx, reply, page === 0);
      cursor = typeof reply?.nextCursor === 'string' ? reply.nextCursor : undefined;
      if (cursor === undefined || seen.has(cursor)) return;
      seen.add(cursor);
    }
  }
}

/** The pinned fields whose values differ between the pinned definition and `tool`. */
function changedFields(pinned: JsonObject | undefined, tool: JsonObject): string[] {
  if (pinned === undefined) return ['definition'];
  const now = pinnedDefinition(tool);
  const fields = PINNED_FIELDS.filter((field) => toolHash({ [field]: pinned[field] }) !== toolHash({ [field]: now[field] }));
  return fields.length > 0 ? [...fields] : ['definition'];
}

function describeFindings(findings: readonly PoisonFinding[]): string {
  return findings.map((finding) => `${finding.rule} in ${finding.path} (${finding.match})`).join('; ');
}

function describeRules(findings: readonly PoisonFinding[]): string {
  return [...new Set(findings.map((finding) => `${finding.rule} in ${finding.path}`))].join(', ');
}

/** A shell word: as is when safe, single-quoted otherwise. */
function quoteArg(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

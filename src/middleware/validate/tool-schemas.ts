/**
 * @module
 * Each session's tools' schemas by name: learned from the `tools/list` pages the client asks for,
 * or listed once when a call names a tool not seen yet; forgotten on
 * `notifications/tools/list_changed` and replaced by the next first page.
 */
import type { Next } from '../../chain/middleware.js';
import type { SessionInfo } from '../../core/session-info.js';
import type { JsonObject, Reply } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import type { Compiled } from './schema-compiler.js';

/** A guard against a server whose cursors never end. */
const MAX_PAGES = 1000;

/** One tool's schemas, and their validators once a call needed them. */
export interface ToolSchema {
  readonly input: unknown;
  /** Absent when the tool declares no `outputSchema`. */
  readonly output: unknown;
  inputCheck?: Compiled;
  outputCheck?: Compiled;
}

interface SessionTools {
  byName: Map<string, ToolSchema>;
  /** Every page has been seen (or listing failed): an unknown name is unknown, no need to list. */
  complete: boolean;
  /** Bumped by list_changed: a listing that started before it does not mark the list complete. */
  generation: number;
  /** The listing under way: resolves with what it found. */
  listing: Promise<ReadonlyMap<string, ToolSchema>> | undefined;
}

/** Tool schemas per session; a session's entry goes with the session. */
export class ToolSchemas {
  readonly #sessions = new WeakMap<SessionInfo, SessionTools>();

  /** Records one page of a `tools/list` the client asked for: a first page (no cursor) starts afresh. */
  seen(session: SessionInfo, params: JsonObject, reply: Reply): void {
    const tools = this.#of(session);
    if (params.cursor === undefined) {
      tools.byName = new Map();
      tools.generation++;
    }
    add(tools.byName, reply);
    tools.complete = typeof reply?.nextCursor !== 'string';
  }

  /** The session's tools changed: forget them. */
  invalidate(session: SessionInfo): void {
    const tools = this.#sessions.get(session);
    if (!tools) return;
    tools.byName = new Map();
    tools.complete = false;
    tools.generation++;
  }

  /** The schemas of `name` if this session's lists showed it: no promise on the path of every call. */
  known(session: SessionInfo, name: string): ToolSchema | undefined {
    return this.#sessions.get(session)?.byName.get(name);
  }

  /** The schemas of `name`, listing the session's tools through `next` (once) if it was never seen. */
  async lookup(session: SessionInfo, next: Next, name: string): Promise<ToolSchema | undefined> {
    const tools = this.#of(session);
    const known = tools.byName.get(name);
    if (known || tools.complete) return known;
    tools.listing ??= learn(tools, next).finally(() => {
      tools.listing = undefined;
    });
    return (await tools.listing).get(name);
  }

  #of(session: SessionInfo): SessionTools {
    let tools = this.#sessions.get(session);
    if (!tools) {
      tools = { byName: new Map(), complete: false, generation: 0, listing: undefined };
      this.#sessions.set(session, tools);
    }
    return tools;
  }
}

/** How many times a listing starts over when the list changes while it runs. */
const MAX_ATTEMPTS = 3;

/**
 * Lists the tools and keeps them as the session's complete list. A list_changed that arrives
 * meanwhile (a gateway's member joining as the session starts) makes it list again, a few times at
 * most; the last listing then answers the calls waiting for it, and the next unknown name lists again.
 */
async function learn(tools: SessionTools, next: Next): Promise<ReadonlyMap<string, ToolSchema>> {
  let byName: Map<string, ToolSchema> = new Map();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const generation = tools.generation;
    byName = await list(next);
    if (tools.generation === generation) {
      tools.byName = byName;
      tools.complete = true;
      return byName;
    }
  }
  return byName;
}

/** Every page of the tools, by name; empty when listing fails (calls then pass unchecked). */
async function list(next: Next): Promise<Map<string, ToolSchema>> {
  const byName = new Map<string, ToolSchema>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await next({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } });
      add(byName, reply);
      cursor = typeof reply?.nextCursor === 'string' ? reply.nextCursor : undefined;
      if (cursor === undefined || seen.has(cursor)) break;
      seen.add(cursor);
    }
  } catch {
    // No list (the server failed it): calls pass unchecked until the tools are listed again.
  }
  return byName;
}

function add(byName: Map<string, ToolSchema>, reply: Reply): void {
  const items: unknown[] = Array.isArray(reply?.tools) ? reply.tools : [];
  for (const item of items) {
    if (isJsonObject(item) && typeof item.name === 'string') {
      byName.set(item.name, { input: item.inputSchema, output: item.outputSchema });
    }
  }
}

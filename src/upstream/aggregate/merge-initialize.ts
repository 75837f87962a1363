import type { JsonObject } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import type { MemberLink } from './member-link.js';

/** The capabilities whose lists the aggregate merges, and tells the client about when they change. */
const LISTED = ['tools', 'prompts', 'resources'] as const;

/**
 * The `initialize` result of an aggregate, from what its members answered:
 * - `protocolVersion`: the oldest any member answered (each member speaks at least that), or the
 *   one offered when none answered;
 * - `capabilities`: what some member has, merged (a flag is on when any member's is); the merged
 *   lists say `listChanged`, since members going down and up change them. While some member could
 *   not start, tools, prompts and resources are advertised too: it may bring them when it comes back.
 * - `instructions`: each member's, under its name (or as it is, with a single member);
 * - `serverInfo`: the aggregate's own.
 */
export function mergeInitialize(
  links: readonly MemberLink[],
  offered: string,
  serverInfo: JsonObject,
): JsonObject {
  const answered = links.filter((link) => link.initializeResult !== undefined);
  const versions = answered.map((link) => link.initializeResult?.protocolVersion).filter((v): v is string => typeof v === 'string');
  const protocolVersion = versions.length > 0 ? versions.reduce((a, b) => (b < a ? b : a)) : offered;
  const capabilities: JsonObject = {};
  for (const link of answered) mergeInto(capabilities, link.capabilities);
  const someDown = answered.length < links.length;
  for (const name of LISTED) {
    const capability = capabilities[name];
    if (isJsonObject(capability)) capabilities[name] = { ...capability, listChanged: true };
    else if (someDown) capabilities[name] = { listChanged: true };
  }
  const result: JsonObject = { protocolVersion, capabilities, serverInfo };
  const instructions = combinedInstructions(answered, links.length === 1);
  if (instructions !== undefined) result.instructions = instructions;
  return result;
}

function combinedInstructions(links: readonly MemberLink[], single: boolean): string | undefined {
  const parts: string[] = [];
  for (const link of links) {
    const text = link.initializeResult?.instructions;
    if (typeof text !== 'string' || text.trim() === '') continue;
    parts.push(single ? text : `## ${link.name}\n\n${text.trim()}`);
  }
  return parts.length === 0 ? undefined : parts.join('\n\n');
}

/** Deep merge: objects merge, `true` wins over `false`, otherwise the first value stays. */
function mergeInto(target: JsonObject, source: JsonObject): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (existing === undefined) target[key] = clone(value);
    else if (isJsonObject(existing) && isJsonObject(value)) mergeInto(existing, value);
    else if (existing === false && value === true) target[key] = true;
  }
}

function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (isJsonObject(value)) {
    const copy: JsonObject = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = clone(inner);
    return copy;
  }
  return value;
}

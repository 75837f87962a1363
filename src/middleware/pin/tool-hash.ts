/**
 * @module
 * The fingerprint `pin` keeps of a tool: SHA-256 of the canonical JSON (object keys sorted,
 * recursively) of the fields that tell a model what the tool does and takes.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../message/jsonrpc.js';
import { canonicalJson } from '../cache/canonical-json.js';

/**
 * The fields of a tool definition that are pinned, in this order of importance: `name`, `title`,
 * `description`, `inputSchema`, `outputSchema`, `annotations`. Others (`icons`, `_meta`,
 * `execution`) may change without counting as a change of the tool.
 */
export const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** The pinned fields of `tool` (absent ones left out), as the store keeps and diffs them. */
export function pinnedDefinition(tool: JsonObject): JsonObject {
  const definition: JsonObject = {};
  for (const field of PINNED_FIELDS) {
    const value = tool[field];
    if (value !== undefined) definition[field] = value;
  }
  return definition;
}

/** `sha256:<hex>` of the canonical JSON of the tool's pinned fields. */
export function toolHash(tool: JsonObject): string {
  return `sha256:${createHash('sha256').update(canonicalJson(pinnedDefinition(tool))).digest('hex')}`;
}

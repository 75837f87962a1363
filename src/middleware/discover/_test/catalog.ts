/**
 * @module
 * The 500-tool catalog of a realistic gateway (15 servers, tools named `<server>__<tool>` as the
 * gateway names them), built from the compact specs in catalog-specs-a.ts and catalog-specs-b.ts:
 * each parameter becomes a JSON Schema property (with a description), required unless marked `?`,
 * and tools whose name starts with get/list/search/read/... are annotated read-only.
 * Written before the ranking of `discover`, and not tuned to it afterwards.
 */
import type { JsonObject } from '../../../message/jsonrpc.js';
import { gdrive, github, gitlab, jira, linear, notion, slack, type ToolSpec } from './catalog-specs-a.js';
import { calendar, datadog, filesystem, hubspot, postgres, sentry, stripe, zendesk } from './catalog-specs-b.js';

/** A tool as `tools/list` shows it. */
export interface CatalogTool extends JsonObject {
  name: string;
  description: string;
  inputSchema: JsonObject;
  annotations: JsonObject;
}

const SERVERS: Readonly<Record<string, readonly ToolSpec[]>> = {
  github,
  gitlab,
  slack,
  linear,
  jira,
  notion,
  gdrive,
  calendar,
  postgres,
  filesystem,
  sentry,
  stripe,
  hubspot,
  datadog,
  zendesk,
};

const READ_ONLY = /^(get|list|search|read|retrieve|query|describe|explain|lookup|find|sample|compare|export|directory|disk|compute|watch|aggregate)_?/;

/** `pull_number` → `Pull number`. */
function humanize(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One parameter spec (`name?:type`) as a JSON Schema property. */
function property(spec: string): { name: string; optional: boolean; schema: JsonObject } {
  const [head = '', type = 'string'] = spec.split(':');
  const optional = head.endsWith('?');
  const name = optional ? head.slice(0, -1) : head;
  const description = humanize(name);
  let schema: JsonObject;
  if (type === 'number') schema = { type: 'number', description };
  else if (type === 'boolean') schema = { type: 'boolean', description };
  else if (type === 'string[]') schema = { type: 'array', items: { type: 'string' }, description };
  else if (type === 'object') schema = { type: 'object', description };
  else if (type.includes('|')) schema = { type: 'string', enum: type.split('|'), description };
  else schema = { type: 'string', description };
  return { name, optional, schema };
}

function tool(server: string, [name, description, params]: ToolSpec): CatalogTool {
  const props = params === '' ? [] : params.split(' ').map(property);
  const inputSchema: JsonObject = {
    type: 'object',
    properties: Object.fromEntries(props.map((p) => [p.name, p.schema])),
  };
  const required = props.filter((p) => !p.optional).map((p) => p.name);
  if (required.length > 0) inputSchema.required = required;
  return { name: `${server}__${name}`, description, inputSchema, annotations: { readOnlyHint: READ_ONLY.test(name) } };
}

/** The 500 tools, server by server. */
export const CATALOG: readonly CatalogTool[] = Object.entries(SERVERS).flatMap(([server, specs]) => specs.map((spec) => tool(server, spec)));

/**
 * @module
 * The three tools `discover` shows instead of a large catalog: their definitions (descriptions that
 * tell the model how to use them, input and output schemas, annotations).
 */
import type { JsonObject } from '../../message/jsonrpc.js';

/** The names the meta-tools go by. */
export interface MetaToolNames {
  readonly search: string;
  readonly describe: string;
  readonly call: string;
}

export const DEFAULT_META_TOOL_NAMES: MetaToolNames = { search: 'search_tools', describe: 'describe_tool', call: 'call_tool' };

/** `search_tools`' structured result. */
export const SEARCH_OUTPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    tools: {
      type: 'array',
      description: 'The best matches, best first',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The tool name to pass to describe and call' },
          description: { type: 'string' },
          score: { type: 'number', description: 'Relevance (higher is better), only comparable within one search' },
        },
        required: ['name', 'description', 'score'],
      },
    },
  },
  required: ['tools'],
};

/** `describe_tool`'s structured result: the tool as the server defines it. */
export const DESCRIBE_OUTPUT_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    annotations: { type: 'object' },
  },
  required: ['name', 'inputSchema'],
};

/**
 * The three tool definitions. They do not depend on the catalog, so that a client (or `pin`) sees
 * the same definitions whatever the servers behind do.
 */
export function metaTools(names: MetaToolNames, maxLimit: number, defaultLimit: number): JsonObject[] {
  return [
    {
      name: names.search,
      title: 'Search tools',
      description:
        `Find tools for a task. This server offers more tools than it lists: search them by what you want to do ` +
        `(plain words such as "open a pull request" or "list calendar events"), then call ${names.describe} for a tool's ` +
        `arguments and ${names.call} to run it. Returns the best matches (name and description), best first. ` +
        `Search again with other words if nothing fits.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'What you want to do, in a few words' },
          limit: { type: 'integer', minimum: 1, maximum: maxLimit, description: `How many tools to return (default ${defaultLimit}, at most ${maxLimit})` },
        },
        required: ['query'],
      },
      outputSchema: SEARCH_OUTPUT_SCHEMA,
      annotations: { title: 'Search tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    {
      name: names.describe,
      title: 'Describe a tool',
      description:
        `Get the full definition of a tool found with ${names.search}: its description, its input schema (the arguments ` +
        `${names.call} needs), its output schema and annotations. Call it before ${names.call} to get the arguments right.`,
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1, description: `The tool's name, exactly as ${names.search} returned it` } },
        required: ['name'],
      },
      outputSchema: DESCRIBE_OUTPUT_SCHEMA,
      annotations: { title: 'Describe a tool', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    {
      name: names.call,
      title: 'Call a tool',
      description:
        `Run a tool found with ${names.search}, with arguments that match the input schema ${names.describe} returned. ` +
        `Returns the tool's own result. The tool may change things: it runs exactly as if it had been called directly.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, description: 'The tool to run, exactly as named by search' },
          arguments: { type: 'object', description: "The tool's arguments, as its input schema describes them", additionalProperties: true },
        },
        required: ['name'],
      },
      annotations: { title: 'Call a tool', readOnlyHint: false, openWorldHint: true },
    },
  ];
}

import * as z from 'zod';
import { CONFIG_SCHEMA, JSON_SCHEMA_EDITS, SERVER_SCHEMA } from './config-schema.js';

/** Where the JSON Schema is published (the `$id`, and what a file's `$schema` may point to). */
export const CONFIG_SCHEMA_ID = 'https://unpkg.com/mcp-chain/schema/mcp-chain.config.schema.json';

/**
 * The JSON Schema (draft-07, for editors) of a config file, derived from the zod schema that
 * validates it: `schema/mcp-chain.config.schema.json` is this (`npm run gen:config-schema`).
 * A server's schema is written once, in `definitions.server`.
 */
export function configJsonSchema(): Record<string, unknown> {
  const { $schema, ...root } = toJson(CONFIG_SCHEMA);
  const { $schema: _, ...server } = toJson(SERVER_SCHEMA);
  return { $schema, $id: CONFIG_SCHEMA_ID, title: 'mcp-chain config', ...root, definitions: { server } };
}

function toJson(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => JSON_SCHEMA_EDITS.get(ctx.zodSchema)?.(ctx.jsonSchema as Record<string, unknown>),
  }) as Record<string, unknown>;
}

/**
 * @module
 * `requireScopes`' options, described once: this schema checks config files and is where the JSON
 * Schema, docs/middleware.md and the {@link RequireScopesOptions} type come from. The middleware
 * imports the types alone.
 */
import * as z from 'zod';
import type { OptionsOf } from '../options-of.js';

const scope = z
  .string()
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/u, 'a scope is printable characters without spaces, quotes or backslashes')
  .describe('An OAuth scope');
const requirement = z.union([scope, z.array(scope)]).describe('A scope, or a list of scopes that are all needed (an empty list: none)');
const table = (what: string): z.ZodOptional<z.ZodRecord<z.ZodString, typeof requirement>> =>
  z
    .record(z.string(), requirement)
    .optional()
    .describe(`Scopes per ${what}; the first key that matches, in the order given, wins ("*" last: a catch-all)`);

export const requireScopesOptions = z.strictObject({
  tools: table('tool, keyed by name or glob as the client calls it (`github__*`: a whole server on a gateway)'),
  prompts: table('prompt, keyed by name or glob'),
  resources: table(
    'resource, keyed by uri or glob (a resource template by its uriTemplate); a uri needs the scopes of every form a server could read it as (write uri keys in normal form: lower-case scheme and host, no dot segments)',
  ),
  default: requirement.optional().describe('Scopes needed by anything no key matches; absent: such items need none'),
  onMissing: z
    .enum(['hide', 'refuse'])
    .optional()
    .describe(
      '"hide" (the default): absent from lists, and using it fails as if it did not exist (-32602 unknown tool or prompt, -32002 resource not found); "refuse": listed, and using it fails with -32004 naming the scopes needed, data { scopes, tool | prompt | uri }',
    ),
  unscoped: z
    .enum(['allow', 'deny'])
    .optional()
    .describe(
      'Sessions without scopes (a static bearer token or API key, or stdio): "allow" (the default: an operator\'s credential, the local user) may use everything; "deny": nothing that needs a scope',
    ),
});

/** One scope, or a list of scopes that are all needed. */
export type ScopeRequirement = OptionsOf<typeof requirement>;
/** `requireScopes`' options (see {@link requireScopesOptions}). */
export interface RequireScopesOptions extends OptionsOf<typeof requireScopesOptions> {}

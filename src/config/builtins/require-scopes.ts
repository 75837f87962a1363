import * as z from 'zod';
import { requireScopes, type RequireScopesOptions } from '../../middleware/require-scopes/index.js';
import { builtin } from '../builtin-middleware.js';

const scope = z
  .string()
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/u, 'a scope is printable characters without spaces, quotes or backslashes')
  .describe('An OAuth scope');
const requirement = z
  .union([scope, z.array(scope)])
  .describe('A scope, or a list of scopes that are all needed (an empty list: none)');
const table = (what: string): z.ZodOptional<z.ZodRecord<z.ZodString, typeof requirement>> =>
  z
    .record(z.string(), requirement)
    .optional()
    .describe(`Scopes per ${what}; the first key that matches, in the order given, wins ("*" last: a catch-all)`);

/** The config file's `requireScopes`: tools, prompts and resources allowed by the caller's OAuth scopes. */
export const requireScopesBuiltin = builtin(
  "Allows tools, prompts and resources by the caller's OAuth scopes: what they do not cover is hidden, or listed and refused naming the scope",
  z.strictObject({
    tools: table('tool, keyed by name or glob as the client calls it (`github__*`: a whole server on a gateway)'),
    prompts: table('prompt, keyed by name or glob'),
    resources: table('resource, keyed by uri or glob (a resource template by its uriTemplate)'),
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
  }),
  (options) => requireScopes(options as RequireScopesOptions),
);

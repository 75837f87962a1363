import * as z from 'zod';

// The `commands` entry of a server: command-line programs as tools (src/upstream/commands/).
// What a schema cannot see (placeholders naming parameters, defaults within their constraints)
// is checked when the config is normalized, by the same function `commands()` uses.

const parameter = z
  .strictObject({
    type: z.enum(['string', 'number', 'integer', 'boolean', 'array']).describe('Its JSON type; `array` is an array of strings'),
    description: z.string().optional().describe('For the model: what the value means'),
    required: z.boolean().optional().describe('The call must give it (unless it has a `default`). Default false'),
    default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional().describe('Used when the call leaves it out'),
    enum: z.array(z.union([z.string(), z.number()])).min(1).optional().describe('The only values allowed (of each item, for an array)'),
    pattern: z.string().optional().describe('A regular expression strings (or each item) must match; unanchored, as in JSON Schema: write ^...$'),
    minimum: z.number().optional().describe('Least value of a number or integer'),
    maximum: z.number().optional().describe('Greatest value of a number or integer'),
    maxLength: z.number().int().nonnegative().optional().describe('At most this many characters (of a string, or of each item)'),
    maxItems: z.number().int().nonnegative().optional().describe('At most this many items (array)'),
    allowDashPrefix: z
      .boolean()
      .optional()
      .describe('Accept a value starting with "-" in a positional placeholder before any literal "--" (refused by default: the program would read it as an option)'),
  })
  .describe('One parameter: a property of the tool\'s input schema, checked before the program runs');

const arg = z
  .union([
    z.string().describe('Literal text; "{name}" is replaced by parameter `name` (the element is left out when it is absent, repeated for each item of an array)'),
    z
      .strictObject({
        param: z.string().min(1).describe('The parameter'),
        flag: z.string().min(1).optional().describe('Given before the value as its own element (`-n 5`); a boolean gives the flag alone when true; an array repeats it before each item'),
      })
      .describe('A parameter, with a flag before it when given'),
    z.strictObject({ literal: z.string().describe('Exactly this text, braces and all') }).describe('A literal element that is never parsed for placeholders'),
  ])
  .describe('One argv element');

const annotations = z
  .strictObject({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional().describe('It does not change its environment'),
    destructiveHint: z.boolean().optional().describe('It may destroy or overwrite data'),
    idempotentHint: z.boolean().optional().describe('Calling it again with the same arguments has no further effect'),
    openWorldHint: z.boolean().optional().describe('It reaches beyond the local machine'),
  })
  .describe('Hints for clients, passed to the tool as they are');

/** One command-line program as a tool. */
export const COMMAND_TOOL_SCHEMA = z
  .strictObject({
    description: z.string().min(1).describe('For the model: what the tool does'),
    title: z.string().min(1).optional().describe('A human-readable name'),
    command: z.string().min(1).describe('The program: a name looked up on PATH, or a path. Never run through a shell. May use ${VAR}'),
    args: z.array(arg).optional().describe('Its arguments, one argv element each. Literal text may use ${VAR}'),
    parameters: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected letters, digits and "_", not starting with a digit'), parameter)
      .optional()
      .describe('The tool\'s parameters by name'),
    stdin: z.string().min(1).optional().describe('A string parameter whose value is written to the program\'s stdin (otherwise stdin is empty)'),
    cwd: z.string().min(1).optional().describe('Its working directory; relative to the server\'s `cwd`, else to the config file'),
    env: z.record(z.string(), z.string()).optional().describe('Environment variables beside the server\'s `env` and a safe default set (PATH, HOME, ...); nothing else of mcp-chain\'s is passed. Values may use ${VAR}'),
    timeoutMs: z.number().int().positive().optional().describe('How long it may run before its process group is killed (SIGTERM, then SIGKILL), ms (default 30000)'),
    maxOutputBytes: z.number().int().positive().optional().describe('What is kept of stdout and of stderr each, bytes; the rest is read and dropped, with a note (default 1048576)'),
    maxConcurrent: z.number().int().positive().optional().describe('At most this many runs at once; further calls wait their turn'),
    annotations: annotations.optional(),
  })
  .describe('A command-line program as a tool: its argv is built from the template and the checked arguments, never through a shell');

/** `commands`: tools by name. */
export const COMMANDS_SCHEMA = z
  .record(z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'expected 1 to 128 letters, digits, "_", "-" and "."'), COMMAND_TOOL_SCHEMA)
  .describe('Command-line programs as tools, by tool name (instead of `command` or `url`): the server is mcp-chain itself');

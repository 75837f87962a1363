/**
 * `commands`: chosen command-line programs as MCP tools, run safely: argv arrays built from a
 * template and checked arguments (never a shell string), a small environment, a working directory,
 * a deadline that kills the whole process group, output caps, exit code and stderr in the result.
 *
 * @module
 */
import { resolve } from 'node:path';
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import { defaultEnvironment } from '../default-environment.js';
import { local, type LocalServer, type LocalTool } from '../local.js';
import { ArgvTemplate } from './argv-template.js';
import type { ToolAnnotations } from '../../spec/index.js';
import type { CommandAnnotations, CommandTool, CommandsOptions } from './command-options.js';
import { COMMAND_OUTPUT_SCHEMA, commandResult } from './command-result.js';
import { COMMAND_TOOL_NAME, commandToolProblems } from './command-tool-problems.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { runCommand } from './run-command.js';
import { checkArguments, inputSchemaOf } from './tool-arguments.js';

export type { CommandAnnotations, CommandArg, CommandParameter, CommandParameterType, CommandParameterValue, CommandTool, CommandsOptions } from './command-options.js';

/** Default deadline of a run, ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/** Default cap of stdout and of stderr each, bytes (1 MiB). */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 1000;

/**
 * An upstream whose tools run command-line programs. Each call's arguments are checked against
 * the tool's parameters (a wrong one is `-32602` naming it) and placed into the argv template
 * as whole elements: `; rm -rf /`, `$(…)` or a newline arrive as literal text, and a value that
 * would be read as an option (`--output=/etc/x`) is refused unless after a literal `--` or allowed
 * with `allowDashPrefix`. The program runs without a shell in its own process group, with a safe
 * default environment (PATH, HOME, …) plus the `env` given; at its deadline or when the call is
 * cancelled the group gets SIGTERM, then SIGKILL. The result has stdout, stderr, the exit code and
 * `isError` on a failure. A definition that does not hold together throws here.
 *
 * @example
 * const tools = commands({
 *   tools: {
 *     grep: {
 *       description: 'Search files for a regular expression',
 *       command: 'grep',
 *       args: ['-rn', { param: 'ignoreCase', flag: '-i' }, '--', '{pattern}', '{paths}'],
 *       parameters: {
 *         pattern: { type: 'string', required: true, description: 'The regular expression' },
 *         paths: { type: 'array', default: ['.'], description: 'Files or directories' },
 *         ignoreCase: { type: 'boolean' },
 *       },
 *       cwd: '/srv/repo',
 *       timeoutMs: 10_000,
 *       annotations: { readOnlyHint: true },
 *     },
 *   },
 * });
 */
export function commands(options: CommandsOptions): LocalServer {
  const problems: string[] = [];
  const tools: LocalTool[] = [];
  for (const [name, tool] of Object.entries(options.tools)) {
    if (!COMMAND_TOOL_NAME.test(name)) problems.push(`${name}: a tool name is 1 to 128 letters, digits, "_", "-" and "."`);
    const found = commandToolProblems(tool);
    for (const problem of found) problems.push(`${[name, ...problem.path].join('.')}: ${problem.message}`);
    if (found.length === 0) tools.push(commandLocalTool(name, tool, options));
  }
  if (problems.length > 0) throw new Error(`commands: ${problems.join('; ')}`);
  return local({ name: options.name ?? 'mcp-chain-commands', version: options.version ?? '0.0.0', tools });
}

function commandLocalTool(name: string, tool: CommandTool, options: CommandsOptions): LocalTool {
  const parameters = tool.parameters ?? {};
  const compiled = ArgvTemplate.compile(tool.args ?? [], parameters);
  if (compiled.template === undefined) throw new Error(`commands: ${name}: ${compiled.problems.map((p) => p.message).join('; ')}`);
  const template = compiled.template;
  const gate = tool.maxConcurrent === undefined ? undefined : new ConcurrencyGate(tool.maxConcurrent);
  const timeoutMs = tool.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const maxOutputBytes = tool.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const base = options.cwd === undefined ? undefined : resolve(options.cwd);
  const cwd = tool.cwd === undefined ? base : resolve(base ?? process.cwd(), tool.cwd);
  return {
    name,
    description: tool.description,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    inputSchema: inputSchemaOf(parameters),
    outputSchema: COMMAND_OUTPUT_SCHEMA,
    ...(tool.annotations === undefined ? {} : { annotations: definedOnly(tool.annotations) }),
    handler: async (args, ctx) => {
      const values = checkArguments(parameters, args);
      const argv = template.expand(values);
      const stdinValue = tool.stdin === undefined ? undefined : values.get(tool.stdin);
      const release = gate === undefined ? () => undefined : await gate.acquire(ctx.signal);
      if (release === undefined) throw new McpError(ErrorCode.RequestTimeout, `${name}: cancelled while waiting for a turn (maxConcurrent ${String(tool.maxConcurrent)})`);
      try {
        const outcome = await runCommand({
          command: tool.command,
          args: argv,
          cwd,
          // Read at each run, so PATH and HOME are those of now; nothing else of ours.
          env: { ...defaultEnvironment(), ...options.env, ...tool.env },
          timeoutMs,
          maxOutputBytes,
          killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
          stdin: typeof stdinValue === 'string' ? stdinValue : tool.stdin === undefined ? undefined : '',
          signal: ctx.signal,
        });
        return commandResult(outcome, { timeoutMs, maxOutputBytes });
      } finally {
        release();
      }
    },
  };
}

/** The annotations without the keys whose value is undefined. */
function definedOnly(annotations: CommandAnnotations): ToolAnnotations {
  return Object.fromEntries(Object.entries(annotations).filter(([, value]) => value !== undefined)) as ToolAnnotations;
}

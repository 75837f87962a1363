import { ArgvTemplate, type TemplateProblem } from './argv-template.js';
import type { CommandTool } from './command-options.js';
import { compiled, valueProblem } from './tool-arguments.js';

const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** MCP tool names: letters, digits, `_`, `-` and `.`, at most 128. */
export const COMMAND_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * What is wrong with a command tool's definition, each with its path below the tool
 * (`['parameters', 'count', 'default']`): placeholders naming no parameter, parameters used
 * nowhere, defaults that break their own constraints, patterns that do not compile, a `stdin`
 * that is not a string parameter, limits that are not positive.
 */
export function commandToolProblems(tool: CommandTool): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const parameters = tool.parameters ?? {};
  if (typeof tool.command !== 'string' || tool.command === '') problems.push({ path: ['command'], message: 'expected the program to run' });
  else if (tool.command.includes('\0')) problems.push({ path: ['command'], message: 'contains a NUL character' });
  for (const [name, parameter] of Object.entries(parameters)) {
    const path = ['parameters', name];
    if (!PARAMETER_NAME.test(name)) problems.push({ path, message: 'a parameter name is letters, digits and "_", not starting with a digit' });
    if (parameter.pattern !== undefined) {
      try {
        compiled(parameter.pattern);
      } catch (error) {
        problems.push({ path: [...path, 'pattern'], message: `not a valid regular expression: ${error instanceof Error ? error.message : String(error)}` });
        continue;
      }
    }
    if (parameter.default !== undefined) {
      const problem = valueProblem(parameter, parameter.default);
      if (problem !== undefined) problems.push({ path: [...path, 'default'], message: problem });
    }
    if ((parameter.minimum !== undefined || parameter.maximum !== undefined) && parameter.type !== 'number' && parameter.type !== 'integer') {
      problems.push({ path, message: `minimum and maximum apply to a number or an integer, not to ${parameter.type}` });
    }
    if (parameter.maxItems !== undefined && parameter.type !== 'array') problems.push({ path: [...path, 'maxItems'], message: 'applies to an array only' });
  }
  for (const [key, value] of [['timeoutMs', tool.timeoutMs], ['maxOutputBytes', tool.maxOutputBytes], ['maxConcurrent', tool.maxConcurrent]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) problems.push({ path: [key], message: 'expected a positive integer' });
  }
  const compiledArgs = ArgvTemplate.compile(tool.args ?? [], parameters);
  if (compiledArgs.problems !== undefined) return [...problems, ...compiledArgs.problems];
  const used = new Set(compiledArgs.used);
  if (tool.stdin !== undefined) {
    const parameter = parameters[tool.stdin];
    if (parameter === undefined || !Object.hasOwn(parameters, tool.stdin)) problems.push({ path: ['stdin'], message: `names the parameter ${JSON.stringify(tool.stdin)}, which is not declared` });
    else if (parameter.type !== 'string') problems.push({ path: ['stdin'], message: `names ${JSON.stringify(tool.stdin)}, which is ${parameter.type === 'array' ? 'an array' : `a ${parameter.type}`}: stdin takes a string parameter` });
    used.add(tool.stdin);
  }
  for (const name of Object.keys(parameters)) {
    if (!used.has(name)) problems.push({ path: ['parameters', name], message: `is used nowhere: place it in "args" ("{${name}}" or { "param": "${name}", "flag": "..." }) or name it in "stdin"` });
  }
  return problems;
}

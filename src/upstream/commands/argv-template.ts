import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { CommandArg, CommandParameter, CommandParameterValue } from './command-options.js';
import type { ToolArguments } from './tool-arguments.js';

/** Something wrong with a template, at `path` (below the tool: `['args', 2]`). */
export interface TemplateProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

type Part = { readonly text: string } | { readonly param: string };

type Element =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'template'; readonly parts: readonly Part[]; readonly params: readonly string[]; readonly afterDoubleDash: boolean }
  | { readonly kind: 'flag'; readonly param: string; readonly flag: string };

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A command's `args`, parsed once against its parameters; {@link ArgvTemplate.expand} turns the
 * checked arguments of a call into the argv array. Every value is one whole argv element (or, for
 * an array, one element per item): nothing is ever split or seen by a shell.
 */
export class ArgvTemplate {
  readonly #elements: readonly Element[];
  readonly #parameters: Readonly<Record<string, CommandParameter>>;

  private constructor(elements: readonly Element[], parameters: Readonly<Record<string, CommandParameter>>) {
    this.#elements = elements;
    this.#parameters = parameters;
  }

  /** Parses `args`; problems (a placeholder naming no parameter, two arrays in one element, …) come back instead of a template. */
  static compile(
    args: readonly CommandArg[],
    parameters: Readonly<Record<string, CommandParameter>>,
  ): { template: ArgvTemplate; problems?: undefined; used: ReadonlySet<string> } | { template?: undefined; problems: TemplateProblem[] } {
    const problems: TemplateProblem[] = [];
    const used = new Set<string>();
    const elements: Element[] = [];
    let afterDoubleDash = false;
    const known = (name: string, path: (string | number)[]): boolean => {
      if (Object.hasOwn(parameters, name)) {
        used.add(name);
        return true;
      }
      const declared = Object.keys(parameters);
      problems.push({ path, message: `names the parameter ${JSON.stringify(name)}, which is not declared${declared.length === 0 ? ' (there are no parameters)' : ` (parameters: ${declared.join(', ')})`}; for literal braces use { "literal": "..." }` });
      return false;
    };
    for (const [index, arg] of args.entries()) {
      const path = ['args', index];
      if (typeof arg === 'string') {
        const parts = parse(arg);
        const params = parts.flatMap((part) => ('param' in part ? [part.param] : []));
        if (params.length === 0) {
          elements.push({ kind: 'literal', text: arg });
          if (arg === '--') afterDoubleDash = true;
          continue;
        }
        if (!params.every((name) => known(name, path))) continue;
        const arrays = params.filter((name) => parameters[name]?.type === 'array');
        if (arrays.length > 1) {
          problems.push({ path, message: `places more than one array parameter (${arrays.join(', ')}) in one element: give each its own element` });
          continue;
        }
        elements.push({ kind: 'template', parts, params, afterDoubleDash });
      } else if ('literal' in arg) {
        elements.push({ kind: 'literal', text: arg.literal });
        if (arg.literal === '--') afterDoubleDash = true;
      } else {
        if (!known(arg.param, [...path, 'param'])) continue;
        if (arg.flag === undefined) elements.push({ kind: 'template', parts: [{ param: arg.param }], params: [arg.param], afterDoubleDash });
        else elements.push({ kind: 'flag', param: arg.param, flag: arg.flag });
      }
    }
    return problems.length > 0 ? { problems } : { template: new ArgvTemplate(elements, parameters), used };
  }

  /**
   * The argv (after the program) for checked arguments. A value starting with `-` at the start
   * of a positional element that is not after a literal `--` is McpError -32602, unless its
   * parameter has `allowDashPrefix`: it would be read as an option (`--output=/etc/passwd`).
   */
  expand(values: ToolArguments): string[] {
    const argv: string[] = [];
    for (const element of this.#elements) {
      switch (element.kind) {
        case 'literal':
          argv.push(element.text);
          break;
        case 'flag': {
          const value = values.get(element.param);
          if (value === undefined || value === false) break;
          if (value === true) argv.push(element.flag);
          else if (isArray(value)) for (const item of value) argv.push(element.flag, item);
          else argv.push(element.flag, String(value));
          break;
        }
        case 'template': {
          if (element.params.some((name) => !values.has(name))) break;
          const array = element.params.find((name) => isArray(values.get(name)));
          const items = array === undefined ? [undefined] : (values.get(array) as readonly string[]);
          for (const item of items) {
            const text = element.parts.map((part) => ('text' in part ? part.text : part.param === array ? (item as string) : String(values.get(part.param)))).join('');
            const [first] = element.parts;
            if (!element.afterDoubleDash && first !== undefined && 'param' in first && text.startsWith('-') && this.#parameters[first.param]?.allowDashPrefix !== true) {
              throw new McpError(
                ErrorCode.InvalidParams,
                `Invalid argument "${first.param}": a value starting with "-" is not accepted here, as the program would read it as an option`,
                { parameter: first.param },
              );
            }
            argv.push(text);
          }
          break;
        }
      }
    }
    return argv;
  }
}

function isArray(value: CommandParameterValue | undefined): value is readonly string[] {
  return Array.isArray(value);
}

/** A string element as literal text and `{param}` placeholders. */
function parse(arg: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const match of arg.matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push({ text: arg.slice(last, match.index) });
    parts.push({ param: match[1] as string });
    last = match.index + match[0].length;
  }
  if (last < arg.length) parts.push({ text: arg.slice(last) });
  return parts;
}

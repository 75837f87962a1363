/**
 * @module
 * One tool's transformation, compiled from its options: how its definition is shown to the client
 * (`present`), and how a client's arguments become the server's (`toUpstream`).
 */
import { ErrorCode } from '../../errors/error-code.js';
import { McpError } from '../../errors/mcp-error.js';
import type { JsonObject } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { narrowSchema, narrowingViolation, type Narrowing } from './narrowing.js';
import type { ArgumentTransform, ToolTransform } from './options.js';

interface ArgumentPlan {
  readonly original: string;
  /** The name the client uses; for a hidden argument, its original name (which it may not set). */
  readonly client: string;
  readonly options: ArgumentTransform;
  readonly hidden: boolean;
  /** The value sent on every call (hidden) or when a call leaves the argument out (default). */
  readonly fill: { readonly value: unknown } | undefined;
  readonly narrowing: Narrowing | undefined;
  readonly pattern: RegExp | undefined;
}

/** What `present` made: the tool as the client sees it, or why it cannot be shown. */
export type Presented = { readonly tool: JsonObject } | { readonly problem: string };

/** `{description}` in `template` replaced by the original description. */
function fromTemplate(template: string, original: unknown): string {
  return template.replaceAll('{description}', typeof original === 'string' ? original : '').trim();
}

export class ToolPlan {
  readonly original: string;
  readonly client: string;
  readonly enabled: boolean;
  readonly #options: ToolTransform;
  readonly #arguments: readonly ArgumentPlan[];
  readonly #byOriginal = new Map<string, ArgumentPlan>();
  /** Visible arguments by the name the client uses. */
  readonly #byClient = new Map<string, ArgumentPlan>();

  /** `options` passed `transformProblems`. */
  constructor(original: string, options: ToolTransform) {
    this.original = original;
    this.client = options.name ?? original;
    this.enabled = options.enabled !== false;
    this.#options = options;
    this.#arguments = Object.entries(options.arguments ?? {}).map(([name, arg]): ArgumentPlan => {
      const hidden = arg.hide === true;
      const value = hidden && arg.value !== undefined ? arg.value : arg.default;
      const { enum: values, minimum, maximum, minLength, maxLength, pattern } = arg;
      const narrowing = [values, minimum, maximum, minLength, maxLength, pattern].some((x) => x !== undefined) ? { enum: values, minimum, maximum, minLength, maxLength, pattern } : undefined;
      return {
        original: name,
        client: hidden ? name : (arg.name ?? name),
        options: arg,
        hidden,
        fill: value === undefined ? undefined : { value },
        narrowing: narrowing && (Object.fromEntries(Object.entries(narrowing).filter(([, x]) => x !== undefined)) as Narrowing),
        pattern: pattern === undefined ? undefined : new RegExp(pattern, 'u'),
      };
    });
    for (const arg of this.#arguments) {
      this.#byOriginal.set(arg.original, arg);
      if (!arg.hidden) this.#byClient.set(arg.client, arg);
    }
  }

  /** The tool as the client sees it (`tool` as the server listed it, under the original name). */
  present(tool: JsonObject): Presented {
    const options = this.#options;
    const out: JsonObject = { ...tool, name: this.client };
    if (options.title !== undefined) out.title = options.title;
    if (options.description !== undefined) out.description = fromTemplate(options.description, tool.description);
    if (options.annotations !== undefined) out.annotations = { ...(isJsonObject(tool.annotations) ? tool.annotations : {}), ...options.annotations };
    if (this.#arguments.length === 0) return { tool: out };
    const schema = isJsonObject(tool.inputSchema) ? tool.inputSchema : {};
    const properties = isJsonObject(schema.properties) ? schema.properties : {};
    for (const arg of this.#arguments) {
      if (!Object.hasOwn(properties, arg.original)) return { problem: `argument ${JSON.stringify(arg.original)} is not in the tool's inputSchema` };
    }
    const shown: JsonObject = {};
    for (const [name, property] of Object.entries(properties)) {
      const arg = this.#byOriginal.get(name);
      if (arg === undefined) {
        const renamed = this.#byClient.get(name);
        if (renamed !== undefined) return { problem: `argument ${JSON.stringify(renamed.original)} would be named ${JSON.stringify(name)}, which the tool already has` };
        shown[name] = property;
        continue;
      }
      if (arg.hidden) continue;
      const presented = this.#presentArgument(arg, property);
      if (typeof presented === 'string') return { problem: `argument ${JSON.stringify(name)}: ${presented}` };
      shown[arg.client] = presented;
    }
    const inputSchema: JsonObject = { ...schema, properties: shown };
    if (Array.isArray(schema.required)) {
      const required: unknown[] = [];
      for (const name of schema.required as unknown[]) {
        const arg = typeof name === 'string' ? this.#byOriginal.get(name) : undefined;
        if (arg === undefined) required.push(name);
        else if (arg.fill === undefined) required.push(arg.client);
      }
      if (required.length > 0) inputSchema.required = required;
      else delete inputSchema.required;
    }
    out.inputSchema = inputSchema;
    return { tool: out };
  }

  #presentArgument(arg: ArgumentPlan, property: unknown): JsonObject | string {
    let schema: JsonObject = isJsonObject(property) ? { ...property } : {};
    if (arg.options.description !== undefined) schema.description = fromTemplate(arg.options.description, schema.description);
    if (arg.options.default !== undefined) schema.default = arg.options.default;
    if (arg.narrowing !== undefined) {
      const narrowed = narrowSchema(schema, arg.narrowing);
      if (typeof narrowed === 'string') return narrowed;
      schema = narrowed;
    }
    return schema;
  }

  /**
   * The server's arguments for a call with the client's: names mapped back, defaults filled in,
   * hidden arguments pinned. Throws -32602 for a hidden argument that is set, an argument under
   * the name it was renamed from, or a value outside a narrowing.
   */
  toUpstream(args: JsonObject): JsonObject {
    const out: JsonObject = {};
    for (const [name, value] of Object.entries(args)) {
      const arg = this.#byClient.get(name);
      if (arg !== undefined) {
        if (arg.narrowing !== undefined) {
          const violation = narrowingViolation(arg.narrowing, arg.pattern, value);
          if (violation) {
            throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${this.client}: ${JSON.stringify(name)} ${violation.message}`, {
              tool: this.client,
              argument: name,
              rule: violation.rule,
            });
          }
        }
        out[arg.original] = value;
        continue;
      }
      const configured = this.#byOriginal.get(name);
      if (configured?.hidden) {
        throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${this.client}: ${JSON.stringify(name)} is fixed and cannot be set`, {
          tool: this.client,
          argument: name,
          rule: 'hidden',
        });
      }
      if (configured !== undefined) {
        throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${this.client}: unknown argument ${JSON.stringify(name)} (it is called ${JSON.stringify(configured.client)})`, {
          tool: this.client,
          argument: name,
          rule: 'name',
        });
      }
      out[name] = value;
    }
    for (const arg of this.#arguments) {
      if (arg.fill !== undefined && (arg.hidden || !Object.hasOwn(args, arg.client))) out[arg.original] = arg.fill.value;
    }
    return out;
  }

  /** True when calls need their arguments mapped. */
  get mapsArguments(): boolean {
    return this.#arguments.length > 0;
  }
}

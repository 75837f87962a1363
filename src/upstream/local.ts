import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import type { JsonObject, McpMessage, Result } from '../message/jsonrpc.js';
import { isJsonObject } from '../message/parse-message.js';
import { negotiateVersion } from '../eras/versions.js';
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  Tool,
} from '../spec/index.js';
import type { Downstream } from '../core/downstream.js';
import type { RequestScope } from '../core/request-scope.js';
import type { SessionInfo } from '../core/session-info.js';
import type { Upstream, UpstreamConnection } from '../core/upstream.js';

/** What a local handler gets besides its arguments. */
export interface LocalCallContext {
  readonly signal: AbortSignal;
  readonly session: SessionInfo;
  /** Sends a request to the client (sampling, elicitation, roots). */
  readonly downstream: Downstream;
  /** Reports progress when the caller asked for it (a no-op otherwise). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

export interface LocalTool extends Omit<Tool, 'inputSchema'> {
  inputSchema?: Tool['inputSchema'];
  handler(args: JsonObject, ctx: LocalCallContext): CallToolResult | Promise<CallToolResult>;
}

export interface LocalPrompt extends Prompt {
  handler(args: Record<string, string>, ctx: LocalCallContext): GetPromptResult | Promise<GetPromptResult>;
}

export interface LocalResource extends Resource {
  read(ctx: LocalCallContext): ReadResourceResult['contents'] | Promise<ReadResourceResult['contents']>;
}

export interface LocalServerOptions {
  name?: string;
  version?: string;
  instructions?: string;
  tools?: LocalTool[];
  prompts?: LocalPrompt[];
  resources?: LocalResource[];
}

/**
 * An MCP server defined in TypeScript, living in the same process: the end of a chain, or (with
 * `withLocal`) tools, prompts and resources added next to a remote server's.
 */
export class LocalServer implements Upstream {
  readonly options: LocalServerOptions;
  readonly #tools: Map<string, LocalTool>;
  readonly #prompts: Map<string, LocalPrompt>;
  readonly #resources: Map<string, LocalResource>;

  constructor(options: LocalServerOptions) {
    this.options = options;
    this.#tools = new Map((options.tools ?? []).map((tool) => [tool.name, tool]));
    this.#prompts = new Map((options.prompts ?? []).map((prompt) => [prompt.name, prompt]));
    this.#resources = new Map((options.resources ?? []).map((resource) => [resource.uri, resource]));
  }

  /** Tools as `tools/list` shows them. */
  listTools(): Tool[] {
    return [...this.#tools.values()].map(({ handler: _handler, inputSchema, ...tool }) => ({
      ...tool,
      inputSchema: inputSchema ?? { type: 'object' },
    }));
  }

  listPrompts(): Prompt[] {
    return [...this.#prompts.values()].map(({ handler: _handler, ...prompt }) => prompt);
  }

  listResources(): Resource[] {
    return [...this.#resources.values()].map(({ read: _read, ...resource }) => resource);
  }

  hasTool(name: unknown): boolean {
    return typeof name === 'string' && this.#tools.has(name);
  }

  hasPrompt(name: unknown): boolean {
    return typeof name === 'string' && this.#prompts.has(name);
  }

  hasResource(uri: unknown): boolean {
    return typeof uri === 'string' && this.#resources.has(uri);
  }

  capabilities(): JsonObject {
    const capabilities: JsonObject = {};
    if (this.#tools.size > 0) capabilities.tools = {};
    if (this.#prompts.size > 0) capabilities.prompts = {};
    if (this.#resources.size > 0) capabilities.resources = {};
    return capabilities;
  }

  connect(downstream: Downstream, session: SessionInfo): UpstreamConnection {
    return {
      request: (message, scope) => this.handle(message, localCallContext(message, scope, downstream, session)),
      notify: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }

  /** Answers one request; unknown methods are -32601, unknown names -32602. */
  async handle(message: McpMessage, ctx: LocalCallContext): Promise<Result> {
    const params = message.params ?? {};
    switch (message.method) {
      case 'initialize': {
        const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
        const result: JsonObject = {
          protocolVersion: negotiateVersion(requested),
          capabilities: this.capabilities(),
          serverInfo: { name: this.options.name ?? 'mcp-chain-local', version: this.options.version ?? '0.0.0' },
        };
        if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
        return result;
      }
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: this.listTools() };
      case 'tools/call':
        return this.#callTool(params, ctx);
      case 'prompts/list':
        return { prompts: this.listPrompts() };
      case 'prompts/get':
        return this.#getPrompt(params, ctx);
      case 'resources/list':
        return { resources: this.listResources() };
      case 'resources/templates/list':
        return { resourceTemplates: [] };
      case 'resources/read':
        return this.#readResource(params, ctx);
      default:
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`);
    }
  }

  async #callTool(params: JsonObject, ctx: LocalCallContext): Promise<Result> {
    const tool = typeof params.name === 'string' ? this.#tools.get(params.name) : undefined;
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${String(params.name)}`);
    const args = isJsonObject(params.arguments) ? params.arguments : {};
    try {
      return (await tool.handler(args, ctx)) as unknown as Result;
    } catch (error) {
      if (error instanceof McpError) throw error;
      // A tool that ran and failed is a result the model can see, not a protocol error.
      return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
    }
  }

  async #getPrompt(params: JsonObject, ctx: LocalCallContext): Promise<Result> {
    const prompt = typeof params.name === 'string' ? this.#prompts.get(params.name) : undefined;
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${String(params.name)}`);
    const args: Record<string, string> = {};
    if (isJsonObject(params.arguments)) {
      for (const [key, value] of Object.entries(params.arguments)) if (typeof value === 'string') args[key] = value;
    }
    for (const argument of prompt.arguments ?? []) {
      if (argument.required && args[argument.name] === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `Missing required argument: ${argument.name}`);
      }
    }
    return (await prompt.handler(args, ctx)) as unknown as Result;
  }

  async #readResource(params: JsonObject, ctx: LocalCallContext): Promise<Result> {
    const resource = typeof params.uri === 'string' ? this.#resources.get(params.uri) : undefined;
    if (!resource) {
      throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${String(params.uri)}`, { uri: params.uri });
    }
    return { contents: await resource.read(ctx) };
  }
}

/** The context a local handler gets, for a request with `scope` from `session`. */
export function localCallContext(
  message: McpMessage,
  scope: RequestScope,
  downstream: Downstream,
  session: SessionInfo,
): LocalCallContext {
  const meta = message.params?._meta;
  const token = isJsonObject(meta) ? meta.progressToken : undefined;
  const related = scope.related;
  return {
    signal: scope.signal,
    session,
    // What the handler asks the client belongs with this request (over HTTP: on its stream).
    downstream: related ?? downstream,
    progress: (progress, total, text) => {
      if ((typeof token !== 'string' && typeof token !== 'number') || !related) return Promise.resolve();
      const params: JsonObject = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (text !== undefined) params.message = text;
      return related.notify({ method: 'notifications/progress', params });
    },
  };
}

/** An in-process upstream. */
export function local(options: LocalServerOptions): LocalServer {
  return new LocalServer(options);
}

import { defineCommand } from '../command.js';
import { loadConfigCommands } from '../load-config-commands.js';
import { CONFIG_SERVE_OPTIONS } from '../serve-options.js';
import { serveFlagsOf } from '../serve-flags-of.js';

/** `mcp-chain serve [config-file]`: the servers of a config file, merged into one MCP endpoint. */
export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'serve every server of a config file as one MCP server, on stdio or with --http',
  synopsis: [
    { usage: '[config-file] [options]', summary: 'serve every server of a config file as one MCP server, on stdio' },
    { usage: '[config-file] --http [host:]port [options]', summary: 'the same on Streamable HTTP at /mcp (or where the file says)' },
  ],
  description: [
    "The file is one you already have: `mcpServers` (Claude Desktop, Cursor, Claude Code's .mcp.json, Windsurf, Gemini CLI), `servers` (VS Code's .vscode/mcp.json), Codex's TOML `[mcp_servers.<name>]`, as JSON (comments allowed), YAML or TOML, or a mcp-chain.config.ts exporting defineConfig({...}). Without a file, the first mcp-chain.config.{ts,mts,js,mjs,json,jsonc,yaml,yml,toml} of the working directory is served.",
    'With several servers, their tools and prompts are named <server>__<name>; resources keep their URIs. A server that fails drops out of the lists and comes back when it is up again. A file with problems starts nothing: every problem is printed on stderr (file:line:column, what was expected, a suggestion) and the exit code is 1. `mcp-chain validate` checks a file and shows what would be served.',
    'Examples: `mcp-chain serve claude_desktop_config.json` (on stdio, for a client that starts servers), `mcp-chain serve .vscode/mcp.json --http 8080 --watch` (for clients that connect to http://127.0.0.1:8080/mcp, applying changes to the file as it is saved).',
  ],
  positionals: [{ name: 'config-file', optional: true, help: 'the config file (default: mcp-chain.config.* in the working directory)' }],
  options: CONFIG_SERVE_OPTIONS,
  async run({ values, positionals }) {
    const flags = serveFlagsOf('serve', values);
    const { serveConfig } = await loadConfigCommands();
    return serveConfig(positionals[0], flags);
  },
});

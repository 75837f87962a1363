import { defineCommand } from '../command.js';
import { SERVE_OPTIONS } from '../serve-options.js';
import { chainSourceOf, serveFlagsOf, servePlanOf } from '../serve-flags-of.js';
import { startServing } from '../start-serving.js';
import { UsageError } from '../usage-error.js';

/** `mcp-chain [options] -- <command>` and `mcp-chain --url <url>`: a server behind an empty chain. */
export const proxyCommand = defineCommand({
  summary: 'serve an MCP server through a chain',
  synopsis: [
    { usage: '[options] -- <command> [args...]', summary: 'serve a stdio MCP server through a chain, on stdio' },
    {
      usage: '--http [host:]port [options] -- <command> [args...]',
      summary: 'the same on Streamable HTTP at /mcp (one server process per HTTP session)',
    },
    { usage: '[options] --url <http-url>', summary: 'serve a remote MCP server (Streamable HTTP, or legacy HTTP+SSE) through a chain, on stdio' },
  ],
  positionals: [],
  rest: { name: '<command> [args...]', optional: true, help: 'the stdio MCP server to start (or --url instead)' },
  options: SERVE_OPTIONS,
  run({ values, rest }) {
    const source = chainSourceOf(undefined, values, undefined, rest);
    if (source.kind === 'chain' && source.server === undefined) throw new UsageError('nothing to serve: give a command after --, or --url <url>');
    return startServing(servePlanOf(undefined, source, serveFlagsOf(undefined, values)));
  },
});

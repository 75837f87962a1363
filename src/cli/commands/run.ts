import { defineCommand } from '../command.js';
import { SERVE_OPTIONS } from '../serve-options.js';
import { chainSourceOf, serveFlagsOf, servePlanOf } from '../serve-flags-of.js';
import { startServing } from '../start-serving.js';

/** `mcp-chain run <chain-file>`: the chain a file exports, in front of a server or on its own. */
export const runCommand = defineCommand({
  name: 'run',
  summary: 'serve the chain exported by a file, on stdio or with --http (in front of <command> when the file leaves the upstream open)',
  description: [
    "The file (.ts, .mts, .js, .mjs) is compiled with esbuild, with the local files it imports, and the result cached by content in MCP_CHAIN_CACHE_DIR (default $TMPDIR/mcp-chain-<uid>). Its default export is a chain without an upstream (the command after -- or --url goes behind it), a function (upstream) => Upstream, or a complete chain ending in .to(...); an `options` export sets session options such as serverInfo.",
  ],
  positionals: [{ name: 'chain-file', help: 'the chain file (TypeScript is loaded directly, no build step)' }],
  rest: { name: '<command> [args...]', optional: true, help: 'the stdio MCP server to put behind the chain, when the file leaves its upstream open' },
  options: SERVE_OPTIONS,
  run({ values, positionals, rest }) {
    return startServing(servePlanOf('run', chainSourceOf('run', values, positionals[0], rest), serveFlagsOf('run', values)));
  },
});

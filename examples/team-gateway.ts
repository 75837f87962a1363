// One HTTP gateway for several callers, each with its own token and its own tools. The identity
// of a session is the name of the variable its token came from (`--token-env`):
//
//   ALICE_TOKEN=… BUILD_BOT_TOKEN=… mcp-chain run examples/team-gateway.ts \
//     --http 8080 --token-env ALICE_TOKEN --token-env BUILD_BOT_TOKEN \
//     -- npx -y @modelcontextprotocol/server-everything
//
// Alice sees and calls every tool; the build bot only `echo` and `get-sum`; anything else is
// unknown to it (absent from tools/list, -32602 when called), exactly as if it did not exist.
import { chain, ErrorCode, mapList, McpError, on, type Context } from 'mcp-chain';
import { log } from 'mcp-chain/log';

const TOOLS_OF: Record<string, readonly string[] | 'all'> = {
  ALICE_TOKEN: 'all',
  BUILD_BOT_TOKEN: ['echo', 'get-sum'],
};

function mayUse(ctx: Context, tool: string): boolean {
  const allowed = TOOLS_OF[ctx.session.identity?.id ?? ''];
  return allowed === 'all' || (allowed !== undefined && allowed.includes(tool));
}

export default chain(
  log(),
  mapList('tools', (tool, ctx) => (mayUse(ctx, tool.name) ? tool : undefined)),
  on('tools/call', (ctx, next) => {
    const name = ctx.message.params?.name ?? '';
    if (!mayUse(ctx, name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return next();
  }),
);

export const options = { serverInfo: { name: 'team-gateway', version: '1.0.0' } };

// The library example of docs/guides/library.md, type-checked with the rest of the project.
import { chain, ErrorCode, mapList, McpError, on, stdio } from 'mcp-chain';
import { filter } from 'mcp-chain/filter';
import { serveStdio } from 'mcp-chain/kernel';

const gateway = chain()
  .use(filter({ tools: { deny: ['delete_*'] } }))
  .use(mapList('tools', (tool) => ({ ...tool, description: `[ACME] ${tool.description ?? ''}` })))
  .use(
    on('tools/call', async (ctx, next) => {
      if (ctx.message.params?.arguments?.path === '/etc/shadow') {
        throw new McpError(ErrorCode.InvalidParams, 'Not allowed');
      }
      const result = await next(); // typed: CallToolResult
      return result;
    }),
  )
  .to(stdio({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'] }));

await serveStdio(gateway);

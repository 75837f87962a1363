import { local, type LocalServer } from '../../src/upstream/local.js';

/** The upstream of the fronts' fuzz targets: `echo` answers with its arguments, `progress` reports progress before it answers. */
export function echoServer(): LocalServer {
  return local({
    name: 'fuzz-echo',
    tools: [{
      name: 'echo',
      description: 'Answers with its arguments',
      handler: (args) => ({ content: [{ type: 'text', text: 'echo' }], structuredContent: args }),
    }, {
      name: 'progress',
      description: 'Reports progress (when asked for it) before it answers',
      handler: async (_args, ctx) => {
        await ctx.progress(1, 2, 'half');
        return { content: [{ type: 'text', text: 'done' }] };
      },
    }],
  });
}

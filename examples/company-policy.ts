// A policy in front of a server you did not write: hide tools, rename and re-describe others,
// and log every call. Serve it in front of any stdio server:
//
//   mcp-chain run examples/company-policy.ts -- npx -y @modelcontextprotocol/server-everything
//
import { chain } from 'mcp-chain';
import { filter } from 'mcp-chain/filter';
import { log } from 'mcp-chain/log';
import { rename } from 'mcp-chain/rename';

export default chain(
  log(),
  filter({ tools: { deny: ['get-env', 'trigger-*'] } }),
  rename({
    tools: {
      echo: { name: 'acme_echo', description: 'ACME approved: repeats your message back.' },
      'get-sum': 'acme_add',
    },
  }),
);

export const options = {
  serverInfo: { name: 'acme-gateway', version: '1.0.0' },
  timeouts: { request: 30_000 },
};

#!/usr/bin/env node
// The built-in default: puts examples/company-policy.ts in front of the official
// server-everything, connects the official SDK client to the chain over stdio, and shows what
// the client sees. Run with `npm run demo` (builds first).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const everything = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const command = [join(root, 'dist', 'cli', 'main.js'), 'run', join(root, 'examples', 'company-policy.ts'), '--', process.execPath, everything, 'stdio'];

console.log(`$ mcp-chain ${command.slice(1).join(' ')}\n`);
const transport = new StdioClientTransport({ command: process.execPath, args: command, stderr: 'pipe', env: { ...process.env, MCP_CHAIN_LOG_LEVEL: 'warn' } });
const client = new Client({ name: 'mcp-chain-demo', version: '1.0.0' });
await client.connect(transport);

console.log('server:', client.getServerVersion());
const { tools } = await client.listTools();
console.log(`\ntools the client sees (${tools.length}):`);
for (const tool of tools) console.log(`  ${tool.name.padEnd(28)} ${(tool.description ?? '').split('\n')[0].slice(0, 60)}`);

const echoed = await client.callTool({ name: 'acme_echo', arguments: { message: 'hello through the chain' } });
console.log('\nacme_echo ->', echoed.content[0].text);
const sum = await client.callTool({ name: 'acme_add', arguments: { a: 2, b: 40 } });
console.log('acme_add  ->', sum.content[0].text);
try {
  await client.callTool({ name: 'get-env', arguments: {} });
} catch (error) {
  console.log('get-env   ->', `refused: ${error.message}`);
}
await client.close();

// `mcp-chain serve` on the other shapes and formats a user may have: VS Code's `.vscode/mcp.json`
// (`servers`, with `type`, comments and trailing commas), YAML, Codex's TOML (`[mcp_servers.x]`)
// and a typed `defineConfig` file with an in-process `local()` server. The same three servers in
// each (server-filesystem, server-memory, a Streamable HTTP member): every merged list, walked to
// the end, is what the servers list themselves, one call reaches each, and nothing is left running
// once the client has gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Prompt, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  connectHttpDirect,
  directTarget,
  exposedName,
  gatewayTarget,
  listAll,
  ProcessRecord,
  referenceEntry,
  serverBin,
  startHttpMember,
  workspace,
  type HttpMember,
  type ListItemOf,
  type ListKind,
  type StdioEntry,
  type Workspace,
} from '../helpers/gateway.js';
import { callTool, mcpErrorWithCode, textOf } from '../helpers/mcp.js';
import { connectClient, repoRoot, type Connection } from '../helpers/targets.js';

const T = { timeout: 30_000 };
const KINDS = ['tools', 'prompts', 'resources', 'resourceTemplates'] as const;

/** The members of every file, in file order. */
const MEMBERS = ['files', 'memory', 'remote'] as const;
type Member = (typeof MEMBERS)[number];

interface Setup {
  readonly ws: Workspace;
  readonly filesDir: string;
  readonly remote: HttpMember;
  readonly files: StdioEntry;
  readonly memory: (file: string) => StdioEntry;
}

interface Format {
  readonly name: string;
  /** Writes the file (or names a fixture); the environment the gateway needs for it. */
  file(setup: Setup, memoryFile: string): { path: string; env?: Record<string, string> };
  /** In-process servers after the three: `inproc` with its `whoami` tool. */
  readonly inProcess?: boolean;
  /** The tools the file lets through, by member (default: all). */
  readonly tools?: Partial<Record<Member, readonly string[]>>;
}

const json = (value: unknown): string => JSON.stringify(value);

const FORMATS: readonly Format[] = [
  {
    name: 'VS Code .vscode/mcp.json (servers, type, comments, trailing commas)',
    file: (s, memoryFile) => {
      const memory = s.memory(memoryFile);
      return {
        path: s.ws.write(
          'vscode/.vscode/mcp.json',
          `// VS Code's MCP servers
{
  "inputs": [],
  "servers": {
    "files": { "type": "stdio", "command": ${json(s.files.command)}, "args": ${json(s.files.args)} },
    /* the knowledge graph */
    "memory": { "type": "stdio", "command": ${json(memory.command)}, "args": ${json(memory.args)}, "env": ${json(memory.env)}, },
    "remote": { "type": "http", "url": ${json(s.remote.url)} },
  },
}
`,
        ),
      };
    },
  },
  {
    name: 'YAML (mcpServers, a ${VAR} from the environment)',
    file: (s, memoryFile) => {
      const memory = s.memory(memoryFile);
      return {
        path: s.ws.write(
          'yaml/mcp-chain.config.yaml',
          `# servers for mcp-chain
mcpServers:
  files:
    command: ${json(s.files.command)}
    args:
      - ${json(s.files.args[0])}
      - "\${E2E_FILES_DIR}"
  memory:
    command: ${json(memory.command)}
    args: ${json(memory.args)}
    env:
      MEMORY_FILE_PATH: ${json(memoryFile)}
  remote:
    url: ${json(s.remote.url)}
`,
        ),
        env: { E2E_FILES_DIR: s.filesDir },
      };
    },
  },
  {
    name: 'TOML, as Codex writes it ([mcp_servers.<name>], enabled_tools)',
    tools: { files: ['read_text_file', 'list_directory'] },
    file: (s, memoryFile) => {
      const memory = s.memory(memoryFile);
      return {
        path: s.ws.write(
          'toml/config.toml',
          `# ~/.codex/config.toml
model = "o3"

[mcp_servers.files]
command = ${json(s.files.command)}
args = ${json(s.files.args)}
enabled_tools = ["read_text_file", "list_directory"]

[mcp_servers.memory]
command = ${json(memory.command)}
args = ${json(memory.args)}
env = { MEMORY_FILE_PATH = ${json(memoryFile)} }

[mcp_servers.remote]
url = ${json(s.remote.url)}
`,
        ),
      };
    },
  },
  {
    name: 'TypeScript, defineConfig with a local() server in process',
    inProcess: true,
    file: (s, memoryFile) => ({
      path: `${repoRoot}/test/fixtures/configs/gateway.config.ts`,
      env: {
        E2E_NODE: process.execPath,
        E2E_FILESYSTEM_BIN: serverBin('server-filesystem'),
        E2E_FILES_DIR: s.filesDir,
        E2E_MEMORY_BIN: serverBin('server-memory'),
        E2E_MEMORY_FILE: memoryFile,
        E2E_REMOTE_URL: s.remote.url,
      },
    }),
  },
];

describe('mcp-chain serve: other shapes and formats of config file', () => {
  let setup: Setup;
  /** Each member's own client, for the lists to compare with. */
  const direct = new Map<Member, Client>();
  const closers: (() => Promise<void> | void)[] = [];

  before(async () => {
    const ws = workspace();
    closers.push(() => ws.remove());
    const filesDir = ws.mkdir('files');
    ws.write('files/notes.txt', 'first note\n');
    const remote = await startHttpMember();
    closers.push(() => remote.stop());
    setup = {
      ws,
      filesDir,
      remote,
      files: referenceEntry('server-filesystem', [filesDir]),
      memory: (file) => referenceEntry('server-memory', [], { MEMORY_FILE_PATH: file }),
    };
    // No capabilities: server-filesystem serves the directory it was given, not the client's roots.
    const [files, memory, remoteClient] = await Promise.all([
      connectClient(directTarget(setup.files, 'files'), { capabilities: {} }),
      connectClient(directTarget(setup.memory(ws.path('memory-direct.jsonl')), 'memory'), { capabilities: {} }),
      connectHttpDirect(remote.url),
    ]);
    closers.push(() => remoteClient.close(), async () => void (await memory.close()), async () => void (await files.close()));
    direct.set('files', files.client).set('memory', memory.client).set('remote', remoteClient.client);
  });

  after(async () => {
    for (const close of closers.reverse()) await close();
  });

  /** The merged list of `kind` from the members' own lists (no URI is listed twice here). */
  async function expected<K extends ListKind>(kind: K, format: Format): Promise<ListItemOf[K][]> {
    const items: ListItemOf[K][] = [];
    for (const member of MEMBERS) {
      const client = direct.get(member);
      assert.ok(client);
      const capability: 'tools' | 'prompts' | 'resources' = kind === 'resourceTemplates' ? 'resources' : kind;
      if (client.getServerCapabilities()?.[capability] === undefined) continue;
      const allowed = kind === 'tools' ? format.tools?.[member] : undefined;
      for (const item of (await listAll(client, kind)).items) {
        if (allowed && !allowed.includes((item as Tool).name)) continue;
        items.push(kind === 'tools' || kind === 'prompts' ? { ...item, name: exposedName(member, (item as Tool | Prompt).name) } : item);
      }
    }
    return items;
  }

  for (const format of FORMATS) {
    it(`${format.name}: every list as the servers list it, one call to each server, nothing left running after`, T, async () => {
      const memoryFile = setup.ws.path(`memory-${FORMATS.indexOf(format)}.jsonl`);
      const { path, env } = format.file(setup, memoryFile);
      const gateway: Connection = await connectClient(gatewayTarget(path, env ? { env } : {}), { capabilities: {} });
      const processes = new ProcessRecord(gateway.pid);
      try {
        processes.record();
        for (const kind of KINDS) {
          const { items, pages } = await listAll(gateway.client, kind);
          assert.equal(pages.length, 1, `${kind}: one page without naming.pageSize`);
          const want = await expected(kind, format);
          if (kind === 'tools' && format.inProcess) {
            assert.deepEqual(items.slice(0, -1), want);
            assert.deepEqual(items.at(-1), {
              name: 'inproc__whoami',
              description: 'The process id of the process it runs in',
              inputSchema: { type: 'object' },
            });
          } else {
            assert.deepEqual(items, want, kind);
          }
        }
        assert.equal(textOf(await callTool(gateway.client, { name: 'files__read_text_file', arguments: { path: `${setup.filesDir}/notes.txt` } })), 'first note\n');
        assert.deepEqual(JSON.parse(textOf(await callTool(gateway.client, { name: 'memory__read_graph', arguments: {} }))), { entities: [], relations: [] });
        assert.equal(textOf(await callTool(gateway.client, { name: 'remote__test_simple_text', arguments: {} })), 'This is a simple text response for testing.');
        const resource = await gateway.client.readResource({ uri: 'test://static-text' });
        assert.deepEqual(resource, await direct.get('remote')?.readResource({ uri: 'test://static-text' }));
        if (format.tools?.files) {
          // Filtered out by the file: not listed, and not callable either.
          await assert.rejects(
            gateway.client.callTool({ name: 'files__write_file', arguments: { path: `${setup.filesDir}/x.txt`, content: 'x' } }),
            mcpErrorWithCode(ErrorCode.InvalidParams),
          );
        }
        if (format.inProcess) {
          assert.equal(textOf(await callTool(gateway.client, { name: 'inproc__whoami', arguments: {} })), `pid ${gateway.pid}`, 'it runs in the gateway');
        }
        processes.record();
        assert.ok(processes.seen.size >= 2, `server processes below the gateway: ${[...processes.seen.values()].join('\n')}`);
      } finally {
        const report = await gateway.close();
        assert.equal(report.exitCode, 0, gateway.stderrTail());
      }
      await processes.allGone();
    });
  }
});



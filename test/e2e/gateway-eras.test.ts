// `mcp-chain serve <config>` with members of both eras behind one endpoint (issue 15): a
// session-era member (server-everything) and a member of protocol revision 2026-07-28 only
// (test/fixtures/servers/modern-only-upstream.ts, on stdio and on HTTP). A session-era client (the
// v1 SDK) and a 2026-07-28 client (the v2 SDK, pinned) each list both members' tools and call
// them, sampling round trips included; the merged lists carry the members' caching hints merged
// (the smallest ttlMs, the most private scope), and none when a member gives none.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { withDeadline } from '../../src/testing/with-deadline.js';
import { fixtureEntry, referenceEntry, workspace, type StdioEntry, type Workspace } from '../helpers/gateway.js';
import { startHttpProxy, type HttpProxy } from '../helpers/http-proxy.js';
import { fixtureCommand, proxyEnv, proxyMain } from '../helpers/targets.js';

const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };
const PINNED: ClientOptions = { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } };

/** The text of a tool result's content, joined. */
function textOf(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** The answer to an elicitation, by what it asks. */
function elicited(message: string): Record<string, string> {
  return message.toLowerCase().includes('colour') ? { colour: 'teal' } : { name: 'Ada' };
}

/** The modern-only fixture on HTTP (a free loopback port), with caching hints of its own. */
async function startModernHttpMember(extra: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const { command, args } = fixtureCommand('modern-only-upstream');
  const child: ChildProcess = spawn(command, [...args, '--port', '0', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  try {
    const url = await withDeadline(
      new Promise<string>((resolve, reject) => {
        child.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString();
          const match = /listening on (http:\S+)/.exec(stderr);
          if (match?.[1]) resolve(match[1]);
        });
        void exited.then(() => reject(new Error(`the HTTP member exited: ${stderr}`)));
      }),
      { what: () => `the HTTP member to listen: ${stderr}`, timeoutMs: 20_000 },
    );
    return {
      url,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await withDeadline(exited, { what: 'the HTTP member to exit' }).catch(() => {
          child.kill('SIGKILL');
          return exited;
        });
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
}

/** One page of tools/list as it came on the wire (the caching hints included). */
interface ToolsPage {
  names: string[];
  ttlMs: unknown;
  cacheScope: unknown;
}

/** A client of either era, connected to the gateway: what the tests ask of it. */
interface GatewayClient {
  toolsPage(): Promise<ToolsPage>;
  call(name: string, args?: Record<string, unknown>): Promise<string>;
  asked: string[];
  close(): Promise<void>;
}

/** A session-era client (the v1 SDK) of `mcp-chain serve <file>` on stdio. */
async function legacyClient(file: string): Promise<GatewayClient> {
  const asked: string[] = [];
  const client = new ClientV1({ name: 'mcp-chain-e2e-gateway-legacy', version: '1.0.0' }, { capabilities: CAPABILITIES });
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    asked.push(`sampling: ${request.params.messages.length} message(s)`);
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => ({ action: 'accept', content: elicited(String(request.params.message)) }));
  const transport = new StdioTransportV1({ command: process.execPath, args: [proxyMain, 'serve', file, '--log-level', 'warn'], env: { PATH: process.env.PATH ?? '', ...proxyEnv() }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await withDeadline(client.connect(transport), { what: () => `the legacy client to connect to the gateway: ${stderr}`, timeoutMs: 20_000 });
  return {
    toolsPage: async () => {
      // The raw result: the SDK's listTools() keeps only what its schema knows.
      const result = (await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema.passthrough())) as { tools: { name: string }[]; ttlMs?: unknown; cacheScope?: unknown };
      return { names: result.tools.map((tool) => tool.name), ttlMs: result.ttlMs, cacheScope: result.cacheScope };
    },
    call: async (name, args = {}) => textOf((await client.callTool({ name, arguments: args })) as { content?: unknown }),
    asked,
    close: () => client.close(),
  };
}

/** A 2026-07-28 client (the v2 SDK, pinned) of the gateway: spawned on stdio, or at the URL of its HTTP front. */
async function modernClient(front: { file: string } | { url: string }): Promise<GatewayClient> {
  const asked: string[] = [];
  const client = new ClientV2({ name: 'mcp-chain-e2e-gateway-modern', version: '1.0.0' }, PINNED);
  client.setRequestHandler('sampling/createMessage', (request) => {
    asked.push(`sampling: ${request.params.messages.length} message(s)`);
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  });
  client.setRequestHandler('elicitation/create', (request) => ({ action: 'accept', content: elicited(request.params.message) }));
  client.setRequestHandler('roots/list', () => ({ roots: [] }));
  const transport =
    'file' in front
      ? new StdioTransportV2({ command: process.execPath, args: [proxyMain, 'serve', front.file, '--log-level', 'warn'], env: { PATH: process.env.PATH ?? '', ...proxyEnv() }, stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(front.url));
  await withDeadline(client.connect(transport), { what: 'the modern client to connect to the gateway', timeoutMs: 20_000 });
  assert.equal(client.getProtocolEra(), 'modern');
  return {
    toolsPage: async () => {
      const result = (await client.listTools()) as { tools: { name: string }[]; ttlMs?: unknown; cacheScope?: unknown };
      return { names: result.tools.map((tool) => tool.name), ttlMs: result.ttlMs, cacheScope: result.cacheScope };
    },
    call: async (name, args = {}) => textOf(await client.callTool({ name, arguments: args })),
    asked,
    close: () => client.close(),
  };
}

/** Writes a Claude Desktop-shaped config naming `members`. */
function writeConfig(ws: Workspace, name: string, members: Record<string, StdioEntry | { type: 'http'; url: string }>): string {
  return ws.write(name, `${JSON.stringify({ mcpServers: members }, null, 2)}\n`);
}

/** The checks every client makes of the mixed gateway. */
function bothMembers(connect: () => Promise<GatewayClient>): void {
  let client: GatewayClient;

  before(async () => {
    client = await connect();
  });

  after(async () => {
    await client?.close();
  });

  test('both members\' tools are listed', async () => {
    const { names } = await client.toolsPage();
    for (const name of ['everything__echo', 'everything__trigger-sampling-request', 'modern__echo', 'modern__sample', 'modern__ask-twice']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
  });

  test('both members\' tools are callable', async () => {
    assert.equal(await client.call('everything__echo', { message: 'to the session era' }), 'Echo: to the session era');
    assert.equal(await client.call('modern__echo', { text: 'to 2026-07-28' }), 'echo: to 2026-07-28');
  });

  test('a sampling round trip on a tool of each member', async () => {
    client.asked.length = 0;
    assert.match(await client.call('everything__trigger-sampling-request', { prompt: 'Capital of France?' }), /Paris/);
    assert.equal(await client.call('modern__sample', { question: 'Capital of France?' }), 'Paris');
    assert.deepEqual(client.asked, ['sampling: 1 message(s)', 'sampling: 1 message(s)']);
  });

  test('an elicitation in two rounds on the 2026-07-28 member', async () => {
    assert.equal(await client.call('modern__ask-twice'), 'Ada likes teal');
  });
}

describe('mcp-chain serve: a session-era member (server-everything) and a 2026-07-28-only member (stdio) behind one endpoint', () => {
  let ws: Workspace;
  let file: string;

  before(() => {
    ws = workspace('mcp-chain-gateway-eras-');
    file = writeConfig(ws, 'mixed.json', {
      everything: referenceEntry('server-everything', ['stdio']),
      modern: { ...fixtureEntry('modern-only-upstream'), args: [...fixtureEntry('modern-only-upstream').args, '--ttl', '60000', '--scope', 'public'] },
    });
  });

  after(() => {
    ws?.remove();
  });

  describe('a session-era client (v1 SDK) on stdio', () => {
    bothMembers(() => legacyClient(file));
  });

  describe('a 2026-07-28 client (v2 SDK, pinned) on stdio', () => {
    bothMembers(() => modernClient({ file }));
  });

  describe('a 2026-07-28 client (v2 SDK, pinned) on the gateway\'s HTTP front', () => {
    let proxy: HttpProxy | undefined;
    bothMembers(async () => {
      proxy = await startHttpProxy(['serve', file, '--http', '127.0.0.1:0']);
      return modernClient({ url: proxy.url });
    });
    after(async () => {
      await proxy?.stop();
    });
  });

  test('the merged list carries no caching hints when a member (server-everything) gives none; a 2026-07-28 client gets the bridge\'s "stale at once, private"', async () => {
    const legacy = await legacyClient(file);
    try {
      const page = await legacy.toolsPage();
      assert.equal(page.ttlMs, undefined, 'no ttlMs on the merged list');
      assert.equal(page.cacheScope, undefined, 'no cacheScope on the merged list');
    } finally {
      await legacy.close();
    }
    const modern = await modernClient({ file });
    try {
      const page = await modern.toolsPage();
      assert.deepEqual({ ttlMs: page.ttlMs, cacheScope: page.cacheScope }, { ttlMs: 0, cacheScope: 'private' });
    } finally {
      await modern.close();
    }
  });
});

describe('mcp-chain serve: two 2026-07-28-only members (one on stdio, one on HTTP) with caching hints of their own', () => {
  let ws: Workspace;
  let file: string;
  let member: { url: string; stop(): Promise<void> } | undefined;

  before(async () => {
    ws = workspace('mcp-chain-gateway-eras-');
    member = await startModernHttpMember(['--ttl', '30000', '--scope', 'private', '--name', 'modern-over-http']);
    file = writeConfig(ws, 'modern.json', {
      modern: { ...fixtureEntry('modern-only-upstream'), args: [...fixtureEntry('modern-only-upstream').args, '--ttl', '60000', '--scope', 'public'] },
      remote: { type: 'http', url: member.url },
    });
  });

  after(async () => {
    try {
      await member?.stop();
    } finally {
      ws?.remove();
    }
  });

  test('the merged tools/list takes the smallest ttlMs and the most private scope, for clients of both eras', async () => {
    for (const connect of [() => legacyClient(file), () => modernClient({ file })]) {
      const client = await connect();
      try {
        const page = await client.toolsPage();
        assert.ok(page.names.includes('modern__echo') && page.names.includes('remote__echo'), page.names.join(', '));
        assert.deepEqual({ ttlMs: page.ttlMs, cacheScope: page.cacheScope }, { ttlMs: 30_000, cacheScope: 'private' });
        assert.equal(await client.call('remote__echo', { text: 'over HTTP' }), 'echo: over HTTP');
      } finally {
        await client.close();
      }
    }
  });
});

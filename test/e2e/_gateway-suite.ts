// The gateway's core checks, shared by test/e2e/gateway.test.ts (stdio) and gateway-http.test.ts
// (--http): `mcp-chain serve` on a Claude Desktop-shaped `mcpServers` file naming real servers
// from npm (server-everything, server-filesystem on a temporary directory, server-memory twice,
// once under a key long enough to force shortened names), a Streamable HTTP member on a loopback
// port, a fixture that never answers (for cancellation) and a server that cannot start.
// Everything the client gets through the gateway is compared with what each server answers to
// a client of its own.
import assert from 'node:assert/strict';
import { readFileSync, renameSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolRequest, CreateMessageRequest, ElicitRequest, Notification, Progress, Prompt, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { withTimeout } from '../helpers/client.js';
import {
  connectHttpDirect,
  descendantsRunning,
  directTarget,
  exposedName,
  fixtureEntry,
  gatewayTarget,
  keyOf,
  listAll,
  listPage,
  ProcessRecord,
  referenceEntry,
  rootOf,
  startHttpMember,
  workspace,
  type HttpMember,
  type ListItemOf,
  type ListKind,
  type StdioEntry,
  type Workspace,
} from '../helpers/gateway.js';
import { callTool, droppedProgress, mcpErrorWithCode, textOf } from '../helpers/mcp.js';
import { connectClient, ENV_MARKER, type Connection } from '../helpers/targets.js';

export const T = { timeout: 30_000 };
const EVENT_TIMEOUT = 20_000;

/** Long enough that `<key>__<tool>` passes 64 characters for every tool of server-memory. */
export const LONG_KEY = 'knowledge-graph-memory-server-with-a-rather-long-config-key';

/** The members in file order, as the merged lists show them. */
export const MEMBER_ORDER = ['everything', 'files', 'memory', 'remote', LONG_KEY, 'waiter'] as const;
type MemberKey = (typeof MEMBER_ORDER)[number];

export interface SuiteOptions {
  /** Runs the gateway with `--http 127.0.0.1:0` and connects with StreamableHTTPClientTransport. */
  readonly http: boolean;
  /** `naming.pageSize` in the file. */
  readonly pageSize: number;
}

/** What a suite's tests share: the gateway connection, and each member's own client. */
export interface Fleet {
  readonly ws: Workspace;
  readonly gateway: Connection;
  readonly direct: Readonly<Record<MemberKey, Client>>;
  readonly processes: ProcessRecord;
  readonly filesDir: string;
  readonly memoryCwd: string;
  readonly httpMember: HttpMember;
  /** With --http: where the gateway listens. */
  readonly url: string | undefined;
}

/** server-everything is quiet (no server→client request pending) once it has logged the roots it got. */
function rootsUpdated(n: Notification): boolean {
  const data: unknown = typeof n.params === 'object' && n.params !== null ? Reflect.get(n.params, 'data') : undefined;
  return typeof data === 'string' && data.startsWith('Roots updated: ');
}

/** Writes the Claude Desktop-shaped config file of a suite. */
function writeConfig(ws: Workspace, entries: Record<MemberKey | 'broken', StdioEntry | { url: string; type?: string }>, pageSize: number): string {
  return ws.write('claude_desktop_config.json', `${JSON.stringify({ mcpServers: entries, naming: { pageSize } }, null, 2)}\n`);
}

/**
 * Starts everything a suite needs (in `before`) and stops it (in `after`); `fleet()` gives it to the
 * tests. The gateway process is shared by the tests of the suite, which run in order.
 */
export function startFleet(options: SuiteOptions): () => Fleet {
  let fleet: Fleet | undefined;
  const closers: (() => Promise<void> | void)[] = [];

  before(async () => {
    const ws = workspace();
    closers.push(() => ws.remove());
    const filesDir = ws.mkdir('files');
    ws.write('files/notes.txt', 'first note\nsecond line\n');
    ws.write('files/sub/deep.txt', 'deep down\n');
    const memoryCwd = ws.mkdir('memory-cwd');
    const httpMember = await startHttpMember();
    closers.push(() => httpMember.stop());

    const entries = {
      everything: referenceEntry('server-everything', ['stdio'], { MCP_CHAIN_E2E_MARKER: ENV_MARKER }),
      files: referenceEntry('server-filesystem', [filesDir]),
      memory: { ...referenceEntry('server-memory', [], { MEMORY_FILE_PATH: ws.path('memory.jsonl') }), cwd: memoryCwd },
      remote: options.http ? { type: 'http', url: httpMember.url } : { url: httpMember.url },
      [LONG_KEY]: referenceEntry('server-memory', [], { MEMORY_FILE_PATH: ws.path('memory-long.jsonl') }),
      waiter: fixtureEntry('hang'),
      broken: { command: ws.path('no-such-server'), args: ['--stdio'] },
    } satisfies Record<MemberKey | 'broken', StdioEntry | { url: string; type?: string }>;
    const file = writeConfig(ws, entries, options.pageSize);
    const roots = [rootOf(filesDir, 'files')];

    // The gateway and every member's own client start together; whatever started is closed after.
    const started = await Promise.allSettled([
      connectClient(gatewayTarget(file, { http: options.http }), { roots, keepAllStderr: true, stderrLines: 10_000 }),
      connectClient(directTarget(entries.everything, 'everything'), { roots }),
      connectClient(directTarget(entries.files, 'files'), { roots }),
      connectClient(directTarget({ ...entries.memory, env: { MEMORY_FILE_PATH: ws.path('memory-direct.jsonl') } }, 'memory'), { roots }),
      connectClient(directTarget(entries.waiter, 'waiter'), { roots }),
    ]);
    for (const outcome of started) if (outcome.status === 'fulfilled') closers.push(async () => void (await outcome.value.close()));
    const remote = await connectHttpDirect(httpMember.url);
    closers.push(() => remote.close());
    const [gateway, everything, files, memory, waiter] = started.map((outcome) => {
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    }) as [Connection, Connection, Connection, Connection, Connection];
    // Quiet before anything is compared: server-everything has its roots (and its conditional
    // tools), server-filesystem has taken the client's roots as its allowed directories.
    await Promise.all([
      gateway.waitForNotification('notifications/message', rootsUpdated, EVENT_TIMEOUT),
      gateway.waitForStderr(/Updated allowed directories from MCP roots/, EVENT_TIMEOUT),
      everything.waitForNotification('notifications/message', rootsUpdated, EVENT_TIMEOUT),
      files.waitForStderr(/Updated allowed directories from MCP roots/, EVENT_TIMEOUT),
    ]);
    const url = options.http ? (await gateway.waitForStderr(/^(?=.*"msg":"listening").*"url":"([^"]+)"/))[1] : undefined;
    const processes = new ProcessRecord(gateway.pid);
    processes.record();
    fleet = {
      ws,
      gateway,
      direct: {
        everything: everything.client,
        files: files.client,
        memory: memory.client,
        remote: remote.client,
        [LONG_KEY]: memory.client,
        waiter: waiter.client,
      },
      processes,
      filesDir,
      memoryCwd,
      httpMember,
      url,
    };
  });

  after(async () => {
    for (const close of closers.reverse()) await close();
  });

  return () => {
    if (!fleet) throw new Error('the fleet did not start');
    return fleet;
  };
}

/** The merged list of `kind` the gateway should show, from each member's own list. */
async function expectedList<K extends ListKind>(f: Fleet, kind: K): Promise<ListItemOf[K][]> {
  const expected: ListItemOf[K][] = [];
  const uris = new Set<string>();
  for (const key of MEMBER_ORDER) {
    const client = f.direct[key];
    const capabilities = client.getServerCapabilities() ?? {};
    const capability: 'tools' | 'prompts' | 'resources' = kind === 'resourceTemplates' ? 'resources' : kind;
    if (capabilities[capability] === undefined) continue;
    for (const item of (await listAll(client, kind)).items) {
      if (kind === 'tools' || kind === 'prompts') {
        expected.push({ ...item, name: exposedName(key, (item as Tool | Prompt).name) });
      } else if (kind === 'resources') {
        // A URI two servers list belongs to the first in file order.
        const uri = (item as Resource).uri;
        if (uris.has(uri)) continue;
        uris.add(uri);
        expected.push(item);
      } else {
        expected.push(item);
      }
    }
  }
  return expected;
}

/**
 * Compares a merged list with the expected one. A name the gateway had to shorten (past 64
 * characters) is checked for its form and taken as given; everything else must be equal.
 */
function assertSameList<K extends ListKind>(kind: K, actual: readonly ListItemOf[K][], expected: readonly ListItemOf[K][]): void {
  if (kind === 'tools' || kind === 'prompts') {
    const tooLong = actual.map((item) => keyOf(kind, item)).filter((name) => name.length > 64);
    assert.deepEqual(tooLong, [], `${kind}: every name fits in 64 characters`);
  }
  const shortened = expected.map((item, i) => {
    if (kind !== 'tools' && kind !== 'prompts') return item;
    const name = (item as Tool | Prompt).name;
    const got = actual[i] as Tool | Prompt | undefined;
    if (name.length <= 64 || got === undefined) return item;
    assert.match(got.name, /^[A-Za-z0-9_-]{1,64}$/, `${name} is shortened to [A-Za-z0-9_-], 64 at most`);
    return { ...item, name: got.name };
  });
  assert.deepEqual(actual, shortened);
  const keys = actual.map((item) => keyOf(kind, item));
  assert.equal(new Set(keys).size, keys.length, `${kind}: no name twice`);
}

/** The exposed name of a tool of the long-key member, found by its description (the name is shortened). */
async function longKeyTool(f: Fleet, original: string): Promise<string> {
  const own = (await f.direct[LONG_KEY].listTools()).tools.find((t) => t.name === original);
  assert.ok(own, `server-memory has ${original}`);
  const merged = (await listAll(f.gateway.client, 'tools')).items;
  const index = merged.findIndex((t) => t.description === own.description && !t.name.startsWith('memory__'));
  const found = merged[index];
  assert.ok(found, `the gateway lists the long-key server's ${original}`);
  return found.name;
}

/** Calls a tool through the gateway and the same tool on its server directly; both results. */
async function both(f: Fleet, key: MemberKey, name: string, args: CallToolRequest['params']['arguments'] = {}): Promise<[unknown, unknown]> {
  const through = await callTool(f.gateway.client, { name: exposedName(key, name), arguments: args });
  const own = await callTool(f.direct[key], { name, arguments: args });
  return [through, own];
}

/** A timestamp server-everything puts in its dynamic resources, so two reads can be compared. */
function withoutTimestamps(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(/created at [^"\\]+/g, 'created at <time>')) as unknown;
}

/**
 * That server `name` was said to be down once in each session that had it (the gateway's whole
 * stderr, read once it has exited); returns how many sessions said so.
 */
export function assertDownOncePerSession(stderr: string, name: string): number {
  const perSession = new Map<string, number>();
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: unknown; session?: unknown };
    if (typeof entry.msg !== 'string' || !entry.msg.startsWith(`server "${name}" is down`)) continue;
    const session = String(entry.session);
    perSession.set(session, (perSession.get(session) ?? 0) + 1);
  }
  for (const [session, count] of perSession) assert.equal(count, 1, `session ${session} said server "${name}" is down ${count} times`);
  return perSession.size;
}

/** The core checks, in one describe; `fleet` is the suite's started fleet. */
export function coreChecks(options: SuiteOptions, fleet: () => Fleet): void {
  describe('initialize', () => {
    it('serverInfo is the gateway’s own; capabilities are those some member has; instructions come under each server’s name', T, async () => {
      const f = fleet();
      const info = f.gateway.client.getServerVersion();
      assert.equal(info?.name, 'mcp-chain');
      assert.equal(info?.version, (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
      const caps = f.gateway.client.getServerCapabilities();
      assert.deepEqual(caps?.tools, { listChanged: true });
      assert.deepEqual(caps?.prompts, { listChanged: true });
      assert.equal(caps?.resources?.subscribe, true);
      assert.equal(caps?.resources?.listChanged, true);
      assert.deepEqual(caps?.logging, {});
      assert.deepEqual(caps?.completions, {});
      const instructions = f.gateway.client.getInstructions() ?? '';
      const everything = f.direct.everything.getInstructions() ?? '';
      assert.ok(everything.length > 0);
      assert.ok(instructions.includes(`## everything\n\n${everything}`), instructions.slice(0, 300));
      const remote = f.direct.remote.getInstructions() ?? '';
      assert.ok(instructions.includes(`## remote\n\n${remote}`));
    });

    it('the member that cannot start is logged once, by name, with the cause; the gateway serves the others', T, async () => {
      const f = fleet();
      const [line] = await f.gateway.waitForStderr(/server \\?"broken\\?" is down: [^"]*/);
      assert.match(line, /ENOENT|no-such-server|not found/i);
      assert.ok(!line.includes('MCP_CHAIN_E2E_MARKER') && !line.includes(ENV_MARKER), 'no environment value in the log');
      assert.deepEqual(await f.gateway.client.ping(), {});
    });
  });

  describe('merged lists, walked to the end', () => {
    for (const kind of ['tools', 'prompts', 'resources', 'resourceTemplates'] as const) {
      it(`${kind}: pages of at most ${options.pageSize}, every member's whole list in file order, as each server lists it`, T, async () => {
        const f = fleet();
        const { items, pages } = await listAll(f.gateway.client, kind);
        const expected = await expectedList(f, kind);
        for (const page of pages.slice(0, -1)) assert.equal(page.items.length, options.pageSize, 'full pages but the last');
        assert.ok((pages.at(-1)?.items.length ?? 0) <= options.pageSize);
        assert.equal(pages.length, Math.max(1, Math.ceil(expected.length / options.pageSize)), 'as many pages as the items need');
        assertSameList(kind, items, expected);
      });
    }

    it('tools of every member are there, but none of the server that cannot start', T, async () => {
      const { items } = await listAll(fleet().gateway.client, 'tools');
      const prefixes = new Set(items.map((t) => (t.name.includes('__') ? t.name.slice(0, t.name.indexOf('__')) : t.name)));
      for (const key of ['everything', 'files', 'memory', 'remote', 'waiter']) assert.ok(prefixes.has(key), `${key}'s tools are listed`);
      assert.ok(!items.some((t) => t.name.startsWith('broken__')));
    });

    it('a URI two servers list (memory://knowledge-graph) is listed once, and read from the first of them in file order', T, async () => {
      const f = fleet();
      const { items } = await listAll(f.gateway.client, 'resources');
      assert.equal(items.filter((r) => r.uri === 'memory://knowledge-graph').length, 1);
      await f.gateway.waitForStderr(/resource memory:\/\/knowledge-graph of server \\?"knowledge-graph-memory-server/);
    });
  });

  describe('routed to the member, answers as its own', () => {
    it('tools/call: each member answers under its own name', T, async () => {
      const f = fleet();
      const checks: [MemberKey, string, CallToolRequest['params']['arguments']][] = [
        ['everything', 'echo', { message: 'through the gateway ✓' }],
        ['everything', 'get-sum', { a: 2, b: 40 }],
        ['everything', 'get-structured-content', { location: 'Chicago' }],
        ['files', 'read_text_file', { path: `${f.filesDir}/notes.txt` }],
        ['files', 'list_directory', { path: f.filesDir }],
        ['files', 'list_allowed_directories', {}],
        ['memory', 'create_entities', { entities: [{ name: 'gateway', entityType: 'test', observations: ['routed'] }] }],
        ['memory', 'read_graph', {}],
        ['remote', 'test_simple_text', {}],
        ['remote', 'test_multiple_content_types', {}],
        ['waiter', 'echo', { text: 'still here' }],
      ];
      for (const [key, name, args] of checks) {
        const [through, own] = await both(f, key, name, args);
        assert.deepEqual(through, own, `${key} ${name}`);
      }
      assert.equal(textOf(await callTool(f.gateway.client, { name: 'files__read_text_file', arguments: { path: `${f.filesDir}/sub/deep.txt` } })), 'deep down\n');
    });

    it('concurrent calls to several members each get their own answer', T, async () => {
      const f = fleet();
      const calls = Array.from({ length: 24 }, async (_, i) => {
        switch (i % 3) {
          case 0:
            return [textOf(await callTool(f.gateway.client, { name: 'everything__get-sum', arguments: { a: i, b: 1000 } })), `The sum of ${i} and 1000 is ${i + 1000}.`];
          case 1:
            return [textOf(await callTool(f.gateway.client, { name: 'remote__json_schema_2020_12_tool', arguments: { name: `n${i}` } })), `Received arguments: {"name":"n${i}"}`];
          default:
            return [textOf(await callTool(f.gateway.client, { name: 'waiter__echo', arguments: { text: `t${i}` } })), `t${i}`];
        }
      });
      for (const [got, want] of await Promise.all(calls)) assert.equal(got, want);
    });

    it('a tool error stays a result (isError), and an unknown name is -32602 naming it', T, async () => {
      const f = fleet();
      const [through, own] = await both(f, 'remote', 'test_error_handling');
      assert.deepEqual(through, own);
      assert.equal((through as { isError?: boolean }).isError, true);
      await assert.rejects(
        f.gateway.client.callTool({ name: 'nobody__echo', arguments: {} }),
        mcpErrorWithCode(ErrorCode.InvalidParams, 'nobody__echo'),
      );
    });

    it('prompts/get', T, async () => {
      const f = fleet();
      const cases: [MemberKey, string, Record<string, string>][] = [
        ['everything', 'simple-prompt', {}],
        ['everything', 'args-prompt', { city: 'Springfield', state: 'Oregon' }],
        ['everything', 'resource-prompt', { resourceType: 'Text', resourceId: '2' }],
        ['remote', 'test_prompt_with_arguments', { arg1: 'one', arg2: 'two' }],
        ['remote', 'test_prompt_with_image', {}],
      ];
      for (const [key, name, args] of cases) {
        const through = await f.gateway.client.getPrompt({ name: exposedName(key, name), arguments: args });
        const own = await f.direct[key].getPrompt({ name, arguments: args });
        assert.deepEqual(withoutTimestamps(through), withoutTimestamps(own), `${key} ${name}`);
      }
    });

    it('completion/complete: prompt arguments (by the exposed prompt name) and resource template variables', T, async () => {
      const f = fleet();
      const cases: [MemberKey, Parameters<Client['complete']>[0], Parameters<Client['complete']>[0]][] = [
        [
          'everything',
          { ref: { type: 'ref/prompt', name: 'everything__completable-prompt' }, argument: { name: 'department', value: 'E' } },
          { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } },
        ],
        [
          'everything',
          {
            ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
            argument: { name: 'name', value: '' },
            context: { arguments: { department: 'Sales' } },
          },
          { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } },
        ],
        [
          'everything',
          { ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '7' } },
          { ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, argument: { name: 'resourceId', value: '7' } },
        ],
        [
          'remote',
          { ref: { type: 'ref/prompt', name: 'remote__test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } },
          { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } },
        ],
        [
          'remote',
          { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '1' } },
          { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '1' } },
        ],
      ];
      const values: string[][] = [];
      for (const [key, through, own] of cases) {
        const got = await f.gateway.client.complete(through);
        values.push(got.completion.values);
        assert.deepEqual(got, await f.direct[key].complete(own), JSON.stringify(through));
      }
      assert.deepEqual(values, [['Engineering'], ['David', 'Eve', 'Frank'], ['7'], ['test', 'test-value-1', 'testing'], ['1', '123']]);
    });

    it('resources/read: listed resources and template URIs reach the server that has them', T, async () => {
      const f = fleet();
      const cases: [MemberKey, string][] = [
        ['everything', 'demo://resource/static/document/features.md'],
        ['everything', 'demo://resource/dynamic/text/3'],
        ['everything', 'demo://resource/dynamic/blob/4'],
        ['remote', 'test://static-text'],
        ['remote', 'test://static-binary'],
        ['remote', 'test://template/42/data'],
        ['memory', 'memory://knowledge-graph'],
      ];
      for (const [key, uri] of cases) {
        const through = await f.gateway.client.readResource({ uri });
        const own = await f.direct[key].readResource({ uri });
        if (key === 'memory') {
          // The gateway's memory server has the entity created above; its own client's has one too.
          assert.deepEqual(through, own);
          assert.match(JSON.stringify(through), /gateway/);
        } else {
          assert.deepEqual(withoutTimestamps(through), withoutTimestamps(own), uri);
        }
      }
      await assert.rejects(
        f.gateway.client.readResource({ uri: 'nowhere://at/all' }),
        (e: unknown) => e instanceof McpError && (e.code === -32002 || e.code === ErrorCode.InvalidParams),
      );
    });
  });

  describe('subscriptions and log levels', () => {
    it('resources/subscribe goes to the member with the URI, and its resources/updated reaches the client', T, async () => {
      const f = fleet();
      const uri = 'test://watched-resource';
      const mark = f.gateway.notifications.length;
      // The HTTP member announces an update of the URI ~50 ms after it is subscribed to.
      assert.deepEqual(await f.gateway.client.subscribeResource({ uri }), {});
      const updated = await f.gateway.waitForNotification('notifications/resources/updated', (n) => f.gateway.notifications.indexOf(n) >= mark);
      assert.deepEqual(updated.params, { uri });
      assert.deepEqual(await f.gateway.client.unsubscribeResource({ uri }), {});
      const read = await f.gateway.client.readResource({ uri });
      assert.deepEqual(read.contents, [{ uri, mimeType: 'text/plain', text: 'Watched resource, revision 1' }]);
    });

    it('logging/setLevel reaches every member with logging: the HTTP member’s info logs stop at warning and flow again at debug', T, async () => {
      const f = fleet();
      const logsOfCall = async (): Promise<unknown[]> => {
        const mark = f.gateway.notifications.length;
        await callTool(f.gateway.client, { name: 'remote__test_tool_with_logging', arguments: {} });
        return f.gateway.notifications
          .slice(mark)
          .filter((n) => n.method === 'notifications/message' && Reflect.get(n.params ?? {}, 'logger') === 'conformance')
          .map((n) => Reflect.get(n.params ?? {}, 'data'));
      };
      assert.deepEqual(await f.gateway.client.setLoggingLevel('warning'), {});
      assert.deepEqual(await logsOfCall(), []);
      assert.deepEqual(await f.gateway.client.setLoggingLevel('debug'), {});
      assert.deepEqual(await logsOfCall(), ['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    });
  });

  describe('roots', () => {
    it('roots/list_changed from the client reaches every member: they ask for the roots again, through the gateway', T, async () => {
      const f = fleet();
      const second = f.ws.mkdir('more-files');
      const mark = f.gateway.notifications.length;
      const refetched = f.gateway.waitForNotification('notifications/message', (n) => f.gateway.notifications.indexOf(n) >= mark && rootsUpdated(n));
      await f.gateway.setRoots([rootOf(f.filesDir, 'files'), rootOf(second, 'more')]);
      const n = await refetched;
      assert.equal(Reflect.get(n.params ?? {}, 'data'), 'Roots updated: 2 root(s) received from client');
      await f.gateway.waitForStderr(/Updated allowed directories from MCP roots: 2 valid directories/);
      const allowed = textOf(await callTool(f.gateway.client, { name: 'files__list_allowed_directories', arguments: {} }));
      assert.ok(allowed.includes(second), allowed);
    });
  });

  describe('server → client requests from members', () => {
    it('sampling/createMessage from server-everything and from the HTTP member, answered by the client', T, async () => {
      const f = fleet();
      const seen: CreateMessageRequest['params'][] = [];
      f.gateway.client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
        seen.push(req.params);
        return { model: 'e2e-model', role: 'assistant', stopReason: 'endTurn', content: { type: 'text', text: 'sampled through the gateway' } };
      });
      try {
        const result = await callTool(f.gateway.client, { name: 'everything__trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 21 } });
        assert.equal(seen.length, 1);
        assert.deepEqual(seen[0]?.messages, [{ role: 'user', content: { type: 'text', text: 'Resource trigger-sampling-request context: Say hi' } }]);
        assert.equal(seen[0]?.maxTokens, 21);
        const text = textOf(result);
        assert.ok(text.startsWith('LLM sampling result: \n'), text);
        assert.deepEqual(JSON.parse(text.slice('LLM sampling result: \n'.length)), {
          model: 'e2e-model',
          role: 'assistant',
          stopReason: 'endTurn',
          content: { type: 'text', text: 'sampled through the gateway' },
        });
        const remote = await callTool(f.gateway.client, { name: 'remote__test_sampling', arguments: { prompt: 'from afar' } });
        assert.equal(textOf(remote), 'LLM response: sampled through the gateway');
        assert.deepEqual(seen[1]?.messages, [{ role: 'user', content: { type: 'text', text: 'from afar' } }]);
      } finally {
        f.gateway.client.removeRequestHandler('sampling/createMessage');
      }
    });

    it('elicitation/create accepted by the client: server-everything and the HTTP member get its content', T, async () => {
      const f = fleet();
      const seen: ElicitRequest['params'][] = [];
      f.gateway.client.setRequestHandler(ElicitRequestSchema, async (req) => {
        seen.push(req.params);
        return { action: 'accept', content: { name: 'Ada', username: 'ada', email: 'ada@example.com', check: true, integer: 7 } };
      });
      try {
        const result = await callTool(f.gateway.client, { name: 'everything__trigger-elicitation-request', arguments: {} });
        assert.equal(seen[0]?.message, 'Please provide inputs for the following fields:');
        assert.match(textOf(result), /^✅ User provided the requested information!\nUser inputs:\n- Name: Ada\n/);
        const remote = await callTool(f.gateway.client, { name: 'remote__test_elicitation', arguments: { message: 'Who are you?' } });
        assert.equal(seen[1]?.message, 'Who are you?');
        assert.match(textOf(remote), /^User response: action=accept, content=\{.*"username":"ada"/);
      } finally {
        f.gateway.client.removeRequestHandler('elicitation/create');
      }
    });
  });

  describe('progress and cancellation', () => {
    it('progress of a long-running tool reaches the caller, every step in order', T, async () => {
      const f = fleet();
      const progress: Progress[] = [];
      const errorMark = f.gateway.errors.length;
      const result = await callTool(
        f.gateway.client,
        { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
        { onprogress: (p) => progress.push(p) },
      );
      assert.equal(textOf(result), 'Long running operation completed. Duration: 0.3 seconds, Steps: 3.');
      for (const p of progress) assert.equal(p.total, 3);
      // The 1.x SDK client may drop the last one (read with the response): see droppedProgress.
      assert.deepEqual([...progress.map((p) => p.progress), ...droppedProgress(f.gateway.errors.slice(errorMark))], [1, 2, 3]);

      const remote: Progress[] = [];
      const mark = f.gateway.errors.length;
      await callTool(f.gateway.client, { name: 'remote__test_tool_with_progress', arguments: {} }, { onprogress: (p) => remote.push(p) });
      assert.deepEqual([...remote.map((p) => p.progress), ...droppedProgress(f.gateway.errors.slice(mark))], [0, 50, 100]);
    });

    it('a call the client aborts: the member gets notifications/cancelled for it and stops; the session goes on', T, async () => {
      const f = fleet();
      const controller = new AbortController();
      let firstProgress!: () => void;
      const gotFirst = new Promise<void>((resolve) => (firstProgress = resolve));
      const call = callTool(f.gateway.client, { name: 'waiter__slow-progress', arguments: {} }, { signal: controller.signal, onprogress: () => firstProgress() });
      call.catch(() => undefined);
      await withTimeout(gotFirst, EVENT_TIMEOUT, () => 'the first progress of slow-progress');
      // The fixture logs each request it receives on stderr, which the gateway relays on its own.
      const [, id] = await f.gateway.waitForStderr(/request tools\/call (\S+) slow-progress/);
      controller.abort(new Error('e2e-cancel'));
      await assert.rejects(call, /e2e-cancel/);
      await f.gateway.waitForStderr(new RegExp(`"msg":"cancelled ${id}"`));
      await f.gateway.waitForStderr(new RegExp(`progress stopped ${id}`));
      assert.equal(textOf(await callTool(f.gateway.client, { name: 'waiter__echo', arguments: { text: 'after' } })), 'after');
    });
  });

  describe('names', () => {
    it('a server key long enough to force shortening: every name is shortened, distinct, and callable', T, async () => {
      const f = fleet();
      const own = (await f.direct[LONG_KEY].listTools()).tools;
      const merged = (await listAll(f.gateway.client, 'tools')).items;
      const longOnes = merged.filter((t) => own.some((o) => o.description === t.description) && !t.name.startsWith('memory__'));
      assert.equal(longOnes.length, own.length);
      for (const tool of longOnes) {
        assert.ok(tool.name.length <= 64, tool.name);
        assert.match(tool.name, /^[A-Za-z0-9_-]+$/);
      }
      const readGraph = await longKeyTool(f, 'read_graph');
      const create = await longKeyTool(f, 'create_entities');
      // Its own store: empty at first, then what was created through the shortened name.
      assert.deepEqual(JSON.parse(textOf(await callTool(f.gateway.client, { name: readGraph, arguments: {} }))), { entities: [], relations: [] });
      await callTool(f.gateway.client, { name: create, arguments: { entities: [{ name: 'long', entityType: 'key', observations: [] }] } });
      const graph = JSON.parse(textOf(await callTool(f.gateway.client, { name: readGraph, arguments: {} }))) as { entities: { name: string }[] };
      assert.deepEqual(graph.entities.map((e) => e.name), ['long']);
      // ... and the other memory server kept its own.
      const other = JSON.parse(textOf(await callTool(f.gateway.client, { name: 'memory__read_graph', arguments: {} }))) as { entities: { name: string }[] };
      assert.deepEqual(other.entities.map((e) => e.name), ['gateway']);
    });

    // It never listed a tool, but the prefix names it.
    it('a call to the server that cannot start gets an error naming it', T, async () => {
      const f = fleet();
      await assert.rejects(f.gateway.client.callTool({ name: 'broken__anything', arguments: {} }), (e: unknown) => {
        assert.ok(e instanceof McpError, String(e));
        assert.match(e.message, /Server "broken"/);
        return true;
      });
    });
  });

  describe('cursors', () => {
    it('a made-up cursor, a tampered one and one of another list are -32602', T, async () => {
      const f = fleet();
      const first = await listPage(f.gateway.client, 'tools');
      assert.ok(first.nextCursor, 'several pages');
      const cursor = first.nextCursor;
      await assert.rejects(f.gateway.client.listTools({ cursor: 'not-a-cursor' }), mcpErrorWithCode(ErrorCode.InvalidParams));
      const tampered = `${cursor.slice(0, 4)}${cursor[4] === 'A' ? 'B' : 'A'}${cursor.slice(5)}`;
      await assert.rejects(f.gateway.client.listTools({ cursor: tampered }), mcpErrorWithCode(ErrorCode.InvalidParams));
      await assert.rejects(f.gateway.client.listResources({ cursor }), mcpErrorWithCode(ErrorCode.InvalidParams));
      await assert.rejects(f.gateway.client.listPrompts({ cursor: '' }), mcpErrorWithCode(ErrorCode.InvalidParams));
      // The real one still works.
      assert.ok((await listPage(f.gateway.client, 'tools', cursor)).items.length > 0);
    });

    it('a cursor of a list that changed since is stale: -32602', T, async () => {
      const f = fleet();
      const first = await listPage(f.gateway.client, 'resources');
      assert.ok(first.nextCursor, 'several pages of resources');
      const mark = f.gateway.notifications.length;
      const changed = f.gateway.waitForNotification('notifications/resources/list_changed', (n) => f.gateway.notifications.indexOf(n) >= mark);
      await callTool(f.gateway.client, {
        name: 'everything__gzip-file-as-resource',
        arguments: { name: 'stale.txt.gz', data: `data:text/plain;base64,${Buffer.from('stale').toString('base64')}` },
      });
      await changed;
      await assert.rejects(f.gateway.client.listResources({ cursor: first.nextCursor }), mcpErrorWithCode(ErrorCode.InvalidParams));
      const { items } = await listAll(f.gateway.client, 'resources');
      assert.ok(items.some((r) => r.uri === 'demo://resource/session/stale.txt.gz'), 'the new resource is listed');
    });
  });

  describe('a member killed while the others serve', () => {
    it('drops out (list_changed), calls to it name it, the others serve; it comes back (list_changed) with its tools and its data', T, async () => {
      const f = fleet();
      const tools = await listPage(f.gateway.client, 'tools');
      assert.ok(tools.nextCursor);
      const [pid, ...more] = descendantsRunning(f.gateway.pid, 'server-memory', f.memoryCwd);
      assert.ok(pid !== undefined && more.length === 0, `one server-memory runs in ${f.memoryCwd}`);
      // Held down until we let it: its working directory is gone, so it cannot be started again.
      renameSync(f.memoryCwd, `${f.memoryCwd}-away`);
      const mark = f.gateway.notifications.length;
      const changes = (): Notification[] => f.gateway.notifications.slice(mark).filter((n) => n.method === 'notifications/tools/list_changed');
      process.kill(pid, 'SIGKILL');
      await f.gateway.waitForNotification('notifications/tools/list_changed', (n) => f.gateway.notifications.indexOf(n) >= mark);

      const during = (await listAll(f.gateway.client, 'tools')).items.map((t) => t.name);
      assert.ok(!during.some((n) => n.startsWith('memory__')), 'its tools are gone');
      assert.ok(during.includes('everything__echo') && during.includes('files__read_text_file'));
      await assert.rejects(f.gateway.client.callTool({ name: 'memory__read_graph', arguments: {} }), (e: unknown) => {
        assert.ok(e instanceof McpError);
        assert.match(e.message, /Server "memory" is unavailable/);
        return true;
      });
      await assert.rejects(f.gateway.client.listTools({ cursor: tools.nextCursor }), mcpErrorWithCode(ErrorCode.InvalidParams), 'the old cursor is stale');
      assert.equal(textOf(await callTool(f.gateway.client, { name: 'everything__echo', arguments: { message: 'meanwhile' } })), 'Echo: meanwhile');

      const count = changes().length;
      renameSync(`${f.memoryCwd}-away`, f.memoryCwd);
      await f.gateway.waitForNotification('notifications/tools/list_changed', () => changes().length > count, EVENT_TIMEOUT);
      const back = (await listAll(f.gateway.client, 'tools')).items.map((t) => t.name);
      assert.ok(back.includes('memory__read_graph'), 'its tools are back');
      const graph = JSON.parse(textOf(await callTool(f.gateway.client, { name: 'memory__read_graph', arguments: {} }))) as { entities: { name: string }[] };
      assert.deepEqual(graph.entities.map((e) => e.name), ['gateway'], 'a new process, the same store');
      const [again] = descendantsRunning(f.gateway.pid, 'server-memory', f.memoryCwd);
      assert.ok(again !== undefined && again !== pid, 'a new process');
      f.processes.record();
    });
  });
}

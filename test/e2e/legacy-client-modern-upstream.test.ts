// Session-era clients (the v1 SDK, and the v2 SDK in its default, legacy mode) through mcp-chain,
// on its stdio and its Streamable HTTP front, in front of a server of protocol revision 2026-07-28
// ONLY (test/fixtures/servers/modern-only-upstream.ts: the v2 server with its session era turned
// off), on stdio and on HTTP: the chain bridges the eras (issue 15). The server refuses
// `initialize` (stdio: -32022 naming 2026-07-28; HTTP: the chain asks server/discover first) and
// asks for input with `input_required` results, which the chain turns into real server→client
// requests to the client, round after round, inside the one call the client made; the client's
// `logging/setLevel` becomes the per-request log level, `resources/subscribe` and the server's
// list changes travel on a `subscriptions/listen` the chain keeps open, `ping` is answered by the
// chain, and a cancellation reaches the server.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { withDeadline } from '../../src/testing/with-deadline.js';
import { startHttpProxy, type HttpProxy } from '../helpers/http-proxy.js';
import { fixtureCommand, proxyEnv, proxyMain } from '../helpers/targets.js';

const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };
const ROOTS = [{ uri: 'file:///work/one', name: 'one' }, { uri: 'file:///work/two', name: 'two' }];
/** How late the HTTP server acknowledges a subscriptions/listen (see startModernHttpServer). */
const LISTEN_DELAY_MS = 200;
const MODERN_UPSTREAM_LINE = /"msg":"the upstream speaks protocol version 2026-07-28"/g;

type ClientKind = 'v1 SDK client' | 'v2 SDK client (legacy mode)';
type Side = 'stdio' | 'HTTP';

/** What a session-era client saw: what it was asked, and the notifications it got. */
interface Seen {
  asked: string[];
  logs: { level: string; data: unknown }[];
  listChanged: number;
  updated: string[];
}

/** A session-era client of either SDK, connected through the chain: the calls the tests make. */
interface LegacyClient {
  readonly seen: Seen;
  protocolVersion(): string | undefined;
  serverName(): string | undefined;
  toolNames(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>, options?: { onprogress?: (progress: { progress: number; total?: number | undefined }) => void; signal?: AbortSignal }): Promise<string>;
  setLoggingLevel(level: 'debug' | 'warning'): Promise<void>;
  subscribe(uri: string): Promise<void>;
  ping(): Promise<unknown>;
  /** Resolves once `check` holds for what was seen (checked now and on every notification); bounded. */
  until(check: (seen: Seen) => boolean, what: string): Promise<void>;
  /** The chain's stderr so far. */
  chainStderr(): string;
  close(): Promise<void>;
}

/** The text of a tool result's content, joined. */
function textOf(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** The answer to an elicitation, by what it asks. */
function elicited(message: string): Record<string, string> {
  return message.toLowerCase().includes('colour') ? { colour: 'teal' } : { name: 'Ada' };
}

/** What was seen, and the waits on it. */
class Watch {
  readonly seen: Seen = { asked: [], logs: [], listChanged: 0, updated: [] };
  readonly #waiters = new Set<() => void>();

  changed(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  until(check: (seen: Seen) => boolean, what: string): Promise<void> {
    let waiter: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      waiter = () => {
        if (!check(this.seen)) return;
        this.#waiters.delete(waiter);
        resolve();
      };
      this.#waiters.add(waiter);
      waiter();
    });
    return withDeadline(done, { what: () => `${what}; seen: ${JSON.stringify(this.seen)}` }).finally(() => this.#waiters.delete(waiter));
  }
}

/**
 * The modern-only fixture on HTTP (a free loopback port), for `--url`. Its listens are acknowledged
 * late (LISTEN_DELAY_MS), as a busy server's may be: what it announces goes only to the listens
 * already acknowledged, so a subscription the chain says is made must be made by then.
 */
async function startModernHttpServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const { command, args } = fixtureCommand('modern-only-upstream');
  const child: ChildProcess = spawn(command, [...args, '--port', '0', '--listen-delay-ms', String(LISTEN_DELAY_MS)], { stdio: ['ignore', 'ignore', 'pipe'] });
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
        void exited.then(() => reject(new Error(`the modern-only server exited: ${stderr}`)));
      }),
      { what: () => `the modern-only server to listen: ${stderr}`, timeoutMs: 20_000 },
    );
    return {
      url,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await withDeadline(exited, { what: 'the modern-only server to exit' }).catch(() => {
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

/** A session-era v1 SDK client, connected through the chain (spawned on stdio, or at `url`). */
async function connectV1(front: { stdio: string[] } | { url: string; stderr: () => string }): Promise<LegacyClient> {
  const watch = new Watch();
  const client = new ClientV1({ name: 'mcp-chain-e2e-legacy-v1', version: '1.0.0' }, { capabilities: CAPABILITIES });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const message = String(request.params.message);
    watch.seen.asked.push(`elicitation: ${message}`);
    watch.changed();
    return { action: 'accept', content: elicited(message) };
  });
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    watch.seen.asked.push(`sampling: ${request.params.messages.length} message(s)`);
    watch.changed();
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  });
  client.setRequestHandler(ListRootsRequestSchema, () => {
    watch.seen.asked.push('roots');
    watch.changed();
    return { roots: ROOTS };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    watch.seen.logs.push({ level: notification.params.level, data: notification.params.data });
    watch.changed();
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    watch.seen.listChanged += 1;
    watch.changed();
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    watch.seen.updated.push(notification.params.uri);
    watch.changed();
  });
  let stderr: () => string;
  if ('stdio' in front) {
    const transport = new StdioTransportV1({ command: process.execPath, args: [proxyMain, '--log-level', 'info', ...front.stdio], env: { PATH: process.env.PATH ?? '', ...proxyEnv() }, stderr: 'pipe' });
    let text = '';
    transport.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stderr = () => text;
    await withDeadline(client.connect(transport), { what: () => `the v1 client to connect: ${text}`, timeoutMs: 20_000 });
  } else {
    stderr = front.stderr;
    await withDeadline(client.connect(new HttpTransportV1(new URL(front.url))), { what: `the v1 client to connect to ${front.url}`, timeoutMs: 20_000 });
  }
  return {
    seen: watch.seen,
    protocolVersion: () => (client.transport as { protocolVersion?: string } | undefined)?.protocolVersion,
    serverName: () => client.getServerVersion()?.name,
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name, args = {}, options = {}) => textOf((await client.callTool({ name, arguments: args }, undefined, options)) as { content?: unknown }),
    setLoggingLevel: async (level) => void (await client.setLoggingLevel(level)),
    subscribe: async (uri) => void (await client.subscribeResource({ uri })),
    ping: () => client.ping(),
    until: (check, what) => watch.until(check, what),
    chainStderr: () => stderr(),
    close: () => client.close(),
  };
}

/** A v2 SDK client in its default mode (the session era: `initialize`), connected through the chain. */
async function connectV2(front: { stdio: string[] } | { url: string; stderr: () => string }): Promise<LegacyClient> {
  const watch = new Watch();
  const client = new ClientV2({ name: 'mcp-chain-e2e-legacy-v2', version: '1.0.0' }, { capabilities: CAPABILITIES });
  client.setRequestHandler('elicitation/create', (request) => {
    const message = request.params.message;
    watch.seen.asked.push(`elicitation: ${message}`);
    watch.changed();
    return { action: 'accept', content: elicited(message) };
  });
  client.setRequestHandler('sampling/createMessage', (request) => {
    watch.seen.asked.push(`sampling: ${request.params.messages.length} message(s)`);
    watch.changed();
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  });
  client.setRequestHandler('roots/list', () => {
    watch.seen.asked.push('roots');
    watch.changed();
    return { roots: ROOTS };
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    watch.seen.logs.push({ level: notification.params.level, data: notification.params.data });
    watch.changed();
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    watch.seen.listChanged += 1;
    watch.changed();
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    watch.seen.updated.push(notification.params.uri);
    watch.changed();
  });
  let stderr: () => string;
  if ('stdio' in front) {
    const transport = new StdioTransportV2({ command: process.execPath, args: [proxyMain, '--log-level', 'info', ...front.stdio], env: { PATH: process.env.PATH ?? '', ...proxyEnv() }, stderr: 'pipe' });
    let text = '';
    transport.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stderr = () => text;
    await withDeadline(client.connect(transport), { what: () => `the v2 client to connect: ${text}`, timeoutMs: 20_000 });
  } else {
    stderr = front.stderr;
    await withDeadline(client.connect(new HttpTransportV2(new URL(front.url))), { what: `the v2 client to connect to ${front.url}`, timeoutMs: 20_000 });
  }
  return {
    seen: watch.seen,
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    serverName: () => client.getServerVersion()?.name,
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name, args = {}, options = {}) => textOf(await client.callTool({ name, arguments: args }, options)),
    setLoggingLevel: async (level) => void (await client.setLoggingLevel(level)),
    subscribe: async (uri) => void (await client.subscribeResource({ uri })),
    ping: () => client.ping(),
    until: (check, what) => watch.until(check, what),
    chainStderr: () => stderr(),
    close: () => client.close(),
  };
}

/** Asks `ask` again until it gives `wanted` (a poll bounded by a deadline: the effect may travel on another connection). */
async function eventually(ask: () => Promise<string>, wanted: string, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = '';
  while (Date.now() < deadline) {
    last = await ask();
    if (last === wanted) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`waited 10000 ms for ${what}: still ${JSON.stringify(last)}`);
}

/** The suite, for one client, one front of the chain and one way to reach the modern-only server. */
function suite(kind: ClientKind, front: Side, upstream: Side): void {
  describe(`a ${kind} through mcp-chain on ${front}, in front of a 2026-07-28-only server on ${upstream}`, () => {
    let client: LegacyClient;
    const stops: (() => Promise<unknown>)[] = [];

    before(async () => {
      let upstreamArgs: string[];
      if (upstream === 'HTTP') {
        const server = await startModernHttpServer();
        stops.unshift(() => server.stop());
        upstreamArgs = ['--url', server.url];
      } else {
        const { command, args } = fixtureCommand('modern-only-upstream');
        upstreamArgs = ['--', command, ...args];
      }
      let at: { stdio: string[] } | { url: string; stderr: () => string };
      if (front === 'HTTP') {
        const proxy: HttpProxy = await startHttpProxy(['--http', '127.0.0.1:0', '--log-level', 'info', ...upstreamArgs]);
        stops.unshift(() => proxy.stop());
        at = { url: proxy.url, stderr: proxy.stderr };
      } else {
        at = { stdio: upstreamArgs };
      }
      client = await (kind === 'v1 SDK client' ? connectV1(at) : connectV2(at));
      stops.unshift(() => client.close());
    });

    after(async () => {
      // Every stop runs, even when one before it fails (then the first failure is reported).
      const outcomes = [];
      for (const stop of stops) outcomes.push(await stop().then(() => undefined, (error: unknown) => error));
      const failed = outcomes.find((outcome) => outcome !== undefined);
      if (failed !== undefined) throw failed;
    });

    test('connects in the session era and sees the server behind the chain; the chain logs once that the upstream speaks 2026-07-28', () => {
      assert.notEqual(client.protocolVersion(), '2026-07-28');
      assert.equal(client.serverName(), 'modern-only-upstream');
      const lines = client.chainStderr().match(MODERN_UPSTREAM_LINE) ?? [];
      assert.equal(lines.length, 1, client.chainStderr());
      assert.match(client.chainStderr(), /"level":30,[^\n]*"msg":"the upstream speaks protocol version 2026-07-28"/, 'at info');
    });

    test('lists and calls tools', async () => {
      const names = await client.toolNames();
      for (const name of ['echo', 'ask-twice', 'sample', 'roots', 'progress', 'log', 'notify', 'hang', 'aborted']) assert.ok(names.includes(name), name);
      assert.equal(await client.call('echo', { text: 'from the session era' }), 'echo: from the session era');
    });

    test('ping is answered', async () => {
      assert.deepEqual(await client.ping(), {});
    });

    test('a sampling round trip: the server\'s input_required becomes sampling/createMessage to the client', async () => {
      client.seen.asked.length = 0;
      assert.equal(await client.call('sample', { question: 'Capital of France?' }), 'Paris');
      assert.deepEqual(client.seen.asked, ['sampling: 1 message(s)']);
    });

    test('an elicitation in two rounds, inside one call', async () => {
      client.seen.asked.length = 0;
      assert.equal(await client.call('ask-twice'), 'Ada likes teal');
      assert.deepEqual(client.seen.asked, ['elicitation: Your name?', 'elicitation: Your favourite colour?']);
    });

    test('roots: the server\'s roots/list request reaches the client', async () => {
      client.seen.asked.length = 0;
      assert.equal(await client.call('roots'), 'file:///work/one,file:///work/two');
      assert.deepEqual(client.seen.asked, ['roots']);
    });

    test('progress, in order, to its call', async () => {
      const progress: number[] = [];
      assert.equal(await client.call('progress', { steps: 3 }, { onprogress: (p) => void progress.push(p.progress) }), 'done');
      assert.ok(progress.length >= 1, 'some progress came');
      assert.deepEqual(progress, [1, 2, 3].slice(0, progress.length));
    });

    test('logging/setLevel becomes the per-request level: messages arrive, none below the level', async () => {
      client.seen.logs.length = 0;
      await client.setLoggingLevel('warning');
      assert.equal(await client.call('log'), 'logged');
      await client.until((seen) => seen.logs.some((entry) => entry.level === 'error'), 'the error message of the log tool');
      assert.deepEqual(client.seen.logs.map((entry) => entry.level), ['warning', 'error']);
      client.seen.logs.length = 0;
      await client.setLoggingLevel('debug');
      assert.equal(await client.call('log'), 'logged');
      await client.until((seen) => seen.logs.some((entry) => entry.level === 'error'), 'the error message of the log tool');
      assert.deepEqual(client.seen.logs.map((entry) => entry.level), ['debug', 'info', 'warning', 'error']);
    });

    test('list_changed: the server\'s tools/list_changed reaches the client', async () => {
      const before = client.seen.listChanged;
      assert.equal(await client.call('notify'), 'notified');
      await client.until((seen) => seen.listChanged > before, 'notifications/tools/list_changed');
    });

    test('resources/subscribe: once it is answered, resources/updated for the resource arrives', async () => {
      await client.subscribe('test://note');
      assert.equal(await client.call('notify'), 'notified');
      await client.until((seen) => seen.updated.includes('test://note'), 'notifications/resources/updated for test://note');
    });

    test('cancellation: aborting a call rejects it, the server sees the cancel, and the client is served on', async () => {
      assert.equal(await client.call('aborted'), '0');
      const controller = new AbortController();
      const settled = client.call('hang', {}, { signal: controller.signal }).then(() => 'answered', () => 'rejected');
      // The hang call is on its way once a later call was answered (the chain keeps the order on stdio; on HTTP it is at least sent).
      await client.call('aborted');
      controller.abort();
      assert.equal(await withDeadline(settled, { what: 'the aborted call to settle' }), 'rejected');
      await eventually(() => client.call('aborted'), '1', 'the server to count the cancelled call');
      assert.equal(await client.call('echo', { text: 'still here' }), 'echo: still here');
    });
  });
}

for (const kind of ['v1 SDK client', 'v2 SDK client (legacy mode)'] as const) {
  for (const front of ['stdio', 'HTTP'] as const) {
    for (const upstream of ['stdio', 'HTTP'] as const) suite(kind, front, upstream);
  }
}

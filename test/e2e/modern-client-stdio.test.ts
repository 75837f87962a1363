// A client of protocol revision 2026-07-28 (the v2 SDK, pinned to it) through mcp-chain on stdio,
// in front of servers of the session era only: the chain bridges the eras (issue 15). The v2
// client drops any server→client request on a 2026-07-28 connection, so every sampling,
// elicitation and roots round trip below went through `input_required` and the client's retry.
//
// About progress: the v2 client 2.4.0 reports progress of its own during an input_required flow
// (`{ progress: <round>, message }`, no total), so the server's progress is told apart by its
// `total`; and it may handle a notification after a response read with it in one chunk, and drop
// it then, so the fixture paces its progress and the checks ask for some, in order, not for all.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { withDeadline } from '../../src/testing/with-deadline.js';
import { everythingEntry, fixtureCommand, proxyMain } from '../helpers/targets.js';

const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };
const PINNED: ClientOptions = { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } };

/** The text of a tool result's content, joined. */
function textOf(result: { content?: unknown }): string {
  const content = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

/** An `onprogress` that keeps the server's progress (which has a total), not the client's own rounds. */
function serverProgress(into: number[]): (progress: { progress: number; total?: number | undefined }) => void {
  return (progress) => {
    if (progress.total !== undefined) into.push(progress.progress);
  };
}

/** Elicitation answers, by a word of the message asked. */
const ANSWERS: Record<string, Record<string, string>> = {
  name: { name: 'Ada' },
  colour: { colour: 'teal' },
};

/** A v2 client with handlers for what a server may ask, connected to the chain in front of `upstream`. */
async function connect(upstream: string[], options: ClientOptions = PINNED): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client({ name: 'mcp-chain-e2e-modern', version: '1.0.0' }, options);
  client.setRequestHandler('elicitation/create', (request) => {
    const message = request.params.message;
    asked.push(`elicitation: ${message}`);
    const key = Object.keys(ANSWERS).find((word) => message.toLowerCase().includes(word));
    return { action: 'accept', content: key === undefined ? { name: 'Ada' } : (ANSWERS[key] as Record<string, string>) };
  });
  client.setRequestHandler('sampling/createMessage', (request) => {
    asked.push(`sampling: ${request.params.messages.length} message(s)`);
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  });
  client.setRequestHandler('roots/list', () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///work/one', name: 'one' }, { uri: 'file:///work/two', name: 'two' }] };
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [proxyMain, '--log-level', 'warn', '--', ...upstream],
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, asked };
}

describe('a 2026-07-28 client (v2 SDK, pinned) through mcp-chain on stdio, in front of server-everything (session era only)', () => {
  let client: Client;
  let asked: string[];

  before(async () => {
    ({ client, asked } = await connect([process.execPath, everythingEntry(), 'stdio']));
  });

  after(async () => {
    await client.close();
  });

  test('connects in the stateless era, and sees the server behind the chain in server/discover', () => {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const discovered = client.getDiscoverResult();
    assert.ok(discovered?.supportedVersions.includes('2026-07-28'));
    assert.ok(discovered?.supportedVersions.includes('2025-11-25'), 'the chain serves both eras');
    assert.ok(discovered?.capabilities.tools);
  });

  test('lists and calls tools', async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'echo'));
    // Tools the server registers only for clients that declare a capability are there: the chain's handshake declared them.
    for (const name of ['trigger-elicitation-request', 'trigger-sampling-request', 'get-roots-list']) {
      assert.ok(tools.some((tool) => tool.name === name), name);
    }
    const result = await client.callTool({ name: 'echo', arguments: { message: 'from 2026' } });
    assert.equal(textOf(result), 'Echo: from 2026');
  });

  // First of the calls that take time: server-everything asks for the roots once, 350 ms after the
  // handshake, outside any call; on stdio the chain cannot tell which call such a request belongs
  // to and gives it to a call in flight. This call asks for the roots itself first, and the server
  // does not ask again.
  test('roots: the server\'s roots/list during a call is answered by the client', async () => {
    const result = await client.callTool({ name: 'get-roots-list', arguments: {} });
    assert.match(textOf(result), /file:\/\/\/work\/one/);
    assert.match(textOf(result), /file:\/\/\/work\/two/);
  });

  test('progress notifications reach the call they belong to', async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      { onprogress: serverProgress(progress) },
    );
    assert.ok(progress.length >= 2, `got ${progress.length} progress notifications`);
    assert.deepEqual([...progress].sort((a, b) => a - b), progress);
    assert.ok(Array.isArray(result.content));
  });

  test('a sampling round trip: the server\'s sampling/createMessage reaches the client and its answer the server', async () => {
    const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Capital of France?' } });
    assert.match(textOf(result), /Paris/);
    assert.ok(asked.some((what) => what.startsWith('sampling')));
  });

  test('an elicitation round trip', async () => {
    const result = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    assert.match(textOf(result), /Name: Ada/);
  });

  test('subscriptions: a listen with a resource subscription gets its resources/updated', async () => {
    const { resources } = await client.listResources();
    const uri = resources[0]?.uri;
    assert.ok(uri !== undefined);
    const updated: string[] = [];
    let wake: (() => void) | undefined;
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
      wake?.();
    });
    const subscription = await client.listen({ resourceSubscriptions: [uri] });
    try {
      assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [uri]);
      // server-everything sends resources/updated for subscribed URIs when its updates are turned on (at once, then every 5 s).
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      await withDeadline(
        new Promise<void>((resolve) => {
          wake = () => updated.includes(uri) && resolve();
          wake();
        }),
        { what: `notifications/resources/updated for ${uri}` },
      );
    } finally {
      wake = undefined;
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      await subscription.close();
    }
  });

  test('cancellation: aborting a call rejects it, and the connection goes on', async () => {
    const controller = new AbortController();
    let progressed: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (progressed = resolve));
    const call = client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
      { signal: controller.signal, onprogress: () => progressed() },
    );
    const settled = call.then(() => 'answered', () => 'rejected');
    await withDeadline(started, { what: 'the first progress of the long call' });
    controller.abort();
    assert.equal(await withDeadline(settled, { what: 'the aborted call to settle' }), 'rejected');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'still here' } })), 'Echo: still here');
  });
});

describe('a 2026-07-28 client (v2 SDK, pinned) through mcp-chain on stdio, in front of a v1 SDK server of ours', () => {
  const { command, args } = fixtureCommand('modern-bridge-upstream');
  let client: Client;
  let asked: string[];

  before(async () => {
    ({ client, asked } = await connect([command, ...args]));
  });

  after(async () => {
    await client.close();
  });

  test('progress, in order, to its call', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: serverProgress(progress) });
    assert.equal(textOf(result), 'done');
    assert.ok(progress.length >= 1, 'some progress came');
    assert.deepEqual(progress, [1, 2, 3].slice(0, progress.length));
  });

  test('progress after an input round reaches the retry (under the retry\'s progress token)', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'ask-then-progress', arguments: { steps: 3 } }, { onprogress: serverProgress(progress) });
    assert.equal(textOf(result), 'done for Ada');
    assert.ok(progress.length >= 1, 'some progress came');
    assert.deepEqual(progress, [1, 2, 3].slice(0, progress.length));
  });

  test('an elicitation in two rounds, inside one call', async () => {
    asked.length = 0;
    const result = await client.callTool({ name: 'ask-twice', arguments: {} });
    assert.equal(textOf(result), 'Ada likes teal');
    assert.deepEqual(asked, ['elicitation: Your name?', 'elicitation: Your favourite colour?']);
  });

  test('a sampling round trip', async () => {
    const result = await client.callTool({ name: 'sample', arguments: { question: 'Capital of France?' } });
    assert.equal(textOf(result), 'Paris');
  });

  test('roots/list during a call', async () => {
    const result = await client.callTool({ name: 'roots', arguments: {} });
    assert.equal(textOf(result), 'file:///work/one,file:///work/two');
  });

  test('subscriptions: a listen gets tools/list_changed and resources/updated; closing it unsubscribes upstream', async () => {
    const seen: string[] = [];
    let wake: (() => void) | undefined;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      seen.push('tools/list_changed');
      wake?.();
    });
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      seen.push(`resources/updated ${notification.params.uri}`);
      wake?.();
    });
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['test://note'] });
    assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true, resourceSubscriptions: ['test://note'] });
    // The upstream was subscribed to test://note (and only to it) before the ack.
    assert.equal(textOf(await client.callTool({ name: 'notify', arguments: {} })), 'notified test://note');
    await withDeadline(
      new Promise<void>((resolve) => {
        wake = () => seen.includes('tools/list_changed') && seen.includes('resources/updated test://note') && resolve();
        wake();
      }),
      { what: 'tools/list_changed and resources/updated test://note on the listen stream' },
    );
    wake = undefined;
    await subscription.close();
    assert.equal(await withDeadline(subscription.closed, { what: 'the subscription to close' }), 'local');
    // The chain unsubscribed: the server has nothing subscribed any more. (The cancellation and the next call travel in order.)
    assert.equal(textOf(await client.callTool({ name: 'notify', arguments: {} })), 'notified ');
  });

  test('cancellation: aborting a call cancels it upstream', async () => {
    assert.equal(textOf(await client.callTool({ name: 'aborted', arguments: {} })), '0');
    const controller = new AbortController();
    const call = client.callTool({ name: 'hang', arguments: {} }, { signal: controller.signal });
    const settled = call.then(() => 'answered', () => 'rejected');
    // The call is on its way once a later call has been answered (requests travel in order).
    await client.callTool({ name: 'aborted', arguments: {} });
    controller.abort();
    assert.equal(await withDeadline(settled, { what: 'the aborted call to settle' }), 'rejected');
    // notifications/cancelled goes before the next request, on the same pipe to the same server.
    assert.equal(textOf(await client.callTool({ name: 'aborted', arguments: {} })), '1');
  });
});

describe('a v2 client in auto mode through mcp-chain on stdio', () => {
  test('probes, chooses 2026-07-28 (the chain serves it), and works, elicitation included', async () => {
    const { command, args } = fixtureCommand('modern-bridge-upstream');
    const { client } = await connect([command, ...args], { capabilities: CAPABILITIES, versionNegotiation: { mode: 'auto' } });
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'ask-twice'));
      assert.equal(textOf(await client.callTool({ name: 'ask-twice', arguments: {} })), 'Ada likes teal');
    } finally {
      await client.close();
    }
  });

  test('in front of server-everything too', async () => {
    const { client } = await connect([process.execPath, everythingEntry(), 'stdio'], { capabilities: CAPABILITIES, versionNegotiation: { mode: 'auto' } });
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'auto' } })), 'Echo: auto');
      assert.match(textOf(await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })), /Name: Ada/);
    } finally {
      await client.close();
    }
  });
});

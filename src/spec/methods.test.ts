// Mostly compile-time checks: this file failing `tsc --noEmit` is the real failure. The runtime
// test only makes sure the values built against the map are what they claim to be.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type {
  CallToolRequest,
  ClientNotification,
  ClientRequest,
  ServerNotification,
  ServerRequest,
} from './2025-11-25.js';
import type {
  CallToolResult,
  ClientNotificationMethod,
  ClientRequestMethod,
  InitializeResult,
  ListItemOf,
  ListKey,
  ListMethodOf,
  NotificationMethod,
  NotificationParamsOf,
  ParamsOf,
  Prompt,
  RequestMethod,
  Resource,
  ResourceTemplate,
  ResultOf,
  ServerNotificationMethod,
  ServerRequestMethod,
  Tool,
} from './index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

type AnyRequest = ClientRequest | ServerRequest;
type AnyNotification = ClientNotification | ServerNotification;

/** `true` when every request method's params are those of the schema's request with that method. */
type RequestParamsMatch = {
  [M in RequestMethod]: Equal<ParamsOf<M>, Extract<AnyRequest, { method: M }>['params']>;
}[RequestMethod];
/** Same for notifications. */
type NotificationParamsMatch = {
  [M in NotificationMethod]: Equal<NotificationParamsOf<M>, Extract<AnyNotification, { method: M }>['params']>;
}[NotificationMethod];
/** `true` when ResultOf<list method>[key] is item[] for every list key. */
type ListMethodsMatch = {
  [K in ListKey]: Equal<ResultOf<ListMethodOf<K>> extends Record<K, infer A> ? A : never, ListItemOf<K>[]>;
}[ListKey];

export type _Checks = [
  // The maps hold exactly the methods of the schema's unions, in both directions.
  Expect<Equal<RequestMethod, ClientRequestMethod | ServerRequestMethod>>,
  Expect<Equal<NotificationMethod, ClientNotificationMethod | ServerNotificationMethod>>,
  Expect<Equal<RequestParamsMatch, true>>,
  Expect<Equal<NotificationParamsMatch, true>>,
  Expect<Equal<ListMethodsMatch, true>>,
  // Spot checks of the results.
  Expect<Equal<ResultOf<'tools/call'>, CallToolResult>>,
  Expect<Equal<ResultOf<'initialize'>, InitializeResult>>,
  Expect<Equal<ParamsOf<'tools/call'>, CallToolRequest['params']>>,
  Expect<Equal<ListItemOf<'tools'>, Tool>>,
  Expect<Equal<ListItemOf<'prompts'>, Prompt>>,
  Expect<Equal<ListItemOf<'resources'>, Resource>>,
  Expect<Equal<ListItemOf<'resourceTemplates'>, ResourceTemplate>>,
  Expect<Equal<ListMethodOf<'resourceTemplates'>, 'resources/templates/list'>>,
  // Direction: initialize goes client→server, sampling server→client, ping both.
  Expect<'initialize' extends ClientRequestMethod ? true : false>,
  Expect<'sampling/createMessage' extends ServerRequestMethod ? true : false>,
  Expect<'ping' extends ClientRequestMethod & ServerRequestMethod ? true : false>,
  Expect<'notifications/initialized' extends ClientNotificationMethod ? true : false>,
  Expect<'notifications/message' extends ServerNotificationMethod ? true : false>,
];

describe('spec method map', () => {
  it('builds values of the mapped params and results', () => {
    const list: ResultOf<'tools/list'> = { tools: [] };
    const page: ResultOf<'prompts/list'> = { prompts: [{ name: 'p' }], nextCursor: 'c' };
    const call: ParamsOf<'tools/call'> = { name: 'echo', arguments: { text: 'hi' } };
    const called: ResultOf<'tools/call'> = { content: [{ type: 'text', text: 'hi' }], isError: false };
    const ping: ParamsOf<'ping'> = undefined;
    const empty: ResultOf<'ping'> = {};
    const progress: NotificationParamsOf<'notifications/progress'> = { progressToken: 1, progress: 0.5, total: 1 };
    const changed: NotificationParamsOf<'notifications/tools/list_changed'> = undefined;
    const init: ParamsOf<'initialize'> = {
      protocolVersion: '2025-11-25',
      capabilities: { roots: { listChanged: true } },
      clientInfo: { name: 'c', version: '1' },
    };

    // @ts-expect-error -- `tools` is required in a tools/list result.
    const missing: ResultOf<'tools/list'> = {};
    // @ts-expect-error -- tools/call params need a `name`.
    const noName: ParamsOf<'tools/call'> = { arguments: {} };
    // @ts-expect-error -- not an MCP method.
    const unknownMethod: ParamsOf<'tools/run'> = undefined;

    assert.deepEqual(list.tools, []);
    assert.equal(page.prompts[0]?.name, 'p');
    assert.equal(call.name, 'echo');
    assert.equal(called.content[0]?.type, 'text');
    assert.equal(ping, undefined);
    assert.deepEqual(empty, {});
    assert.equal(progress.progress, 0.5);
    assert.equal(changed, undefined);
    assert.equal(init.clientInfo.name, 'c');
    assert.deepEqual([missing, noName, unknownMethod], [{}, { arguments: {} }, undefined]);
  });
});

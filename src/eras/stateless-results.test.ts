import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import type { JsonObject } from '../message/jsonrpc.js';
import {
  CACHEABLE_METHODS,
  type CacheHints,
  cacheHintsOf,
  discoverResultFrom,
  initializeResultFrom,
  mergeCacheHints,
  SERVER_INFO_META,
  toStatelessError,
  toStatelessResult,
} from './stateless-results.js';

const hints: CacheHints = { ttlMs: 60_000, cacheScope: 'private' };

/** A deeply frozen copy: a function that tried to mutate it would throw (ESM is strict mode). */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

describe('CACHEABLE_METHODS: the results the spec requires caching hints on', () => {
  test('discover, the four lists and resources/read; nothing else', () => {
    assert.deepEqual(
      [...CACHEABLE_METHODS].sort(),
      ['prompts/list', 'resources/list', 'resources/read', 'resources/templates/list', 'server/discover', 'tools/list'],
    );
    assert.equal(CACHEABLE_METHODS.has('tools/call'), false);
    assert.equal(CACHEABLE_METHODS.has('prompts/get'), false);
  });
});

describe('toStatelessResult: a session-era result made what a 2026-07-28 client expects', () => {
  test('adds resultType "complete" to any result without one, last', () => {
    const input = frozen({ content: [{ type: 'text', text: 'hi' }], isError: false });
    const out = toStatelessResult('tools/call', input, hints);
    assert.deepEqual(out, { content: [{ type: 'text', text: 'hi' }], isError: false, resultType: 'complete' });
    assert.deepEqual(Object.keys(out), ['content', 'isError', 'resultType']);
    assert.equal(out.content, input.content, 'the other values are the same, not copies');
  });

  test('an empty result (ping, EmptyResult) also gets resultType', () => {
    assert.deepEqual(toStatelessResult('ping', frozen({}), hints), { resultType: 'complete' });
  });

  test('a result that already has resultType comes back as the same object', () => {
    const input = frozen({ content: [], resultType: 'complete' });
    assert.equal(toStatelessResult('tools/call', input, hints), input);
  });

  test('keeps a resultType that is present, whatever it says (the client judges it)', () => {
    const input = frozen({ resultType: 'something-new' });
    assert.equal(toStatelessResult('tools/call', input, hints), input);
  });

  test('a cacheable result gets resultType, ttlMs and cacheScope from the hints, in that order, last', () => {
    const input = frozen({ tools: [{ name: 'a' }], nextCursor: 'c' });
    const out = toStatelessResult('tools/list', input, hints);
    assert.deepEqual(out, { tools: [{ name: 'a' }], nextCursor: 'c', resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
    assert.deepEqual(Object.keys(out), ['tools', 'nextCursor', 'resultType', 'ttlMs', 'cacheScope']);
  });

  test('every cacheable method gets the hints', () => {
    for (const method of CACHEABLE_METHODS) {
      const out = toStatelessResult(method, frozen({}), hints);
      assert.deepEqual(out, { resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' }, method);
    }
  });

  test('a cacheable result with valid hints of its own keeps them, and comes back as the same object', () => {
    const input = frozen({ resources: [], resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    assert.equal(toStatelessResult('resources/list', input, hints), input);
  });

  test('valid hints without resultType: only resultType is added', () => {
    const out = toStatelessResult('prompts/list', frozen({ prompts: [], ttlMs: 5, cacheScope: 'public' }), hints);
    assert.deepEqual(out, { prompts: [], ttlMs: 5, cacheScope: 'public', resultType: 'complete' });
  });

  test('fills only the hint that is missing', () => {
    assert.deepEqual(toStatelessResult('resources/read', frozen({ contents: [], resultType: 'complete', ttlMs: 10 }), hints), {
      contents: [],
      resultType: 'complete',
      ttlMs: 10,
      cacheScope: 'private',
    });
    assert.deepEqual(toStatelessResult('resources/read', frozen({ contents: [], resultType: 'complete', cacheScope: 'public' }), hints), {
      contents: [],
      resultType: 'complete',
      cacheScope: 'public',
      ttlMs: 60_000,
    });
  });

  test('an invalid ttlMs (float, NaN, Infinity, string, null, object) is replaced by the hint, in its place', () => {
    for (const ttlMs of [1.5, Number.NaN, Number.POSITIVE_INFINITY, '100', null, {}, [], true]) {
      const out = toStatelessResult('tools/list', frozen({ ttlMs, tools: [], resultType: 'complete', cacheScope: 'public' }), hints);
      assert.deepEqual(out, { ttlMs: 60_000, tools: [], resultType: 'complete', cacheScope: 'public' }, String(ttlMs));
      assert.deepEqual(Object.keys(out), ['ttlMs', 'tools', 'resultType', 'cacheScope']);
    }
  });

  test('a negative integer ttlMs becomes 0 (the spec reads it as 0), never the longer hint', () => {
    const out = toStatelessResult('tools/list', frozen({ tools: [], resultType: 'complete', ttlMs: -5, cacheScope: 'public' }), hints);
    assert.deepEqual(out, { tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
  });

  test('an invalid cacheScope (other word, wrong case, number, null) is replaced by the hint', () => {
    for (const cacheScope of ['shared', 'PUBLIC', 1, null, {}]) {
      const out = toStatelessResult('tools/list', frozen({ tools: [], resultType: 'complete', ttlMs: 1, cacheScope }), hints);
      assert.deepEqual(out, { tools: [], resultType: 'complete', ttlMs: 1, cacheScope: 'private' }, String(cacheScope));
    }
  });

  test('an input_required result gets no caching hints (it is not cacheable)', () => {
    const input = frozen({ resultType: 'input_required', inputRequests: {}, requestState: 's' });
    assert.equal(toStatelessResult('resources/read', input, hints), input);
  });

  test('a result of a method that is not cacheable gets no hints, and keeps bad ones it has (not ours to judge)', () => {
    const input = frozen({ content: [], resultType: 'complete', ttlMs: -1 });
    assert.equal(toStatelessResult('tools/call', input, hints), input);
  });

  test('never mutates the result it is given', () => {
    const input = { tools: [], ttlMs: 'x' } as JsonObject;
    const before = structuredClone(input);
    toStatelessResult('tools/list', input, hints);
    assert.deepEqual(input, before);
  });
});

describe('toStatelessError: no retired or undefined reserved code reaches a stateless-era client', () => {
  test('-32002 (resource not found) becomes -32602 with data.uri from the error, message kept', () => {
    const error = frozen({ code: -32002, message: 'Resource not found', data: { uri: 'file:///a.txt' } });
    assert.deepEqual(toStatelessError(error, { uri: 'file:///other.txt' }), {
      code: ErrorCode.InvalidParams,
      message: 'Resource not found',
      data: { uri: 'file:///a.txt' },
    });
  });

  test('-32002 without data.uri takes the uri of the request', () => {
    assert.deepEqual(toStatelessError(frozen({ code: -32002, message: 'gone' }), { uri: 'mem://x' }), {
      code: ErrorCode.InvalidParams,
      message: 'gone',
      data: { uri: 'mem://x' },
    });
  });

  test('-32002 keeps the other keys of an object data, and fills a non-string data.uri from the request', () => {
    assert.deepEqual(toStatelessError(frozen({ code: -32002, message: 'm', data: { uri: 42, reason: 'hidden' } }), { uri: 'mem://y' }), {
      code: ErrorCode.InvalidParams,
      message: 'm',
      data: { uri: 'mem://y', reason: 'hidden' },
    });
  });

  test('-32002 whose data is not an object (null, array, string) gets data { uri } when the request has one', () => {
    for (const data of [null, ['a'], 'text', 7]) {
      assert.deepEqual(toStatelessError(frozen({ code: -32002, message: 'm', data }), { uri: 'mem://z' }), {
        code: ErrorCode.InvalidParams,
        message: 'm',
        data: { uri: 'mem://z' },
      });
    }
  });

  test('-32002 with no uri anywhere (no params, a non-string uri) is still -32602, its data kept as it was', () => {
    assert.deepEqual(toStatelessError(frozen({ code: -32002, message: 'm' }), undefined), { code: ErrorCode.InvalidParams, message: 'm' });
    assert.deepEqual(toStatelessError(frozen({ code: -32002, message: 'm', data: null }), { uri: 5 }), {
      code: ErrorCode.InvalidParams,
      message: 'm',
      data: null,
    });
    assert.deepEqual(toStatelessError(frozen({ code: -32002, message: 'm', data: { why: 'x' } }), { uri: ['u'] }), {
      code: ErrorCode.InvalidParams,
      message: 'm',
      data: { why: 'x' },
    });
  });

  test('-32042 (URL elicitation required) becomes -32603 saying so, the original data kept as data', () => {
    const data = { elicitations: [{ mode: 'url', elicitationId: 'e1', url: 'https://example.com/auth', message: 'Sign in' }] };
    const out = toStatelessError(frozen({ code: -32042, message: 'Authorization needed', data }), undefined);
    assert.equal(out.code, ErrorCode.InternalError);
    assert.match(out.message, /URL elicitation required/);
    assert.match(out.message, /Authorization needed/);
    assert.equal(out.data, data);
  });

  test('-32042 without data or message: still -32603 with a message, no data key', () => {
    const out = toStatelessError(frozen({ code: -32042, message: '' }), undefined);
    assert.deepEqual(out, { code: ErrorCode.InternalError, message: 'URL elicitation required' });
    assert.equal(Object.hasOwn(out, 'data'), false);
  });

  test('any other code of -32020..-32099 the spec does not define becomes -32603, message and data kept', () => {
    for (const code of [-32023, -32050, -32099, -32043, -32041]) {
      const data = { detail: code };
      assert.deepEqual(toStatelessError(frozen({ code, message: 'custom', data }), undefined), { code: ErrorCode.InternalError, message: 'custom', data }, String(code));
    }
    assert.deepEqual(toStatelessError(frozen({ code: -32030, message: 'no data' }), undefined), { code: ErrorCode.InternalError, message: 'no data' });
  });

  test('the three defined codes, the standard ones and codes outside the reserved range come back as the same object', () => {
    for (const code of [-32020, -32021, -32022, -32700, -32600, -32601, -32602, -32603, -32000, -32001, -32019, -32100, -1, 0, 42, 1.5, Number.NaN]) {
      const error = frozen({ code, message: 'm', data: { x: 1 } });
      assert.equal(toStatelessError(error, { uri: 'mem://x' }), error, String(code));
    }
  });

  test('never mutates the error it is given', () => {
    const error = { code: -32002, message: 'm', data: { reason: 'r' } as unknown };
    toStatelessError(error, { uri: 'u' });
    assert.deepEqual(error, { code: -32002, message: 'm', data: { reason: 'r' } });
  });
});

describe('discoverResultFrom: server/discover answered from a session-era initialize result', () => {
  const options = { supportedVersions: ['2026-07-28'], ttlMs: 3_600_000, cacheScope: 'public' } as const;

  test('builds the DiscoverResult: serverInfo moves into _meta, protocolVersion goes', () => {
    const input = frozen({
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: true }, resources: {} },
      serverInfo: { name: 'everything', version: '2.0.0' },
      instructions: 'Use the tools.',
    });
    const out = discoverResultFrom(input, options);
    assert.deepEqual(out, {
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true }, resources: {} },
      instructions: 'Use the tools.',
      _meta: { [SERVER_INFO_META]: { name: 'everything', version: '2.0.0' } },
      ttlMs: 3_600_000,
      cacheScope: 'public',
    });
    assert.equal(Object.hasOwn(out, 'serverInfo'), false);
    assert.equal(Object.hasOwn(out, 'protocolVersion'), false);
  });

  test('supportedVersions is a copy of the option, not the caller array', () => {
    const supportedVersions = ['2026-07-28'];
    const out = discoverResultFrom(frozen({}), { ...options, supportedVersions });
    assert.deepEqual(out.supportedVersions, supportedVersions);
    assert.notEqual(out.supportedVersions, supportedVersions);
  });

  test('capabilities absent or not an object (null, array, string) become {}', () => {
    for (const capabilities of [undefined, null, ['tools'], 'tools', 3]) {
      assert.deepEqual(discoverResultFrom(frozen({ capabilities }), options).capabilities, {}, String(capabilities));
    }
  });

  test('instructions only when a string; serverInfo only when an object; no _meta when there is nothing for it', () => {
    const out = discoverResultFrom(frozen({ capabilities: {}, instructions: 42, serverInfo: 'everything' }), options);
    assert.deepEqual(out, { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {}, ttlMs: 3_600_000, cacheScope: 'public' });
    assert.equal(Object.hasOwn(discoverResultFrom(frozen({ serverInfo: null }), options), '_meta'), false);
    assert.equal(Object.hasOwn(discoverResultFrom(frozen({ serverInfo: ['x'] }), options), '_meta'), false);
  });

  test('keeps the other _meta keys of the result, and the body serverInfo wins over one already in _meta', () => {
    const input = frozen({
      capabilities: {},
      serverInfo: { name: 'body', version: '1' },
      _meta: { 'example.com/trace': 't1', [SERVER_INFO_META]: { name: 'meta', version: '0' } },
    });
    assert.deepEqual(discoverResultFrom(input, options)._meta, {
      'example.com/trace': 't1',
      [SERVER_INFO_META]: { name: 'body', version: '1' },
    });
  });

  test('a _meta that is not an object is dropped', () => {
    assert.deepEqual(discoverResultFrom(frozen({ _meta: ['x'], serverInfo: { name: 's', version: '1' } }), options)._meta, {
      [SERVER_INFO_META]: { name: 's', version: '1' },
    });
    assert.equal(Object.hasOwn(discoverResultFrom(frozen({ _meta: 'x' }), options), '_meta'), false);
  });

  test('the result round-trips through toStatelessResult unchanged (already of the stateless era)', () => {
    const out = discoverResultFrom(frozen({ capabilities: {} }), options);
    assert.equal(toStatelessResult('server/discover', out, hints), out);
  });
});

describe('initializeResultFrom: an initialize result for a session-era client, from a DiscoverResult', () => {
  test('takes capabilities, serverInfo from _meta and instructions; no stateless-era-only keys', () => {
    const input = frozen({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {}, prompts: { listChanged: true } },
      instructions: 'Be nice.',
      _meta: { [SERVER_INFO_META]: { name: 'modern', version: '3.1.0', title: 'Modern' } },
      ttlMs: 1000,
      cacheScope: 'private',
    });
    assert.deepEqual(initializeResultFrom(input, '2025-11-25'), {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {}, prompts: { listChanged: true } },
      serverInfo: { name: 'modern', version: '3.1.0', title: 'Modern' },
      instructions: 'Be nice.',
    });
  });

  test('without a usable serverInfo (none, null, array, no name or version) it is unknown 0.0.0', () => {
    for (const serverInfo of [undefined, null, ['x'], 'srv', { name: 'only-name' }, { version: '1' }, { name: 1, version: '1' }]) {
      const meta = serverInfo === undefined ? {} : { [SERVER_INFO_META]: serverInfo };
      assert.deepEqual(initializeResultFrom(frozen({ capabilities: {}, _meta: meta }), '2025-06-18').serverInfo, { name: 'unknown', version: '0.0.0' }, JSON.stringify(serverInfo));
    }
    assert.deepEqual(initializeResultFrom(frozen({}), '2025-06-18').serverInfo, { name: 'unknown', version: '0.0.0' });
    assert.deepEqual(initializeResultFrom(frozen({ _meta: null }), '2025-06-18').serverInfo, { name: 'unknown', version: '0.0.0' });
  });

  test('capabilities absent or not an object become {}; instructions only when a string', () => {
    assert.deepEqual(initializeResultFrom(frozen({ capabilities: [1], instructions: { text: 'x' } }), '2025-03-26'), {
      protocolVersion: '2025-03-26',
      capabilities: {},
      serverInfo: { name: 'unknown', version: '0.0.0' },
    });
  });

  test('other _meta keys are kept; serverInfo is not left in _meta', () => {
    const out = initializeResultFrom(frozen({ _meta: { 'example.com/k': 1, [SERVER_INFO_META]: { name: 'n', version: 'v' } } }), '2025-11-25');
    assert.deepEqual(out._meta, { 'example.com/k': 1 });
  });

  test('is the reverse of discoverResultFrom', () => {
    const legacy = frozen({ protocolVersion: '2025-11-25', capabilities: { logging: {} }, serverInfo: { name: 's', version: '1' }, instructions: 'i' });
    const discover = discoverResultFrom(legacy, { supportedVersions: ['2026-07-28'], ttlMs: 0, cacheScope: 'public' });
    assert.deepEqual(initializeResultFrom(discover, '2025-11-25'), legacy);
  });
});

describe('mergeCacheHints: one set of hints for a list merged from several members', () => {
  test('the smallest ttlMs and the most private scope', () => {
    assert.deepEqual(
      mergeCacheHints(
        [
          { ttlMs: 60_000, cacheScope: 'public' },
          { ttlMs: 5_000, cacheScope: 'public' },
          { ttlMs: 30_000, cacheScope: 'private' },
        ],
        hints,
      ),
      { ttlMs: 5_000, cacheScope: 'private' },
    );
  });

  test('all public stays public; a 0 ttl wins', () => {
    assert.deepEqual(mergeCacheHints([{ ttlMs: 0, cacheScope: 'public' }, { ttlMs: 10, cacheScope: 'public' }], hints), { ttlMs: 0, cacheScope: 'public' });
  });

  test('one member gives its own hints', () => {
    assert.deepEqual(mergeCacheHints([{ ttlMs: 7, cacheScope: 'public' }], hints), { ttlMs: 7, cacheScope: 'public' });
  });

  test('an empty list gives the fallback', () => {
    assert.equal(mergeCacheHints([], hints), hints);
  });
});

describe('cacheHintsOf: the hints a result carries, when valid', () => {
  test('reads valid hints', () => {
    assert.deepEqual(cacheHintsOf(frozen({ tools: [], ttlMs: 1000, cacheScope: 'public' })), { ttlMs: 1000, cacheScope: 'public' });
    assert.deepEqual(cacheHintsOf(frozen({ ttlMs: 0, cacheScope: 'private' })), { ttlMs: 0, cacheScope: 'private' });
  });

  test('a negative integer ttlMs counts as 0', () => {
    assert.deepEqual(cacheHintsOf(frozen({ ttlMs: -30, cacheScope: 'public' })), { ttlMs: 0, cacheScope: 'public' });
  });

  test('undefined when either is missing or invalid: float, NaN, Infinity, string, null ttl; unknown scope', () => {
    assert.equal(cacheHintsOf(frozen({})), undefined);
    assert.equal(cacheHintsOf(frozen({ cacheScope: 'public' })), undefined);
    assert.equal(cacheHintsOf(frozen({ ttlMs: 10 })), undefined);
    for (const ttlMs of [1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '10', null, [10], {}]) {
      assert.equal(cacheHintsOf(frozen({ ttlMs, cacheScope: 'public' })), undefined, String(ttlMs));
    }
    for (const cacheScope of ['Public', 'shared', '', null, 0, ['public']]) {
      assert.equal(cacheHintsOf(frozen({ ttlMs: 10, cacheScope })), undefined, String(cacheScope));
    }
  });

  test('reads what toStatelessResult wrote', () => {
    assert.deepEqual(cacheHintsOf(toStatelessResult('tools/list', frozen({ tools: [] }), hints)), hints);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import type { McpError } from '../errors/mcp-error.js';
import type { JsonObject } from '../message/jsonrpc.js';
import { claimsStatelessEra, ENVELOPE_META, readStatelessEnvelope } from './stateless-envelope.js';
import { STATELESS_ERA_VERSIONS } from './versions.js';

const envelope = (meta: JsonObject): JsonObject => ({ name: 'echo', _meta: meta });
const full = {
  [ENVELOPE_META.protocolVersion]: '2026-07-28',
  [ENVELOPE_META.clientCapabilities]: { sampling: {} },
  [ENVELOPE_META.clientInfo]: { name: 'c', version: '1' },
  [ENVELOPE_META.logLevel]: 'debug',
};

function refusal(run: () => unknown): McpError {
  try {
    run();
  } catch (error) {
    return error as McpError;
  }
  assert.fail('expected an McpError');
}

describe('claimsStatelessEra: a request of the stateless era names its protocol version in _meta', () => {
  test('it does with the key (whatever its value: a bad one is refused later, not taken for the session era)', () => {
    assert.equal(claimsStatelessEra(envelope(full)), true);
    assert.equal(claimsStatelessEra(envelope({ [ENVELOPE_META.protocolVersion]: 42 })), true);
  });
  test('it does not without it: no params, no _meta, a _meta of the session era (progressToken only), an array', () => {
    assert.equal(claimsStatelessEra(undefined), false);
    assert.equal(claimsStatelessEra({ name: 'echo' }), false);
    assert.equal(claimsStatelessEra(envelope({ progressToken: 1 })), false);
    assert.equal(claimsStatelessEra({ _meta: [] as unknown as JsonObject }), false);
  });
});

describe('readStatelessEnvelope', () => {
  test('reads the version, the capabilities, the client and the log level', () => {
    assert.deepEqual(readStatelessEnvelope(envelope(full), STATELESS_ERA_VERSIONS), {
      protocolVersion: '2026-07-28',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'c', version: '1' },
      logLevel: 'debug',
    });
  });

  test('serves a request without clientInfo or logLevel (servers MUST NOT require clientInfo)', () => {
    const read = readStatelessEnvelope(envelope({ [ENVELOPE_META.protocolVersion]: '2026-07-28', [ENVELOPE_META.clientCapabilities]: {} }), STATELESS_ERA_VERSIONS);
    assert.equal(read.clientInfo, undefined);
    assert.equal(read.logLevel, undefined);
  });

  test('a missing _meta or required key is -32602, naming what is missing', () => {
    const noMeta = refusal(() => readStatelessEnvelope({ name: 'x' }, STATELESS_ERA_VERSIONS));
    assert.equal(noMeta.code, ErrorCode.InvalidParams);
    assert.deepEqual(noMeta.data, { envelope: { missing: ['_meta'] } });
    const noCapabilities = refusal(() => readStatelessEnvelope(envelope({ [ENVELOPE_META.protocolVersion]: '2026-07-28' }), STATELESS_ERA_VERSIONS));
    assert.equal(noCapabilities.code, ErrorCode.InvalidParams);
    assert.deepEqual(noCapabilities.data, { envelope: { missing: [ENVELOPE_META.clientCapabilities] } });
  });

  test('a mistyped key is -32602 too, before the version is looked at', () => {
    const bad = refusal(() => readStatelessEnvelope(envelope({ [ENVELOPE_META.protocolVersion]: 7, [ENVELOPE_META.clientCapabilities]: [], [ENVELOPE_META.clientInfo]: 'c', [ENVELOPE_META.logLevel]: 1 }), STATELESS_ERA_VERSIONS));
    assert.equal(bad.code, ErrorCode.InvalidParams);
    assert.deepEqual(bad.data, { envelope: { invalid: Object.values(ENVELOPE_META) } });
  });

  test('a version not served is -32022 with the versions served and the one requested', () => {
    const old = refusal(() => readStatelessEnvelope(envelope({ ...full, [ENVELOPE_META.protocolVersion]: '1900-01-01' }), STATELESS_ERA_VERSIONS));
    assert.equal(old.code, ErrorCode.UnsupportedProtocolVersion);
    assert.equal(old.code, -32022);
    assert.deepEqual(old.data, { supported: ['2026-07-28'], requested: '1900-01-01' });
  });
});

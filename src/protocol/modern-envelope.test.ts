import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../errors/error-code.js';
import type { McpError } from '../errors/mcp-error.js';
import { claimsModernEra, type JsonObject, MODERN_META, MODERN_PROTOCOL_VERSIONS, readModernEnvelope } from './modern-envelope.js';

const envelope = (meta: JsonObject): JsonObject => ({ name: 'echo', _meta: meta });
const full = {
  [MODERN_META.protocolVersion]: '2026-07-28',
  [MODERN_META.clientCapabilities]: { sampling: {} },
  [MODERN_META.clientInfo]: { name: 'c', version: '1' },
  [MODERN_META.logLevel]: 'debug',
};

function refusal(run: () => unknown): McpError {
  try {
    run();
  } catch (error) {
    return error as McpError;
  }
  assert.fail('expected an McpError');
}

describe('claimsModernEra: a request of the stateless era names its protocol version in _meta', () => {
  test('it does with the key (whatever its value: a bad one is refused later, not taken for the session era)', () => {
    assert.equal(claimsModernEra(envelope(full)), true);
    assert.equal(claimsModernEra(envelope({ [MODERN_META.protocolVersion]: 42 })), true);
  });
  test('it does not without it: no params, no _meta, a _meta of the session era (progressToken only), an array', () => {
    assert.equal(claimsModernEra(undefined), false);
    assert.equal(claimsModernEra({ name: 'echo' }), false);
    assert.equal(claimsModernEra(envelope({ progressToken: 1 })), false);
    assert.equal(claimsModernEra({ _meta: [] as unknown as JsonObject }), false);
  });
});

describe('readModernEnvelope', () => {
  test('reads the version, the capabilities, the client and the log level', () => {
    assert.deepEqual(readModernEnvelope(envelope(full), MODERN_PROTOCOL_VERSIONS), {
      protocolVersion: '2026-07-28',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'c', version: '1' },
      logLevel: 'debug',
    });
  });

  test('serves a request without clientInfo or logLevel (servers MUST NOT require clientInfo)', () => {
    const read = readModernEnvelope(envelope({ [MODERN_META.protocolVersion]: '2026-07-28', [MODERN_META.clientCapabilities]: {} }), MODERN_PROTOCOL_VERSIONS);
    assert.equal(read.clientInfo, undefined);
    assert.equal(read.logLevel, undefined);
  });

  test('a missing _meta or required key is -32602, naming what is missing', () => {
    const noMeta = refusal(() => readModernEnvelope({ name: 'x' }, MODERN_PROTOCOL_VERSIONS));
    assert.equal(noMeta.code, ErrorCode.InvalidParams);
    assert.deepEqual(noMeta.data, { envelope: { missing: ['_meta'] } });
    const noCapabilities = refusal(() => readModernEnvelope(envelope({ [MODERN_META.protocolVersion]: '2026-07-28' }), MODERN_PROTOCOL_VERSIONS));
    assert.equal(noCapabilities.code, ErrorCode.InvalidParams);
    assert.deepEqual(noCapabilities.data, { envelope: { missing: [MODERN_META.clientCapabilities] } });
  });

  test('a mistyped key is -32602 too, before the version is looked at', () => {
    const bad = refusal(() => readModernEnvelope(envelope({ [MODERN_META.protocolVersion]: 7, [MODERN_META.clientCapabilities]: [], [MODERN_META.clientInfo]: 'c', [MODERN_META.logLevel]: 1 }), MODERN_PROTOCOL_VERSIONS));
    assert.equal(bad.code, ErrorCode.InvalidParams);
    assert.deepEqual(bad.data, { envelope: { invalid: Object.values(MODERN_META) } });
  });

  test('a version not served is -32022 with the versions served and the one requested', () => {
    const old = refusal(() => readModernEnvelope(envelope({ ...full, [MODERN_META.protocolVersion]: '1900-01-01' }), MODERN_PROTOCOL_VERSIONS));
    assert.equal(old.code, ErrorCode.UnsupportedProtocolVersion);
    assert.equal(old.code, -32022);
    assert.deepEqual(old.data, { supported: ['2026-07-28'], requested: '1900-01-01' });
  });
});

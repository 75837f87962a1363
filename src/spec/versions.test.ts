import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  isSupportedVersion,
  supportsBatches,
} from './index.js';
import type { ProtocolVersion } from './index.js';

describe('protocol versions', () => {
  it('lists the supported revisions newest first, latest first of all', () => {
    assert.deepEqual(SUPPORTED_PROTOCOL_VERSIONS, ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
    assert.equal(SUPPORTED_PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
    const sorted = [...SUPPORTED_PROTOCOL_VERSIONS].sort().reverse();
    assert.deepEqual(sorted, [...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  it('isSupportedVersion accepts exactly the supported revisions', () => {
    for (const v of SUPPORTED_PROTOCOL_VERSIONS) assert.equal(isSupportedVersion(v), true, v);
    for (const v of ['2026-07-28', '2024-10-07', '', '2025-11-25 ', 'latest']) {
      assert.equal(isSupportedVersion(v), false, v);
    }
    for (const v of [undefined, null, 20251125, ['2025-11-25'], { v: '2025-11-25' }]) {
      assert.equal(isSupportedVersion(v), false, String(v));
    }
  });

  it('isSupportedVersion narrows to ProtocolVersion', () => {
    const v: unknown = '2025-06-18';
    if (!isSupportedVersion(v)) assert.fail('expected a supported version');
    const narrowed: ProtocolVersion = v;
    assert.equal(narrowed, '2025-06-18');
  });

  it('supportsBatches is true only for 2025-03-26', () => {
    assert.equal(supportsBatches('2025-03-26'), true);
    for (const v of ['2024-11-05', '2025-06-18', '2025-11-25', '2026-07-28', '']) {
      assert.equal(supportsBatches(v), false, v);
    }
  });
});

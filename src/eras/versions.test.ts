import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  LATEST_SESSION_ERA_VERSION,
  LATEST_STATELESS_ERA_VERSION,
  SERVED_VERSIONS,
  SESSION_ERA_VERSIONS,
  STATELESS_ERA_VERSIONS,
  isSessionEraVersion,
  isStatelessEraVersion,
  negotiateVersion,
  supportsBatches,
  supportsPriming,
  type SessionEraVersion,
} from './versions.js';

describe('protocol versions', () => {
  it('lists each era newest first, its latest first of all', () => {
    assert.deepEqual(SESSION_ERA_VERSIONS, ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    assert.deepEqual(STATELESS_ERA_VERSIONS, ['2026-07-28']);
    assert.equal(SESSION_ERA_VERSIONS[0], LATEST_SESSION_ERA_VERSION);
    assert.equal(STATELESS_ERA_VERSIONS[0], LATEST_STATELESS_ERA_VERSION);
    for (const list of [SESSION_ERA_VERSIONS, STATELESS_ERA_VERSIONS, SERVED_VERSIONS]) {
      assert.deepEqual([...list].sort().reverse(), [...list]);
    }
  });

  it('serves the two eras and nothing else', () => {
    assert.deepEqual(SERVED_VERSIONS, [...STATELESS_ERA_VERSIONS, ...SESSION_ERA_VERSIONS]);
  });

  it('isSessionEraVersion accepts exactly the session-era revisions, isStatelessEraVersion the stateless ones', () => {
    for (const v of SESSION_ERA_VERSIONS) assert.equal(isSessionEraVersion(v), true, v);
    for (const v of STATELESS_ERA_VERSIONS) assert.equal(isStatelessEraVersion(v), true, v);
    for (const v of ['2026-07-28', '2024-10-07', '', '2025-11-25 ', 'latest']) {
      assert.equal(isSessionEraVersion(v), false, v);
    }
    for (const v of ['2025-11-25', '2026-07-29', '', ' 2026-07-28', 'latest']) {
      assert.equal(isStatelessEraVersion(v), false, v);
    }
    for (const v of [undefined, null, 20251125, ['2025-11-25'], { v: '2025-11-25' }]) {
      assert.equal(isSessionEraVersion(v), false, String(v));
      assert.equal(isStatelessEraVersion(v), false, String(v));
    }
  });

  it('isSessionEraVersion narrows to SessionEraVersion', () => {
    const v: unknown = '2025-06-18';
    if (!isSessionEraVersion(v)) assert.fail('expected a supported version');
    const narrowed: SessionEraVersion = v;
    assert.equal(narrowed, '2025-06-18');
  });

  it('negotiateVersion offers the version asked for when served, else the latest of the session era', () => {
    for (const v of SESSION_ERA_VERSIONS) assert.equal(negotiateVersion(v), v);
    for (const v of ['2026-07-28', '2024-10-07', '', 'latest']) assert.equal(negotiateVersion(v), LATEST_SESSION_ERA_VERSION, v);
  });

  it('supportsPriming is true from 2025-11-25 on', () => {
    for (const v of ['2025-11-25', '2026-07-28']) assert.equal(supportsPriming(v), true, v);
    for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '']) assert.equal(supportsPriming(v), false, v);
  });

  it('supportsBatches is true only for 2025-03-26', () => {
    assert.equal(supportsBatches('2025-03-26'), true);
    for (const v of ['2024-11-05', '2025-06-18', '2025-11-25', '2026-07-28', '']) {
      assert.equal(supportsBatches(v), false, v);
    }
  });
});

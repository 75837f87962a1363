import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findFuzzTargets } from './find-fuzz-targets.js';

// The seeded short run of every fuzz target (`npm run fuzz` runs a million inputs each). The seed
// is fixed so that a failure here replays; the report says how to replay it.
const SEED = 1313;

describe('fuzzing, seeded short run: whatever a peer sends, no crash, no hang, exactly one answer', async () => {
  const targets = await findFuzzTargets();
  test('there are fuzz targets', () => assert.ok(targets.length > 0));
  for (const target of targets) {
    test(`${target.name}: ${target.invariant}`, { timeout: 120_000 }, async () => {
      const report = await target.run({ runs: target.quickRuns, seed: SEED });
      assert.equal(report.failure, undefined, report.failure);
      assert.equal(report.runs, target.quickRuns);
    });
  }
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { calculatePKCECodeChallenge } from 'oauth4webapi';
import { createPkce } from './pkce.js';

describe('createPkce', () => {
  test('the challenge is the S256 of the verifier (the value oauth4webapi computes)', async () => {
    const { verifier, challenge } = createPkce();
    assert.equal(challenge, await calculatePKCECodeChallenge(verifier));
  });

  test('the verifier has the RFC 7636 shape: 43 to 128 unreserved characters', () => {
    const { verifier } = createPkce();
    assert.match(verifier, /^[A-Za-z0-9\-._~]{43,128}$/);
  });

  test('every pair is new', () => {
    const verifiers = new Set(Array.from({ length: 50 }, () => createPkce().verifier));
    assert.equal(verifiers.size, 50);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sessionPrincipal } from './session-principal.js';

describe('sessionPrincipal', () => {
  test('no identity (stdio, an open HTTP front): the person running mcp-chain', () => {
    assert.deepEqual(sessionPrincipal({}), { key: 'local' });
  });

  test('an OAuth user of the front: issuer and subject; a static token: its id; the identity kept for a token exchange', () => {
    const oauth = { id: 'alice', method: 'oauth', issuer: 'https://idp.example' };
    assert.deepEqual(sessionPrincipal({ identity: oauth }), { key: 'https://idp.example alice', identity: oauth });
    const token = { id: 'ci-bot', method: 'bearer' };
    assert.deepEqual(sessionPrincipal({ identity: token }), { key: 'token ci-bot', identity: token });
  });
});

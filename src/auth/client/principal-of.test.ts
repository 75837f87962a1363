import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Identity } from '../../core/session-info.js';
import { principalOf } from './principal-of.js';

const alice: Identity = { id: 'alice', method: 'oauth', issuer: 'https://idp.test', clientId: 'app' };
const ops: Identity = { id: 'ops', method: 'bearer' };

describe('principalOf', () => {
  test('no front identity (stdio, an open HTTP front): the local login', () => {
    assert.deepEqual(principalOf({}, {}), { key: 'local' });
    assert.deepEqual(principalOf(undefined, { grant: 'authorization_code' }), { key: 'local' });
  });

  test('a user of an authenticating front: issuer and subject for OAuth, the token id for static tokens; the identity travels along', () => {
    assert.deepEqual(principalOf({ identity: alice }, {}), { key: 'https://idp.test alice', identity: alice });
    assert.deepEqual(principalOf({ identity: ops }, {}), { key: 'token ops', identity: ops });
    assert.deepEqual(principalOf({ identity: { id: 'bob', method: 'oauth' } }, {}).key, 'token bob', 'an OAuth identity without issuer is keyed by its id');
  });

  test('sharedLogin: every user is the local login; client_credentials: the machine; token exchange: always the user', () => {
    assert.deepEqual(principalOf({ identity: alice }, { sharedLogin: true }), { key: 'local' });
    assert.deepEqual(principalOf({ identity: alice }, { grant: 'client_credentials' }), { key: 'machine' });
    assert.deepEqual(principalOf({}, { grant: 'client_credentials' }), { key: 'machine' });
    assert.deepEqual(principalOf({ identity: alice }, { grant: 'token_exchange', sharedLogin: true }), { key: 'https://idp.test alice', identity: alice });
  });
});

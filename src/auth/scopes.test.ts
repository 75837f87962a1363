import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { missingScopes, parseScopeString, scopesFromClaims } from './scopes.js';

describe('OAuth scopes', () => {
  test('a scope string splits on spaces, keeping order and dropping repeats and empties', () => {
    assert.deepEqual(parseScopeString('tools:read  tools:call tools:read'), ['tools:read', 'tools:call']);
    assert.deepEqual(parseScopeString(''), []);
  });

  test('scope wins over scp; scp may be an array or a string', () => {
    assert.deepEqual(scopesFromClaims({ scope: 'a b', scp: ['c'] }), ['a', 'b']);
    assert.deepEqual(scopesFromClaims({ scp: ['a', 'b', 7, ''] }), ['a', 'b']);
    assert.deepEqual(scopesFromClaims({ scp: 'a b' }), ['a', 'b']);
    assert.deepEqual(scopesFromClaims({ scope: 42 }), []);
    assert.deepEqual(scopesFromClaims({}), []);
  });

  test('the missing scopes are those required and not granted, in the order required', () => {
    assert.deepEqual(missingScopes(['a', 'b'], ['c', 'a', 'd']), ['c', 'd']);
    assert.deepEqual(missingScopes(['a'], []), []);
  });
});

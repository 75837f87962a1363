import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChainError } from '../../errors/chain-error.js';
import { interpolateEnv } from './interpolate-env.js';

describe('interpolateEnv', () => {
  test('replaces ${NAME} with the variable and leaves other text as written', () => {
    assert.equal(interpolateEnv('Bearer ${TOKEN} $X {}', { TOKEN: 't' }, 'header'), 'Bearer t $X {}');
  });

  test('a name every object has (${constructor}, ${__proto__}, ${toString}) is not set unless the environment sets it', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const env of [{}, process.env]) {
        assert.throws(
          () => interpolateEnv(`\${${name}}`, env, 'header x'),
          (error: unknown) => error instanceof ChainError && error.message === `header x refers to \${${name}}, which is not set in the environment`,
        );
      }
    }
    assert.equal(interpolateEnv('${constructor}', { constructor: 'set' }, 'header'), 'set');
  });
});

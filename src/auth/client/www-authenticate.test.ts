import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBearerChallenge } from './www-authenticate.js';

describe('parseBearerChallenge', () => {
  test('reads the parameters MCP servers send (RFC 6750 section 3, RFC 9728 section 5.1)', () => {
    const challenge = parseBearerChallenge(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"',
    );
    assert.deepEqual(challenge, {
      scheme: 'Bearer',
      error: undefined,
      errorDescription: undefined,
      scope: 'files:read files:write',
      resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource',
      realm: undefined,
    });
  });

  test('error, error_description and realm; token values without quotes', () => {
    const challenge = parseBearerChallenge('Bearer realm=example, error=invalid_token, error_description="The access token expired"');
    assert.equal(challenge?.realm, 'example');
    assert.equal(challenge?.error, 'invalid_token');
    assert.equal(challenge?.errorDescription, 'The access token expired');
  });

  test('quoted strings keep commas and equals signs and unescape backslashes', () => {
    const challenge = parseBearerChallenge('Bearer error_description="a, b=c \\"quoted\\" \\\\ end", scope="x"');
    assert.equal(challenge?.errorDescription, 'a, b=c "quoted" \\ end');
    assert.equal(challenge?.scope, 'x');
  });

  test('the scheme and parameter names are case-insensitive; the first of a repeated parameter wins', () => {
    const challenge = parseBearerChallenge('bEaReR SCOPE="a", Scope="b", Error = "insufficient_scope"');
    assert.equal(challenge?.scheme, 'bEaReR');
    assert.equal(challenge?.scope, 'a');
    assert.equal(challenge?.error, 'insufficient_scope');
  });

  test('several challenges in one header: the Bearer one is picked, wherever it is', () => {
    const header = 'Basic realm="basic, realm", Negotiate abc123==, Bearer error="insufficient_scope", scope="admin", DPoP algs="ES256"';
    const challenge = parseBearerChallenge(header);
    assert.equal(challenge?.error, 'insufficient_scope');
    assert.equal(challenge?.scope, 'admin');
    assert.equal(challenge?.realm, undefined);
  });

  test('a Bearer challenge after one with a token68 and one without parameters', () => {
    assert.equal(parseBearerChallenge('Negotiate a/b+c==, Basic, Bearer scope="s"')?.scope, 's');
  });

  test('a bare Bearer challenge has no parameters', () => {
    assert.deepEqual(parseBearerChallenge('Bearer'), {
      scheme: 'Bearer',
      error: undefined,
      errorDescription: undefined,
      scope: undefined,
      resourceMetadata: undefined,
      realm: undefined,
    });
  });

  test('no header, an empty one, or one without Bearer: undefined', () => {
    assert.equal(parseBearerChallenge(undefined), undefined);
    assert.equal(parseBearerChallenge(''), undefined);
    assert.equal(parseBearerChallenge('Basic realm="x"'), undefined);
    assert.equal(parseBearerChallenge('Bearerish scope="x"'), undefined);
  });

  test('an unterminated quoted string runs to the end of the header', () => {
    assert.equal(parseBearerChallenge('Bearer scope="a b')?.scope, 'a b');
  });

  test('garbage around a challenge is skipped', () => {
    const challenge = parseBearerChallenge(',,, ==@@ "junk", Bearer ;;; , scope="x", =y, error=bad');
    assert.equal(challenge?.scope, 'x');
    assert.equal(challenge?.error, 'bad');
  });

  test('never throws, whatever the header holds', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = 'Bearer scope="\\,= \t\'abc;:/+-_~"error';
    for (let i = 0; i < 2_000; i++) {
      let header = i % 2 === 0 ? 'Bearer ' : '';
      const length = Math.floor(random() * 60);
      for (let j = 0; j < length; j++) header += alphabet.charAt(Math.floor(random() * alphabet.length));
      const challenge = parseBearerChallenge(header);
      if (challenge !== undefined) assert.equal(challenge.scheme.toLowerCase(), 'bearer');
    }
  });
});

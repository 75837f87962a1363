import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChainError } from '../../errors/chain-error.js';
import { BUILTIN_DETECTOR_NAMES, luhn } from './detectors.js';
import { createRedactor, MAX_REDACT_DEPTH, redactValue, type RedactorOptions } from './redactor.js';

const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB',
  'aFDrBz9vFqU4yZ7Vqk3dHcBGXAXqcX8m1P1Y2xS7+9y9bZXmB6XPpxW5CQ==',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

/** Secrets that must be masked: input, and what it becomes. */
const MASKED: readonly (readonly [string, string])[] = [
  ['key AKIAIOSFODNN7EXAMPLE here', 'key [REDACTED:aws-access-key-id] here'],
  ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [REDACTED:aws-secret-access-key]'],
  ['{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}', '{"SecretAccessKey": "[REDACTED:aws-secret-access-key]"}'],
  [`token ghp_${'A1b2'.repeat(9)}.`, 'token [REDACTED:github-token].'],
  [`gho_${'x9Y8'.repeat(9)}`, '[REDACTED:github-token]'],
  ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', '[REDACTED:github-token]'],
  ['SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'SLACK=[REDACTED:slack-token]'],
  ['xoxp-1234567890-abcdefghij', '[REDACTED:slack-token]'],
  ['sk_live_4eC39HqLyjWDarjtT1zdp7dc and rk_live_4eC39HqLyjWDarjtT1zdp7dc', '[REDACTED:stripe-key] and [REDACTED:stripe-key]'],
  ['OPENAI_API_KEY=sk-Ab3dEf6hIj9lMn2pQr5tUv8xYz1AbCdEfGhIjKl', 'OPENAI_API_KEY=[REDACTED:openai-key]'],
  ['sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8x_Yz1-AbCdEfGhIjKl', '[REDACTED:openai-key]'],
  ['sk-ant-api03-Ab3dEf6hIj9lMn2pQr5tUv8xYz1AbCdEfGhIjKl-xyzAA', '[REDACTED:anthropic-key]'],
  ['maps AIzaSy0123456789abcdefghijklmnopqrstuvw!', 'maps [REDACTED:google-api-key]!'],
  ['Authorization: Bearer abc123def456ghi789jkl', 'Authorization: Bearer [REDACTED:bearer-token]'],
  ['curl -H "authorization: bearer 0123456789abcdef0123456789abcdef"', 'curl -H "authorization: bearer [REDACTED:bearer-token]"'],
  [`jwt=${JWT};`, 'jwt=[REDACTED:jwt];'],
  ['none: eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.', 'none: [REDACTED:jwt]'],
  ['write to alice.smith+work@mail.example.co.uk.', 'write to [REDACTED:email].'],
  ['<bob@example.com>', '<[REDACTED:email]>'],
  ['card 4111 1111 1111 1111 ok', 'card [REDACTED:credit-card] ok'],
  ['card 4111-1111-1111-1111', 'card [REDACTED:credit-card]'],
  ['4111111111111111', '[REDACTED:credit-card]'],
  ['amex 378282246310005 / 3782 822463 10005', 'amex [REDACTED:credit-card] / [REDACTED:credit-card]'],
  ['mc 5555555555554444, discover 6011111111111117, visa13 4222222222222', 'mc [REDACTED:credit-card], discover [REDACTED:credit-card], visa13 [REDACTED:credit-card]'],
  [`before\n${PEM}\nafter`, 'before\n[REDACTED:private-key]\nafter'],
  ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ==\n-----END OPENSSH PRIVATE KEY-----', '[REDACTED:private-key]'],
  ['cut: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'cut: [REDACTED:private-key]'],
  [
    '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\nMIIEowIBAAKCAQEA0Z3V\n-----END RSA PRIVATE KEY----- done',
    '[REDACTED:private-key] done',
  ],
  ['-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2 (x)\n\nlQOYBF0=\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----', '[REDACTED:private-key]'],
  ['two: a@b.io, c@d.org', 'two: [REDACTED:email], [REDACTED:email]'],
];

/** Look-alikes that must be left as they are. */
const KEPT: readonly string[] = [
  'order 4111111111111112 (fails Luhn)',
  'ids 4111 1111 1111 1112 and 1234567890123456',
  'a timestamp 1700000000000 and a float 0.4111111111111111',
  'phone +1 415 555 0100, zip 94103, years 2021 2022 2023 2024',
  'we use sk-learn, and sk-like-this-hyphenated-prose-is-fine',
  'user@localhost and bob@example and @handle and a@b',
  'version 1.2.3, node v20.11.1, 4.111.111.1111',
  'ghp_short and github_pat_tooShort',
  'Bearer of bad news; bearer authentication scheme',
  'AKIAIOSFODNN7 is too short',
  'eyJub3QiOiJhIGp3dCJ9.eyJ4IjoxfQ.c2ln (a header without alg)',
  'uuid 123e4567-e89b-12d3-a456-426614174000',
  'commit da39a3ee5e6b4b0d3255bfef95601890afd80709 (40 hex, no label)',
  '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
  'xoxb- alone, sk_live_ alone, AIza alone',
  '',
];

describe('createRedactor: the built-in detectors', () => {
  const redactor = createRedactor();

  for (const [input, expected] of MASKED) {
    test(`masks ${JSON.stringify(input.slice(0, 48))}`, () => {
      assert.equal(redactor.text(input), expected);
    });
  }

  for (const input of KEPT) {
    test(`keeps ${JSON.stringify(input.slice(0, 48))}`, () => {
      assert.equal(redactor.text(input), input);
    });
  }

  test('Luhn: the test numbers of the card networks pass, one digit off fails, and 13 to 19 digits only', () => {
    for (const number of ['4111111111111111', '378282246310005', '5555555555554444', '6011111111111117', '4222222222222']) assert.ok(luhn(number), number);
    for (const number of ['4111111111111112', '378282246310006', '0000000000', '0'.repeat(20)]) assert.ok(!luhn(number), number);
  });

  test('every built-in detector is on by default', () => {
    assert.deepEqual(redactor.detectors, [...BUILTIN_DETECTOR_NAMES]);
  });
});

describe('createRedactor: options', () => {
  test('only the detectors listed are used', () => {
    const emails = createRedactor({ detectors: ['email'] });
    assert.equal(emails.text('bob@example.com 4111111111111111'), '[REDACTED:email] 4111111111111111');
    assert.equal(createRedactor({ detectors: [] }).text('bob@example.com'), 'bob@example.com');
  });

  test('custom detectors: a string or a RegExp, case-insensitive on request, after the built-in ones', () => {
    const redactor = createRedactor({
      detectors: ['email'],
      custom: [
        { name: 'pair', pattern: '(?<key>pin)=(\\d+)' },
        { name: 'ticket', pattern: 'ACME-\\d{6}' },
        { name: 'codename', pattern: 'project\\s+\\p{Lu}\\w+', ignoreCase: true },
        { name: 'badge', pattern: /badge#\d+/i },
      ],
    });
    assert.equal(
      redactor.text('ACME-123456 acme-123456 PROJECT Falcon BADGE#42 bob@example.com pin=1234'),
      '[REDACTED:ticket] acme-123456 [REDACTED:codename] [REDACTED:badge] [REDACTED:email] [REDACTED:pair]',
    );
  });

  test('the mask format, with {name}', () => {
    assert.equal(createRedactor({ mask: '***' }).text('bob@example.com'), '***');
    assert.equal(createRedactor({ mask: '<{name} removed>' }).text('x bob@example.com'), 'x <email removed>');
  });

  test('invalid options are refused with a ChainError naming the detector', () => {
    const refused = (options: RedactorOptions, message: RegExp): void => {
      assert.throws(() => createRedactor(options), (error: unknown) => {
        assert.ok(error instanceof ChainError);
        assert.equal(error.code, 'CONFIG');
        assert.match(error.message, message);
        return true;
      });
    };
    refused({ detectors: ['emial' as 'email'] }, /unknown detector "emial"; the built-in ones are private-key, jwt/);
    refused({ custom: [{ name: 'x', pattern: '(' }] }, /detector "x": invalid pattern/);
    refused({ custom: [{ name: 'x', pattern: 'a*' }] }, /detector "x": the pattern matches the empty string/);
    refused({ custom: [{ name: 'x', pattern: '(a)\\1' }] }, /detector "x": backreferences/);
    refused({ custom: [{ name: 'x', pattern: /a/m }] }, /detector "x": flags "m"/);
    refused({ custom: [{ name: 'has space', pattern: 'a' }] }, /"has space" is not a valid detector name/);
    refused({ custom: [{ name: 'a', pattern: '(?<g>a)' }, { name: 'b', pattern: '(?<g>b)' }] }, /cannot be combined/);
  });
});

describe('redactValue', () => {
  test('masks strings at any depth, keeps keys, numbers and untouched branches, never mutates', () => {
    const untouched = { n: 1, list: ['plain'] };
    const input = { user: { email: 'bob@example.com', tags: ['x', 'token ghp_' + 'A1b2'.repeat(9)] }, untouched, ok: true };
    const frozen = structuredClone(input);
    const out = redactValue(input);
    assert.deepEqual(out, { user: { email: '[REDACTED:email]', tags: ['x', 'token [REDACTED:github-token]'] }, untouched, ok: true });
    assert.equal(out.untouched, untouched);
    assert.deepEqual(input, frozen);
  });

  test('a value with nothing to mask is the same value', () => {
    const value = { a: ['b', { c: 'd' }], e: null };
    assert.equal(redactValue(value), value);
    assert.equal(redactValue('plain'), 'plain');
    assert.equal(redactValue(42), 42);
  });

  test(`a value nested deeper than ${MAX_REDACT_DEPTH} levels: the deep part is replaced by [REDACTED:depth], never passed unread, and nothing throws`, () => {
    let deep: unknown = 'bob@example.com';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    let out = redactValue({ deep }) as { deep: unknown };
    let levels = 0;
    while (Array.isArray(out.deep)) {
      out = { deep: (out.deep as unknown[])[0] };
      levels++;
    }
    assert.equal(levels, MAX_REDACT_DEPTH - 1);
    assert.equal(out.deep, '[REDACTED:depth]');
    const shallow = [[['bob@example.com']]];
    assert.deepEqual(redactValue(shallow), [[['[REDACTED:email]']]]);
  });

  test('with a redactor of its own', () => {
    const redactor = createRedactor({ detectors: [], custom: [{ name: 'pin', pattern: 'PIN \\d{4}' }] });
    assert.deepEqual(redactValue({ note: 'PIN 1234 bob@example.com' }, redactor), { note: '[REDACTED:pin] bob@example.com' });
  });

  test('one pass stays linear on long text with nothing to mask', () => {
    const redactor = createRedactor();
    const long = `${'a'.repeat(200_000)} ${'1'.repeat(100_000)} ${'x.'.repeat(50_000)} ${'4111 '.repeat(50_000)} ${'eyJhbGci.'.repeat(20_000)}`;
    assert.equal(redactor.text(long), long);
    const begins = '-----BEGIN PRIVATE KEY-----!'.repeat(20_000);
    assert.equal(redactor.text(begins), '[REDACTED:private-key]!'.repeat(20_000));
  });
});

import fc from 'fast-check';
import { parseBearerChallenge, type BearerChallenge } from '../../src/auth/client/www-authenticate.js';
import { defineFuzzTarget } from './fuzz-target.js';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Characters a header value may hold (no CR, LF or NUL: HTTP refuses those), with the ones that matter to the grammar. */
const headerChar = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('"', '\\', ',', '=', ' ', '\t', ';', ':', '/', 'a', 'B', '0', '-', '~', '+', '=', 'é', '€') },
  { weight: 2, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)) },
);
const headerText = fc.string({ unit: headerChar, maxLength: 40 });

/** The Bearer parameters the parser reports, under their wire names. */
const WIRE_NAMES = { error: 'error', errorDescription: 'error_description', scope: 'scope', resourceMetadata: 'resource_metadata', realm: 'realm' } as const;
type Field = keyof typeof WIRE_NAMES;

interface Built {
  readonly header: string;
  readonly scheme: string;
  readonly params: Partial<Record<Field, string>>;
}

/** A name in random case (parameter names and schemes are case-insensitive). */
function randomCase(name: string, bits: readonly boolean[]): string {
  return [...name].map((c, i) => ((bits[i % Math.max(1, bits.length)] ?? false) ? c.toUpperCase() : c)).join('');
}

/** A value as a token when it is one and `asToken`, else as a quoted-string with `"` and `\` escaped. */
function spell(value: string, asToken: boolean): string {
  return asToken && TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, (c) => '\\' + c)}"`;
}

const bws = fc.constantFrom('', ' ', '\t', ' \t ');

/** Challenges of other schemes, with parameters that share names with Bearer's. */
const otherChallenge = fc.constantFrom(
  'Basic realm="a, b \\"c\\""',
  'Negotiate abc==',
  'Negotiate',
  'Digest realm="x", nonce="y, z", qop="auth"',
  'DPoP algs="ES256 PS256", error="use_dpop_nonce"',
  'Newauth realm="apps", type=1, title="Login to \\"apps\\""',
  'Basic scope="not this", resource_metadata="https://evil.example/x"',
);

const built: fc.Arbitrary<Built> = fc
  .record({
    schemeBits: fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
    params: fc.array(fc.tuple(fc.constantFrom<Field>('error', 'errorDescription', 'scope', 'resourceMetadata', 'realm'), fc.oneof(headerText, fc.constantFrom('invalid_token', 'read write', 'https://rs.example/.well-known/oauth-protected-resource', ''))), { maxLength: 6 }),
    extra: fc.array(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), headerText), { maxLength: 2 }),
    nameBits: fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
    asToken: fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
    spaces: fc.array(fc.tuple(bws, bws, fc.constantFrom(',', ', ', ' ,', ' , ', ',,')), { minLength: 1, maxLength: 6 }),
    before: fc.array(otherChallenge, { maxLength: 2 }),
    after: fc.array(otherChallenge, { maxLength: 2 }),
  })
  .map(({ schemeBits, params, extra, nameBits, asToken, spaces, before, after }) => {
    const scheme = randomCase('bearer', schemeBits);
    const seen = new Set<string>();
    const wanted: Partial<Record<Field, string>> = {};
    const parts: string[] = [];
    const all: Array<[string, string]> = [
      ...params.map(([field, value]): [string, string] => {
        // The first value of a parameter counts (a repeated one is ignored).
        if (!seen.has(field)) wanted[field] = value;
        seen.add(field);
        return [WIRE_NAMES[field], value];
      }),
      ...extra.filter(([name]) => !Object.values(WIRE_NAMES).includes(name as never)),
    ];
    all.forEach(([name, value], i) => {
      const [left, right] = spaces[i % spaces.length] ?? ['', '', ','];
      parts.push(`${randomCase(name, nameBits)}${left}=${right}${spell(value, asToken[i % asToken.length] ?? false)}`);
    });
    const separator = (i: number): string => spaces[i % spaces.length]?.[2] ?? ',';
    const params_ = parts.reduce((text, part, i) => (i === 0 ? part : text + separator(i) + part), '');
    const bearer = params_ === '' ? scheme : `${scheme} ${params_}`;
    const header = [...before, bearer, ...after].join(', ');
    return { header, scheme, params: wanted };
  });

function checkShape(result: BearerChallenge | undefined, header: string): void {
  if (result === undefined) return;
  for (const [key, value] of Object.entries(result)) {
    if (value !== undefined && typeof value !== 'string') throw new Error(`${key} is ${typeof value} for ${JSON.stringify(header)}`);
  }
  if (result.scheme.toLowerCase() !== 'bearer') throw new Error(`scheme ${result.scheme}`);
}

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'www-authenticate',
    invariant: 'any header text parses to a Bearer challenge of strings or to undefined, never throws; a challenge built from random parameters (any case, token or quoted with escapes, spaces around =, among other schemes\' challenges) reads back exactly',
    arbitrary: fc.oneof(
      { weight: 2, arbitrary: built },
      { weight: 1, arbitrary: fc.oneof(headerText, fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 100 })).map((header): Built | string => header) },
      { weight: 1, arbitrary: built.chain(({ header }) => fc.tuple(fc.nat({ max: Math.max(0, header.length - 1) }), headerChar).map(([at, c]) => header.slice(0, at) + c + header.slice(at + 1))) },
      { weight: 1, arbitrary: fc.constantFrom('Bearer ' + 'a=", '.repeat(4000), 'Bearer ' + ',' .repeat(16000), 'a '.repeat(8000), 'Bearer realm="' + '\\'.repeat(16000), 'x=y '.repeat(4000) + 'Bearer scope=s') },
    ),
    quickRuns: 1500,
    open: () => ({
      check(input: Built | string) {
        if (typeof input === 'string') {
          checkShape(parseBearerChallenge(input), input);
          return;
        }
        const result = parseBearerChallenge(input.header);
        if (result === undefined) throw new Error(`no Bearer challenge read from ${JSON.stringify(input.header)}`);
        checkShape(result, input.header);
        if (result.scheme !== input.scheme) throw new Error(`scheme ${result.scheme}, written ${input.scheme}`);
        for (const field of Object.keys(WIRE_NAMES) as Field[]) {
          if (result[field] !== input.params[field]) {
            throw new Error(`${field} read as ${JSON.stringify(result[field])}, written ${JSON.stringify(input.params[field])} in ${JSON.stringify(input.header)}`);
          }
        }
      },
    }),
  }),
];

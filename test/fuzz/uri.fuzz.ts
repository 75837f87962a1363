import fc from 'fast-check';
import { normalizeUri, uriForms } from '../../src/middleware/filter/normalize-uri.js';
import { uriRule } from '../../src/middleware/filter/uri-rule.js';
import { defineFuzzTarget } from './fuzz-target.js';

/** A name a path segment may have (never a dot segment by itself). */
const segmentName = fc.oneof(
  fc.constantFrom('passwd', 'a', 'x y', 'é', '😀', '.hidden', '..a', 'a..', '...', '%', 'a%zz', '~u', 'C:', 'a;b', '=', '@', '!'),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/),
);

/** A character as a lenient server reads it: literal, or percent-encoded (any hex case, UTF-8 bytes). */
function spellChar(char: string, encode: boolean, upper: boolean): string {
  if (!encode) return char;
  const hex = [...Buffer.from(char)].map((b) => '%' + b.toString(16).padStart(2, '0')).join('');
  return upper ? hex.toUpperCase() : hex;
}

/** `name` with some of its characters percent-encoded (a literal `%` is always encoded: it would start an escape). */
function spellName(name: string, bits: readonly boolean[], upper: boolean): string {
  return [...name].map((c, i) => spellChar(c, c === '%' || (bits[i % Math.max(1, bits.length)] ?? false), upper)).join('');
}

const separator = fc.constantFrom('/', '/', '/', '\\', '%2F', '%2f', '%5C', '%5c', '//', '/./', '/%2e/', '\\.\\');
const dotDot = fc.constantFrom('..', '%2e%2e', '%2E%2E', '.%2e', '%2E.');

/** One step of a spelled path: a segment that stays, or a detour that goes into a name and comes back. */
type Step = { readonly kind: 'name'; readonly name: string } | { readonly kind: 'detour'; readonly into: string; readonly back: string };

/** A path spelled many ways that a lenient server (decoding escapes, `\` and `%2F` as `/`, dot segments resolved) reads as `/<prefix>/<rest>`. */
function spelledPath(prefix: readonly string[]): fc.Arbitrary<{ readonly spelled: string; readonly rest: readonly string[] }> {
  return fc
    .record({
      rest: fc.array(segmentName, { minLength: 1, maxLength: 4 }),
      detours: fc.array(fc.tuple(fc.nat(), segmentName, dotDot), { maxLength: 3 }),
      separators: fc.array(separator, { minLength: 1, maxLength: 12 }),
      bits: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
      upper: fc.boolean(),
      trailing: fc.boolean(),
    })
    .map(({ rest, detours, separators, bits, upper, trailing }) => {
      const steps: Step[] = [...prefix, ...rest].map((name) => ({ kind: 'name', name }));
      for (const [at, into, back] of detours) steps.splice(at % (steps.length + 1), 0, { kind: 'detour', into, back });
      const sep = (i: number): string => separators[i % separators.length] ?? '/';
      let spelled = '';
      let i = 0;
      for (const step of steps) {
        if (step.kind === 'name') spelled += sep(i++) + spellName(step.name, bits, upper);
        else spelled += sep(i++) + spellName(step.into, bits, upper) + sep(i++) + step.back;
      }
      return { spelled: spelled + (trailing ? '/' : ''), rest };
    });
}

/** Ways to write the start of a file uri with an empty (or localhost) authority. */
const fileStart = fc.constantFrom('file://', 'FILE://', 'File://', 'file://localhost', 'file://LOCALHOST', 'file://LocalHost', 'file:', 'FILE:', 'file:///');
const httpStart = fc.constantFrom('http://example.com', 'HTTP://EXAMPLE.COM', 'http://Example.Com:80', 'http://example.com:', 'http://example.com:080', 'Http://%65xample.com', 'http://example.com:0080');

interface RuleCase {
  readonly rule: 'deny' | 'allow-escape';
  readonly pattern: string;
  readonly uri: string;
}

/** A deny for a prefix and a spelling of a uri under it; or an allow for a folder and a spelling that resolves outside it. */
const ruleCase: fc.Arbitrary<RuleCase> = fc.oneof(
  fc.tuple(fileStart, spelledPath(['etc'])).map(([start, { spelled }]): RuleCase => ({ rule: 'deny', pattern: 'file:///etc/**', uri: join(start, spelled) })),
  fc.tuple(fileStart, spelledPath(['srv', 'secret'])).map(([start, { spelled }]): RuleCase => ({ rule: 'deny', pattern: 'FILE:///srv/%73ecret/*', uri: join(start, spelled) })),
  fc.tuple(httpStart, spelledPath(['admin'])).map(([start, { spelled }]): RuleCase => ({ rule: 'deny', pattern: 'http://example.com/admin/**', uri: join(start, spelled) })),
  // `/allowed/../etc/…`: under /allowed by its spelling, outside it as a server reads it.
  fc.tuple(fileStart, spelledPath(['allowed', '..', 'etc'])).map(([start, { spelled }]): RuleCase => ({ rule: 'allow-escape', pattern: 'file:///allowed/**', uri: join(start, spelled) })),
);

const none = (): readonly string[] => [];

/** `start` + `path`, where a path after a bare `file:` may not begin with `//` (that would start an authority). */
function join(start: string, path: string): string {
  return start.endsWith(':') && path.startsWith('//') ? start + path.slice(1) : start + path;
}

export const fuzzTargets = [
  defineFuzzTarget({
    name: 'uri-normalize',
    invariant: 'normalizing any string never throws, and normalizing twice gives what normalizing once gave (normal and decoded forms)',
    arbitrary: fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: fc.constantFrom('/', '.', '%', '2', 'e', 'E', 'f', 'F', '5', 'c', '\\', ':', '@', '?', '#', '[', ']', 'a', 'é'), maxLength: 40 }).map((s) => 'file://' + s),
      fc.tuple(fc.constantFrom('file:', 'http://h', 'HTTP://H:80', 'a:', '', '//'), fc.string({ unit: fc.constantFrom('/', '.', '..', '%2e', '%2f', '%5c', '\\', 'x', '%', '%41', '%e9', '%C3%A9', '?', '#'), maxLength: 20 })).map(([a, b]) => a + b),
    ),
    quickRuns: 3000,
    open: () => ({
      check(uri: string) {
        const normal = normalizeUri(uri);
        if (typeof normal !== 'string') throw new Error('not a string');
        const again = normalizeUri(normal);
        if (again !== normal) throw new Error(`not idempotent: ${JSON.stringify(uri)} → ${JSON.stringify(normal)} → ${JSON.stringify(again)}`);
        const { decoded } = uriForms(uri);
        const decodedAgain = uriForms(decoded).decoded;
        if (decodedAgain !== decoded) throw new Error(`decoded form not idempotent: ${JSON.stringify(uri)} → ${JSON.stringify(decoded)} → ${JSON.stringify(decodedAgain)}`);
      },
    }),
  }),
  defineFuzzTarget({
    name: 'uri-rule',
    invariant: 'a deny for a prefix matches every spelling a lenient server reads as under it (case, localhost, default ports, escapes, encoded dots and slashes, backslashes), and an allow for a folder never lets out a spelling that resolves outside it',
    arbitrary: ruleCase,
    quickRuns: 2000,
    open: () => ({
      check({ rule, pattern, uri }: RuleCase) {
        const forms = uriForms(uri);
        if (rule === 'deny') {
          const deny = uriRule({ deny: [pattern] });
          if (deny.byUri(forms) !== false || deny.visible(forms, none)) throw new Error(`${JSON.stringify(uri)} slipped past deny ${pattern} (forms ${JSON.stringify(forms)})`);
        } else {
          const allow = uriRule({ allow: [pattern] });
          if (allow.byUri(forms) === true || allow.visible(forms, none)) throw new Error(`${JSON.stringify(uri)} allowed by ${pattern} though it resolves outside (forms ${JSON.stringify(forms)})`);
        }
      },
    }),
  }),
];

/**
 * @module
 * `createRedactor`: the detectors compiled once into one regular expression (one per case mode),
 * and the functions that mask what they find in a string or in any JSON value. `redact` uses it on
 * messages; `log` and `audit` can use it on what they write.
 */
import { ChainError } from '../../errors/chain-error.js';
import { BUILTIN_DETECTOR_NAMES, BUILTIN_DETECTORS, type Detector } from './detectors.js';
import type { CustomDetector, RedactorOptions } from './options.js';

export type { CustomDetector, RedactorOptions } from './options.js';

/** Masks what its detectors find. Compiled once; cheap on text with nothing to mask. */
export interface Redactor {
  /** The names of the detectors it uses, in order. */
  readonly detectors: readonly string[];
  /** `text` with every secret masked (the same string when there is none). */
  text(text: string): string;
  /**
   * `value` with every string in it masked, at any depth (object keys are kept). Unchanged parts
   * are the same objects; a value with nothing to mask is returned as it is. Never mutates `value`.
   * What lies deeper than {@link MAX_REDACT_DEPTH} levels cannot be looked at without running out
   * of stack, so it is replaced by the mask named `depth` (`[REDACTED:depth]`): nothing unread
   * passes, and nothing throws.
   */
  value<T>(value: T): T;
}

/** How deep `value` looks into arrays and objects; deeper parts are replaced, never passed unread. */
export const MAX_REDACT_DEPTH = 1000;

/** The default mask. */
export const DEFAULT_MASK = '[REDACTED:{name}]';

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const ALLOWED_FLAGS = /^[giu]*$/;
const BACKREFERENCE = /\\(?:[1-9]|k<)/;

/**
 * Compiles the detectors of `options` into a `Redactor`. Throws a `ChainError` ('CONFIG') for an
 * unknown built-in name, a custom detector with an invalid name or pattern, or one that matches
 * the empty string.
 *
 * @example
 * const redactor = createRedactor({ detectors: ['email', 'github-token'], custom: [{ name: 'ticket', pattern: 'ACME-\\d{6}' }] });
 * redactor.text('mail bob@example.com about ACME-123456'); // 'mail [REDACTED:email] about [REDACTED:ticket]'
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const builtins = (options.detectors ?? BUILTIN_DETECTOR_NAMES).map((name) => {
    if (!Object.hasOwn(BUILTIN_DETECTORS, name)) throw new ChainError('CONFIG', `redact: unknown detector ${JSON.stringify(name)}; the built-in ones are ${BUILTIN_DETECTOR_NAMES.join(', ')}`);
    return BUILTIN_DETECTORS[name];
  });
  const custom = (options.custom ?? []).map(customDetector);
  const all = [...builtins, ...custom];
  const mask = options.mask ?? DEFAULT_MASK;
  const masks = new Map(all.map((detector) => [detector.name, mask.replaceAll('{name}', detector.name)]));
  const passes = [compile(all.filter((d) => d.flags !== 'i'), ''), compile(all.filter((d) => d.flags === 'i'), 'i')].filter(
    (pass): pass is Pass => pass !== undefined,
  );

  const text = (input: string): string => {
    let out = input;
    for (const pass of passes) out = run(pass, out, masks);
    return out;
  };
  const tooDeep = mask.replaceAll('{name}', 'depth');
  const value = <T>(input: T): T => (passes.length === 0 ? input : (deep(input, text, tooDeep, 0) as T));
  return { detectors: all.map((detector) => detector.name), text, value };
}

let fallback: Redactor | undefined;

/**
 * `value` with every string in it masked, at any depth, by `redactor` (default: every built-in
 * detector, the default mask). For what `log` and `audit` write.
 *
 * @example
 * log.info('call', redactValue({ arguments: ctx.message.params?.arguments }, redactor));
 */
export function redactValue<T>(value: T, redactor: Redactor = (fallback ??= createRedactor())): T {
  return redactor.value(value);
}

/** The detectors of one case mode, joined: `(...)|(...)`; `groups[i]` is the capture group that says detector `i` matched. */
interface Pass {
  readonly regex: RegExp;
  readonly detectors: readonly Detector[];
  readonly groups: readonly number[];
}

function compile(detectors: readonly Detector[], flags: string): Pass | undefined {
  if (detectors.length === 0) return undefined;
  const groups: number[] = [];
  let group = 1;
  for (const detector of detectors) {
    groups.push(group);
    // Its own capture groups (custom patterns may have some) come after the one around it.
    group += new RegExp(`(?:${detector.source})|`, 'u').exec('')?.length ?? 1;
  }
  const source = detectors.map((detector) => `(${detector.source})`).join('|');
  try {
    return { regex: new RegExp(source, `gu${flags}`), detectors, groups };
  } catch (error) {
    // Each pattern compiled alone; together they can clash (two custom patterns with the same group name).
    throw new ChainError('CONFIG', `redact: the patterns cannot be combined: ${(error as Error).message}`);
  }
}

/** One pass over `text`: each match masked, a candidate its detector's check rejects left as it is. */
function run(pass: Pass, text: string, masks: ReadonlyMap<string, string>): string {
  const { regex, detectors, groups } = pass;
  regex.lastIndex = 0;
  let out = '';
  let copied = 0;
  let match: RegExpExecArray | null;
  while ((match = regex.exec(text)) !== null) {
    const found = match[0];
    let which = 0;
    while (which < detectors.length - 1 && match[groups[which] ?? 0] === undefined) which++;
    const detector = detectors[which];
    if (found === '' || detector === undefined || (detector.check !== undefined && !detector.check(found))) {
      // Try the other detectors (and shorter candidates) from the next character.
      regex.lastIndex = match.index + 1;
      continue;
    }
    const kept = detector.keep?.(found) ?? 0;
    out += text.slice(copied, match.index + kept) + (masks.get(detector.name) ?? '');
    copied = match.index + found.length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function customDetector(custom: CustomDetector): Detector {
  const { name } = custom;
  if (typeof name !== 'string' || !NAME.test(name)) throw new ChainError('CONFIG', `redact: ${JSON.stringify(name)} is not a valid detector name (letters, digits, ".", "_", "-")`);
  const problem = patternProblem(custom.pattern);
  if (problem !== undefined) throw new ChainError('CONFIG', `redact: detector "${name}": ${problem}`);
  const source = typeof custom.pattern === 'string' ? custom.pattern : custom.pattern.source;
  const ignoreCase = typeof custom.pattern === 'string' ? custom.ignoreCase === true : custom.pattern.flags.includes('i');
  return { name, source, flags: ignoreCase ? 'i' : '' };
}

/**
 * Why `pattern` cannot be a detector's (undefined when it can): not a regular expression, flags
 * other than `g`, `i`, `u`, a backreference, or a match of the empty string.
 */
export function patternProblem(pattern: string | RegExp): string | undefined {
  let regex: RegExp;
  if (typeof pattern === 'string') {
    try {
      regex = new RegExp(pattern, 'u');
    } catch (error) {
      return `invalid pattern: ${(error as Error).message}`;
    }
  } else {
    if (!ALLOWED_FLAGS.test(pattern.flags)) return `flags "${pattern.flags}": only i (and g, u) are allowed`;
    try {
      regex = new RegExp(pattern.source, 'u');
    } catch (error) {
      return `invalid pattern in Unicode mode: ${(error as Error).message}`;
    }
  }
  if (BACKREFERENCE.test(regex.source)) return 'backreferences (\\1, \\k<name>) are not allowed';
  if (new RegExp(`^(?:${regex.source})$`, 'u').test('')) return 'the pattern matches the empty string';
  return undefined;
}

/**
 * `value` with `text` applied to every string in it; the same objects where nothing changed. An
 * array or object deeper than {@link MAX_REDACT_DEPTH} becomes `tooDeep`.
 */
function deep(value: unknown, text: (input: string) => string, tooDeep: string, depth: number): unknown {
  if (typeof value === 'string') return text(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACT_DEPTH) return tooDeep;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const out = deep(item, text, tooDeep, depth + 1);
      if (out !== item) (copy ??= value.slice())[i] = out;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const out = deep(item, text, tooDeep, depth + 1);
    if (out !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = out;
  }
  return copy ?? value;
}

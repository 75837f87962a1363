/**
 * @module
 * The built-in detectors of `redact`: what secrets and personal data look like. Each is a regular
 * expression source (no flags, no numbered groups: they are joined into one expression) and, where
 * a pattern alone would mask look-alikes, a check of the candidate (Luhn, a JWT header that decodes).
 */

/** Something to find in text and mask. */
export interface Detector {
  /** Shown in the mask (`[REDACTED:<name>]`). */
  readonly name: string;
  /** A regular expression source. Named groups only; no backreferences. */
  readonly source: string;
  /** `'i'` to match regardless of case; nothing else. */
  readonly flags?: '' | 'i';
  /** When set, this leading part of a match is kept (a label such as `Bearer `), the rest masked. */
  readonly keep?: (match: string) => number;
  /** When set, a candidate it rejects is left as it is. */
  readonly check?: (match: string) => boolean;
}

/** The names of the built-in detectors, in the order they are tried at one position. */
export const BUILTIN_DETECTOR_NAMES = [
  'private-key',
  'jwt',
  'bearer-token',
  'aws-access-key-id',
  'aws-secret-access-key',
  'github-token',
  'slack-token',
  'stripe-key',
  'anthropic-key',
  'openai-key',
  'google-api-key',
  'email',
  'credit-card',
] as const;

export type BuiltinDetectorName = (typeof BUILTIN_DETECTOR_NAMES)[number];

/** Not preceded by a character that would make the match part of a longer token. */
const START = '(?<![A-Za-z0-9_-])';
/** Not followed by one. */
const END = '(?![A-Za-z0-9_-])';

const PEM_LABEL = '-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----';
const PEM_END = '-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----';

/** The built-in detectors, by name. */
export const BUILTIN_DETECTORS: { readonly [N in BuiltinDetectorName]: Detector } = {
  // The whole block: base64 lines and `Name: value` header lines up to the END line. Linear (no
  // lazy scan for END); a block cut short (no END line) is masked to the end of what looks like its body.
  'private-key': { name: 'private-key', source: `${PEM_LABEL}(?:(?<=\\n)[A-Za-z][A-Za-z0-9-]{0,40}:[^\\n]*|[A-Za-z0-9+/=\\s]|-(?!----))*(?:${PEM_END})?` },
  // Three base64url segments (the signature may be empty: alg "none"); the header must decode to a JSON object with `alg`.
  jwt: { name: 'jwt', source: `${START}e[wy][A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]*${END}`, check: isJwt },
  'bearer-token': {
    name: 'bearer-token',
    source: `(?<![A-Za-z0-9])[Bb]earer[ \\t]+[A-Za-z0-9._~+/-]{16,}=*`,
    keep: (match) => /^[Bb]earer[ \t]+/.exec(match)?.[0].length ?? 0,
    check: (match) => /\d/.test(match),
  },
  'aws-access-key-id': { name: 'aws-access-key-id', source: `${START}(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}${END}` },
  // A 40-character secret only next to its label (`aws_secret_access_key = ...`, `"SecretAccessKey": "..."`): alone it looks like any base64.
  'aws-secret-access-key': {
    name: 'aws-secret-access-key',
    source: `(?<![A-Za-z0-9])(?:[Aa][Ww][Ss]_?)?[Ss][Ee][Cc][Rr][Ee][Tt]_?[Aa][Cc][Cc][Ee][Ss][Ss]_?[Kk][Ee][Yy](?:_?[Ii][Dd])?["']?[ \\t]*[:=][ \\t]*["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])`,
    keep: (match) => match.length - 40,
  },
  'github-token': { name: 'github-token', source: `${START}(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})${END}` },
  'slack-token': { name: 'slack-token', source: `${START}(?:xox[abposre]|xapp)-[0-9A-Za-z-]{10,250}${END}` },
  'stripe-key': { name: 'stripe-key', source: `${START}(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,247}${END}` },
  'anthropic-key': { name: 'anthropic-key', source: `${START}sk-ant-[A-Za-z0-9_-]{20,}` },
  // `sk-` and at least 20 more characters with a digit in them: hyphenated prose (`sk-learn`, `sk-like-this-...`) is not a key.
  'openai-key': { name: 'openai-key', source: `${START}sk-[A-Za-z0-9_-]{20,}`, check: (match) => /\d/.test(match.slice(3)) },
  'google-api-key': { name: 'google-api-key', source: `${START}AIza[0-9A-Za-z_-]{35}${END}` },
  // A local part, `@`, and a domain with at least one dot and a top-level domain of letters.
  email: {
    name: 'email',
    source: '(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.[A-Za-z]{2,63}(?![A-Za-z0-9-])',
  },
  // 13 to 19 digits starting 2–6 (the card networks), together or in groups (4-4-4-4, 4-6-5) by spaces or dashes, passing Luhn.
  'credit-card': {
    name: 'credit-card',
    source: '(?<![0-9.,-])[2-6](?:[0-9]{12,18}|[0-9]{3}(?:[ -][0-9]{4}){2}[ -][0-9]{1,4}(?:[ -][0-9]{1,3})?|[0-9]{3}[ -][0-9]{6}[ -][0-9]{4,5})(?![0-9]|[.,-][0-9])',
    check: luhn,
  },
};

/** The Luhn checksum of the digits of `text` (other characters ignored), and 13–19 of them. */
export function luhn(text: string): boolean {
  let sum = 0;
  let count = 0;
  let double = false;
  for (let i = text.length - 1; i >= 0; i--) {
    const code = text.charCodeAt(i) - 48;
    if (code < 0 || code > 9) continue;
    count++;
    let digit = code;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return count >= 13 && count <= 19 && sum % 10 === 0;
}

/** The first segment of `text` decodes (base64url) to a JSON object with a string `alg`. */
export function isJwt(text: string): boolean {
  const header = text.slice(0, text.indexOf('.'));
  try {
    const decoded: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    return typeof decoded === 'object' && decoded !== null && typeof (decoded as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

import { createHash } from 'node:crypto';

/**
 * How an aggregate names the tools and prompts of its members: `<prefix><separator><name>`.
 */
export interface NamingOptions {
  /** Between a member's prefix and a name; only `[A-Za-z0-9_-]` (may be empty). */
  readonly separator: string;
  /** The longest name generated; longer ones are shortened. At least {@link MIN_NAME_LENGTH}. */
  readonly maxNameLength: number;
}

/** `__` between prefix and name, at most 64 characters (Claude's limit; Cursor's is 60 for server + tool). */
export const DEFAULT_NAMING: NamingOptions = Object.freeze({ separator: '__', maxNameLength: 64 });

/** The length of the hash that ends a shortened or disambiguated name. */
const HASH_LENGTH = 8;
/** `_` + hash. */
const HASH_SUFFIX_LENGTH = HASH_LENGTH + 1;
/** How much of a long prefix a shortened name keeps at least (when the limit allows). */
const MIN_PREFIX_KEPT = 16;

/** The smallest `maxNameLength` accepted: one character of name, `_`, the hash. */
export const MIN_NAME_LENGTH = HASH_SUFFIX_LENGTH + 1;

const UNSAFE = /[^A-Za-z0-9_-]/g;
const SAFE = /^[A-Za-z0-9_-]*$/;

/**
 * The text with every character outside `[A-Za-z0-9_-]` replaced by `_` (one `_` per UTF-16 code
 * unit): `safeName('a.b c') === 'a_b_c'`.
 */
export function safeName(text: string): string {
  return text.replace(UNSAFE, '_');
}

/** The prefix a member gets when it does not choose one: its name made {@link safeName safe}. */
export function defaultPrefix(memberName: string): string {
  return safeName(memberName);
}

/** Where an exposed name leads. */
interface Origin {
  readonly member: string;
  readonly original: string;
}

/**
 * The two-way map between the names a client sees (`exposed`) and the names each member gave
 * (`original`), filled by {@link NameTable.add} as the members' lists arrive.
 *
 * **Order decides.** Add members in their order (the config file's), and each member's items in
 * the order it lists them: when two items want the same name, the one added first keeps it.
 *
 * **With a prefix** the plain name is `<safeName(prefix)><separator><safeName(original)>`. It is
 * replaced by a hashed name when it is longer than `maxNameLength` or already taken (`a.b` and
 * `a_b` from one member; members `a.b` and `a_b`, whose default prefixes are both `a_b`):
 * `<head of the prefix><separator><head of the name>_<hash>`, at most `maxNameLength` long, where
 * the name keeps as much as the limit allows once the prefix keeps its first 16 characters (or all
 * of it, if shorter), and the hash is 8 characters of lower-case base32 (RFC 4648 alphabet) of
 * SHA-256 over `member + "\0" + original`. The member's name, not its prefix, is hashed, so two
 * members with the same prefix never get the same hashed name, and the result depends only on the
 * inputs: the same across restarts and processes. In the very unlikely case the hashed name is
 * taken too, `"\0" + n` (n = 1, 2, ...) is appended to the hashed text until a free name comes up.
 *
 * **Without a prefix** (`undefined` or `''`) the name is exactly the member's (dots, length and
 * all); if an earlier entry already holds it, `add` reports `{ hiddenBy: <that member> }` and the
 * item is not in the table.
 *
 * `resolve` and `exposedOf` are single Map lookups.
 */
export class NameTable {
  readonly #separator: string;
  readonly #maxNameLength: number;
  readonly #byExposed = new Map<string, Origin>();
  readonly #byMember = new Map<string, Map<string, string>>();

  /** @throws RangeError when the separator has characters outside `[A-Za-z0-9_-]` or the limit is below {@link MIN_NAME_LENGTH}. */
  constructor(options: NamingOptions) {
    if (!SAFE.test(options.separator)) {
      throw new RangeError(`Naming separator ${JSON.stringify(options.separator)} may only contain A-Z, a-z, 0-9, "_" and "-"`);
    }
    if (!Number.isInteger(options.maxNameLength) || options.maxNameLength < MIN_NAME_LENGTH) {
      throw new RangeError(`Naming maxNameLength must be an integer of at least ${MIN_NAME_LENGTH}, got ${String(options.maxNameLength)}`);
    }
    this.#separator = options.separator;
    this.#maxNameLength = options.maxNameLength;
  }

  /**
   * The name a member's item is exposed under, registering it on first sight. Adding the same
   * `(member, original)` again returns the same name, whatever `prefix` is passed (a member's
   * prefix is fixed by its first item).
   */
  add(member: string, prefix: string | undefined, original: string): { exposed: string } | { hiddenBy: string } {
    const known = this.#byMember.get(member)?.get(original);
    if (known !== undefined) return { exposed: known };

    if (prefix === undefined || prefix === '') {
      const holder = this.#byExposed.get(original);
      if (holder !== undefined) return { hiddenBy: holder.member };
      this.#register(original, member, original);
      return { exposed: original };
    }

    const safePrefix = safeName(prefix);
    const safeOriginal = safeName(original);
    const plain = safePrefix + this.#separator + safeOriginal;
    if (plain.length <= this.#maxNameLength && !this.#byExposed.has(plain)) {
      this.#register(plain, member, original);
      return { exposed: plain };
    }
    const head = this.#head(safePrefix, safeOriginal);
    const seed = `${member}\0${original}`;
    for (let attempt = 0; ; attempt++) {
      const exposed = `${head}_${hash(attempt === 0 ? seed : `${seed}\0${attempt}`)}`;
      if (!this.#byExposed.has(exposed)) {
        this.#register(exposed, member, original);
        return { exposed };
      }
    }
  }

  /** The member and original name behind an exposed name, if the table has it. */
  resolve(exposed: string): { member: string; original: string } | undefined {
    return this.#byExposed.get(exposed);
  }

  /** The exposed name of a member's item, if it was added and not hidden. */
  exposedOf(member: string, original: string): string | undefined {
    return this.#byMember.get(member)?.get(original);
  }

  /** `<prefix head><separator><name head>`, leaving room for `_<hash>` within the limit. */
  #head(safePrefix: string, safeOriginal: string): string {
    const room = this.#maxNameLength - HASH_SUFFIX_LENGTH - this.#separator.length;
    if (room < 2) {
      // A separator about as long as the limit: the head of the plain name is all there is room for.
      return (safePrefix + this.#separator + safeOriginal).slice(0, this.#maxNameLength - HASH_SUFFIX_LENGTH);
    }
    const prefixKept = Math.min(safePrefix.length, Math.max(room - safeOriginal.length, Math.min(MIN_PREFIX_KEPT, Math.floor(room / 2))));
    const nameKept = Math.min(safeOriginal.length, room - prefixKept);
    return safePrefix.slice(0, prefixKept) + this.#separator + safeOriginal.slice(0, nameKept);
  }

  #register(exposed: string, member: string, original: string): void {
    this.#byExposed.set(exposed, { member, original });
    let names = this.#byMember.get(member);
    if (names === undefined) {
      names = new Map();
      this.#byMember.set(member, names);
    }
    names.set(original, exposed);
  }
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 8 characters of lower-case base32 over the first 40 bits of SHA-256 of the text (UTF-8). */
function hash(text: string): string {
  const digest = createHash('sha256').update(text, 'utf8').digest();
  // 5 bytes = 40 bits = 8 base32 digits; read them as a number (exact below 2^53).
  let bits = digest.readUIntBE(0, 5);
  let out = '';
  for (let i = 0; i < HASH_LENGTH; i++) {
    out = BASE32[bits % 32] + out;
    bits = Math.floor(bits / 32);
  }
  return out;
}

/**
 * RFC 6570 URI Template matching: does a URI belong to a template? Used to find which server's
 * resource template a URI read by a client comes from.
 *
 * Each expression matches every expansion the RFC allows for it (levels 1 to 4, every variable
 * possibly undefined, a string, a list or an associative array), and nothing with characters the
 * expansion would have percent-encoded: `{id}` takes unreserved and percent-encoded characters
 * (and `,`, which joins a list) but no `/`, `?`, `#`, `:`, ...; `{+path}` and `{#frag}` also take
 * reserved characters; `{/a}`, `{.a}`, `{;a}`, `{?a}` and `{&a}` need their leading character;
 * the named ones (`;`, `?`, `&`) take only the template's variable names (any names when a
 * variable is exploded, `*`, as an associative array brings its own keys). A prefix (`{id:3}`)
 * bounds the characters taken, a percent-encoded UTF-8 character counting as one (prefixes above
 * 64 are not enforced). Named parameters may come in any order.
 *
 * Lenient where a client might be: characters outside ASCII count as unreserved (IRIs), and a
 * literal character of the template that the RFC would percent-encode (a space, `é`) matches
 * either way. Not extracted: the variables' values.
 *
 * The template is compiled once to a small automaton (Thompson's construction) that reads a URI
 * once, in time proportional to its length times the automaton's size. A backtracking regular
 * expression would be simpler, but takes minutes on an 8 KiB URI that almost matches a template
 * such as `x{+a}{+b}{+c}!`.
 */

/** Longer URIs match nothing. */
const MAX_URI_LENGTH = 8192;
/** Prefix modifiers up to this length are enforced; longer ones are taken as no limit. */
const MAX_ENFORCED_PREFIX = 64;
/** Longer templates match nothing. */
const MAX_TEMPLATE_LENGTH = 16_384;
/** A template whose automaton would be larger (hundreds of prefixed variables) matches nothing. */
const MAX_NODES = 65_536;

/** A set of code points: ASCII by table, others listed, or every code point above 0x7F. */
class CharSet {
  readonly #ascii = new Uint8Array(128);
  readonly #others = new Set<number>();
  readonly #allNonAscii: boolean;

  constructor(chars: string, allNonAscii = false) {
    for (const c of chars) {
      const codePoint = c.codePointAt(0) ?? 0;
      if (codePoint < 128) this.#ascii[codePoint] = 1;
      else this.#others.add(codePoint);
    }
    this.#allNonAscii = allNonAscii;
  }

  has(codePoint: number): boolean {
    return codePoint < 128 ? this.#ascii[codePoint] === 1 : this.#allNonAscii || this.#others.has(codePoint);
  }

  union(other: CharSet): CharSet {
    const set = new CharSet('', this.#allNonAscii || other.#allNonAscii);
    for (let i = 0; i < 128; i++) set.#ascii[i] = this.#ascii[i] === 1 || other.#ascii[i] === 1 ? 1 : 0;
    for (const codePoint of [...this.#others, ...other.#others]) set.#others.add(codePoint);
    return set;
  }
}

function range(from: string, to: string): string {
  let chars = '';
  for (let code = from.charCodeAt(0); code <= to.charCodeAt(0); code++) chars += String.fromCharCode(code);
  return chars;
}

const ALPHANUMERIC = range('A', 'Z') + range('a', 'z') + range('0', '9');
const HEX_DIGITS = `${range('0', '9')}ABCDEFabcdef`;
/** RFC 3986 unreserved, plus every non-ASCII character (IRIs). */
const UNRESERVED = new CharSet(`${ALPHANUMERIC}-._~`, true);
const RESERVED_CHARS = ":/?#[]@!$&'()*+,;=";
const UNRESERVED_OR_RESERVED = UNRESERVED.union(new CharSet(RESERVED_CHARS));
/** Characters a template's literal part may hold that need no encoding: copied as they are. */
const LITERAL_AS_IS = new CharSet(`${ALPHANUMERIC}-._~${RESERVED_CHARS}%`);
const HEX = new CharSet(HEX_DIGITS);
const PERCENT = new CharSet('%');

/** A regular pattern over code points, before it becomes automaton nodes. */
type Pattern =
  | { readonly type: 'set'; readonly set: CharSet }
  | { readonly type: 'seq'; readonly parts: readonly Pattern[] }
  | { readonly type: 'alt'; readonly options: readonly Pattern[] }
  | { readonly type: 'star'; readonly body: Pattern }
  | { readonly type: 'opt'; readonly body: Pattern }
  | { readonly type: 'upTo'; readonly body: Pattern; readonly max: number };

const set = (s: CharSet): Pattern => ({ type: 'set', set: s });
const seq = (...parts: Pattern[]): Pattern => ({ type: 'seq', parts });
const alt = (...options: Pattern[]): Pattern => ({ type: 'alt', options });
const star = (body: Pattern): Pattern => ({ type: 'star', body });
const opt = (body: Pattern): Pattern => ({ type: 'opt', body });
const plus = (body: Pattern): Pattern => seq(body, star(body));
/** Exactly this character. */
const char = (c: string): Pattern => set(new CharSet(c));
/** Exactly this ASCII text. */
const text = (t: string): Pattern => seq(...[...t].map(char));

const PCT_ENCODED = seq(set(PERCENT), set(HEX), set(HEX));
/** Any number of characters of the set or percent-encoded octets (a value, or values joined by what the set holds). */
const run = (allowed: CharSet): Pattern => star(alt(set(allowed), PCT_ENCODED));
/** One character for a prefix's count: of the set, a percent-encoded ASCII one, or a percent-encoded UTF-8 sequence. */
const oneCharacter = (allowed: CharSet): Pattern =>
  alt(
    set(allowed),
    seq(set(PERCENT), set(new CharSet('01234567')), set(HEX)),
    seq(set(PERCENT), set(new CharSet('89ABCDEFabcdef')), set(HEX), star(seq(set(PERCENT), set(new CharSet('89ABab')), set(HEX)))),
  );
/** At most `count` characters of the set (no limit past {@link MAX_ENFORCED_PREFIX}). */
const bounded = (allowed: CharSet, count: number): Pattern =>
  count > MAX_ENFORCED_PREFIX ? run(allowed) : { type: 'upTo', body: oneCharacter(allowed), max: count };

interface VarSpec {
  readonly name: string;
  /** `:n`. */
  readonly prefix: number | undefined;
  readonly explode: boolean;
}

const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);
/** Reserved by the RFC for future extensions: a template using them is malformed. */
const RESERVED_OPERATORS = new Set(['=', ',', '!', '@', '|']);
const VARSPEC = /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*)(?::([1-9][0-9]{0,3})|(\*))?$/;

/**
 * A test of whether a URI is an expansion of the template (RFC 6570, levels 1-4), compiled once.
 * A malformed template (unbalanced braces, a bad variable name or modifier, a reserved operator)
 * gives a test that matches nothing, and so does an absurdly large one (over 16 KiB, or an
 * automaton of more than 65 536 nodes); this never throws. A URI longer than 8 KiB matches nothing.
 *
 * @example
 * const matches = uriTemplateMatcher('demo://resource/dynamic/text/{resourceId}');
 * matches('demo://resource/dynamic/text/42');   // true
 * matches('demo://resource/dynamic/text/4/2');  // false
 */
export function uriTemplateMatcher(template: string): (uri: string) => boolean {
  const pattern = typeof template === 'string' && template.length <= MAX_TEMPLATE_LENGTH ? templatePattern(template) : undefined;
  if (pattern === undefined) return matchNothing;
  let automaton: Automaton;
  try {
    automaton = new Automaton(pattern);
  } catch {
    return matchNothing; // too large
  }
  return (uri) => typeof uri === 'string' && uri.length <= MAX_URI_LENGTH && automaton.matches(uri);
}

function matchNothing(): boolean {
  return false;
}

/** The pattern of the whole template, or undefined if it is malformed. */
function templatePattern(template: string): Pattern | undefined {
  const parts: Pattern[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    const literal = template.slice(at, open === -1 ? template.length : open);
    if (literal.includes('}')) return undefined;
    parts.push(literalPattern(literal));
    if (open === -1) break;
    const close = template.indexOf('}', open + 1);
    if (close === -1) return undefined;
    const expression = expressionPattern(template.slice(open + 1, close));
    if (expression === undefined) return undefined;
    parts.push(expression);
    at = close + 1;
  }
  return seq(...parts);
}

/** A literal part: itself, each character the RFC would percent-encode also matching its encoding (hex in either case). */
function literalPattern(literal: string): Pattern {
  const parts: Pattern[] = [];
  for (const c of literal) {
    const codePoint = c.codePointAt(0) ?? 0;
    if (LITERAL_AS_IS.has(codePoint)) {
      parts.push(char(c));
      continue;
    }
    const encoded = [...Buffer.from(c, 'utf8')].map((byte) => {
      const [high = '', low = ''] = byte.toString(16).toUpperCase().padStart(2, '0');
      return seq(set(PERCENT), caseless(high), caseless(low));
    });
    parts.push(alt(char(c), seq(...encoded)));
  }
  return seq(...parts);
}

/** One hex digit in either case. */
function caseless(digit: string): Pattern {
  return set(new CharSet(digit + digit.toLowerCase()));
}

/** The pattern of every expansion of one `{...}` expression, or undefined if it is malformed. */
function expressionPattern(body: string): Pattern | undefined {
  const first = body.charAt(0);
  if (RESERVED_OPERATORS.has(first)) return undefined;
  const operator = OPERATORS.has(first) ? first : '';
  const list = body.slice(operator.length);
  if (list === '') return undefined;
  const vars: VarSpec[] = [];
  for (const spec of list.split(',')) {
    const match = VARSPEC.exec(spec);
    if (match === null) return undefined;
    const [, name = '', prefix, explode] = match;
    vars.push({ name, prefix: prefix === undefined ? undefined : Number(prefix), explode: explode !== undefined });
  }
  const exploded = vars.some((v) => v.explode);
  const only = vars.length === 1 ? vars[0] : undefined;

  switch (operator) {
    case '':
    case '+':
    case '#': {
      // Values joined by ','; an exploded associative array gives k=v pairs.
      const allowed = operator === '' ? UNRESERVED : UNRESERVED_OR_RESERVED;
      const value = only?.prefix !== undefined ? bounded(allowed, only.prefix) : run(allowed.union(new CharSet(exploded ? ',=' : ',')));
      return operator === '#' ? opt(seq(char('#'), value)) : value;
    }
    case '.':
    case '/': {
      // A leading '.' or '/', the variables (and exploded items) separated by it, lists by ','.
      if (only?.prefix !== undefined) return opt(seq(char(operator), bounded(UNRESERVED, only.prefix)));
      const separator = vars.length > 1 || exploded ? operator : '';
      return opt(seq(char(operator), run(UNRESERVED.union(new CharSet(`,${exploded ? '=' : ''}${separator}`)))));
    }
    default: {
      // ';', '?', '&': name=value items; ';' drops the '=' of an empty value.
      const item = namedItem(vars, operator === ';');
      if (operator === ';') return star(seq(char(';'), item));
      if (operator === '?') return opt(seq(char('?'), item, star(seq(char('&'), item))));
      return star(seq(char('&'), item));
    }
  }
}

/** One `name=value` item of a named expansion: one of the variables' names, or any name if one is exploded. */
function namedItem(vars: readonly VarSpec[], valueOptional: boolean): Pattern {
  const withValue = (value: Pattern): Pattern => (valueOptional ? opt(seq(char('='), value)) : seq(char('='), value));
  const listValue = run(UNRESERVED.union(new CharSet(',')));
  // An exploded associative array's keys are its own: any unreserved name.
  if (vars.some((v) => v.explode)) return seq(plus(alt(set(UNRESERVED), PCT_ENCODED)), withValue(listValue));
  return alt(...vars.map((v) => seq(text(v.name), withValue(v.prefix !== undefined ? bounded(UNRESERVED, v.prefix) : listValue))));
}

/** A node of the automaton: read one code point of a set, fork without reading, or accept. */
type AutomatonNode = { readonly type: 'read'; readonly set: CharSet; readonly next: number } | { readonly type: 'fork'; next: number; readonly other: number } | { readonly type: 'accept' };

const ACCEPT = 0;
const READ = 1;
const FORK = 2;

/**
 * Thompson's construction: a nondeterministic automaton run on every possible path at once (the
 * set of live nodes), so any URI is read once, without backtracking. Built as objects, then laid
 * out in typed arrays for the run.
 */
class Automaton {
  readonly #start: number;
  readonly #kind: Uint8Array;
  readonly #next: Int32Array;
  readonly #other: Int32Array;
  readonly #sets: readonly (CharSet | undefined)[];
  /** Per node, the generation of the live set it was last added to. */
  readonly #seen: Uint32Array;
  #generation = 0;
  // Working memory of `matches`, reused (a run never re-enters itself).
  #live: Int32Array;
  #following: Int32Array;
  readonly #stack: Int32Array;

  constructor(pattern: Pattern) {
    const nodes: AutomatonNode[] = [{ type: 'accept' }];
    this.#start = build(nodes, pattern, ACCEPT);
    const size = nodes.length;
    this.#kind = new Uint8Array(size);
    this.#next = new Int32Array(size);
    this.#other = new Int32Array(size);
    const sets: (CharSet | undefined)[] = [];
    nodes.forEach((node, index) => {
      this.#kind[index] = node.type === 'read' ? READ : node.type === 'fork' ? FORK : ACCEPT;
      if (node.type !== 'accept') this.#next[index] = node.next;
      if (node.type === 'fork') this.#other[index] = node.other;
      sets.push(node.type === 'read' ? node.set : undefined);
    });
    this.#sets = sets;
    this.#seen = new Uint32Array(size);
    this.#live = new Int32Array(size);
    this.#following = new Int32Array(size);
    this.#stack = new Int32Array(2 * size + 1);
  }

  matches(uri: string): boolean {
    this.#advance();
    let liveCount = this.#enter(this.#start, this.#live, 0);
    for (let i = 0; i < uri.length; ) {
      const codePoint = uri.codePointAt(i) ?? 0;
      i += codePoint > 0xffff ? 2 : 1;
      this.#advance();
      const live = this.#live;
      const following = this.#following;
      let count = 0;
      for (let k = 0; k < liveCount; k++) {
        const index = live[k] ?? ACCEPT;
        if (this.#kind[index] === READ && this.#sets[index]?.has(codePoint) === true) count = this.#enter(this.#next[index] ?? ACCEPT, following, count);
      }
      if (count === 0) return false;
      this.#live = following;
      this.#following = live;
      liveCount = count;
    }
    for (let k = 0; k < liveCount; k++) if (this.#live[k] === ACCEPT) return true;
    return false;
  }

  /** A new live set begins. */
  #advance(): void {
    if (++this.#generation === 0xffffffff) {
      this.#seen.fill(0);
      this.#generation = 1;
    }
  }

  /** Adds the node to the live set (of `count` nodes so far), following forks to the nodes that read or accept; returns the new count. */
  #enter(start: number, live: Int32Array, count: number): number {
    const stack = this.#stack;
    let depth = 0;
    stack[depth++] = start;
    while (depth > 0) {
      const index = stack[--depth] ?? ACCEPT;
      if (this.#seen[index] === this.#generation) continue;
      this.#seen[index] = this.#generation;
      if (this.#kind[index] === FORK) {
        stack[depth++] = this.#other[index] ?? ACCEPT;
        stack[depth++] = this.#next[index] ?? ACCEPT;
      } else {
        live[count++] = index;
      }
    }
    return count;
  }
}

/** Adds the nodes matching the pattern and then going on at `next`; returns the first. */
function build(nodes: AutomatonNode[], pattern: Pattern, next: number): number {
  const add = (node: AutomatonNode): number => {
    if (nodes.length >= MAX_NODES) throw new RangeError('URI template too large');
    return nodes.push(node) - 1;
  };
  switch (pattern.type) {
    case 'set':
      return add({ type: 'read', set: pattern.set, next });
    case 'seq':
      return pattern.parts.reduceRight((after, part) => build(nodes, part, after), next);
    case 'alt': {
      // The last option, then a fork to each earlier one in turn.
      const options = pattern.options;
      let start = next;
      for (let i = options.length - 1; i >= 0; i--) {
        const option = options[i];
        if (option === undefined) continue;
        const optionStart = build(nodes, option, next);
        start = i === options.length - 1 ? optionStart : add({ type: 'fork', next: optionStart, other: start });
      }
      return start;
    }
    case 'opt':
      return add({ type: 'fork', next: build(nodes, pattern.body, next), other: next });
    case 'star': {
      const loop: AutomatonNode = { type: 'fork', next: -1, other: next };
      const index = add(loop);
      loop.next = build(nodes, pattern.body, index);
      return index;
    }
    case 'upTo': {
      let start = next;
      for (let i = 0; i < pattern.max; i++) start = add({ type: 'fork', next: build(nodes, pattern.body, start), other: next });
      return start;
    }
  }
}

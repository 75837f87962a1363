/**
 * @module
 * The `WWW-Authenticate` header of a refusal (RFC 9110 section 11.6.1), reduced to its Bearer
 * challenge (RFC 6750 section 3): the `error`, the `scope` the server wants and, per RFC 9728
 * section 5.1, where its protected resource metadata is (`resource_metadata`). MCP 2025-11-25,
 * basic/authorization "Protected Resource Metadata Discovery Requirements": clients MUST parse it.
 */

/** A Bearer challenge's parameters (names as in RFC 6750 / RFC 9728). */
export interface BearerChallenge {
  /** The scheme as the server wrote it (`Bearer`, any case). */
  readonly scheme: string;
  readonly error?: string | undefined;
  readonly errorDescription?: string | undefined;
  /** Space-separated scopes the server wants for this request. */
  readonly scope?: string | undefined;
  /** The URL of the protected resource metadata (RFC 9728 section 5.1). */
  readonly resourceMetadata?: string | undefined;
  readonly realm?: string | undefined;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;

interface Challenge {
  scheme: string;
  params: Map<string, string>;
}

/** A small cursor over the header: RFC 9110 section 11.2 `challenge` grammar, forgiving. */
class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(): string {
    return this.text.charAt(this.pos);
  }

  skipSpace(): void {
    while (!this.done && (this.peek() === ' ' || this.peek() === '\t')) this.pos++;
  }

  skipSpaceAndCommas(): void {
    while (!this.done && (this.peek() === ' ' || this.peek() === '\t' || this.peek() === ',')) this.pos++;
  }

  token(): string {
    const start = this.pos;
    while (!this.done && TCHAR.test(this.peek())) this.pos++;
    return this.text.slice(start, this.pos);
  }

  /** A quoted-string with `\` escapes; an unterminated one runs to the end. */
  quoted(): string {
    this.pos++; // the opening quote
    let out = '';
    while (!this.done) {
      const c = this.peek();
      this.pos++;
      if (c === '"') return out;
      if (c === '\\' && !this.done) {
        out += this.peek();
        this.pos++;
      } else out += c;
    }
    return out;
  }

  /** Skips to just after the next comma (or the end): past garbage. */
  skipItem(): void {
    while (!this.done && this.peek() !== ',') {
      if (this.peek() === '"') this.quoted();
      else this.pos++;
    }
  }
}

/** Reads the parameters of one challenge, stopping before the next challenge's scheme. */
function readParams(reader: Reader, params: Map<string, string>): void {
  reader.skipSpace();
  // token68 (e.g. `Negotiate abc==`): nothing a Bearer challenge uses; skipped.
  const token68 = TOKEN68.exec(reader.text.slice(reader.pos));
  if (token68 !== null) {
    const after = reader.text.slice(reader.pos + token68[0].length).trimStart();
    if ((after === '' || after.startsWith(',')) && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+=[^=]/.test(token68[0])) {
      reader.pos += token68[0].length;
      return;
    }
  }
  for (;;) {
    reader.skipSpaceAndCommas();
    if (reader.done) return;
    const start = reader.pos;
    const name = reader.token();
    if (name === '') {
      reader.skipItem();
      continue;
    }
    reader.skipSpace();
    if (reader.peek() !== '=') {
      reader.pos = start; // a new challenge's scheme
      return;
    }
    reader.pos++;
    reader.skipSpace();
    const value = reader.peek() === '"' ? reader.quoted() : reader.token();
    const key = name.toLowerCase();
    if (!params.has(key)) params.set(key, value);
    reader.skipSpace();
    if (!reader.done && reader.peek() !== ',') reader.skipItem();
  }
}

function readChallenges(header: string): Challenge[] {
  const reader = new Reader(header);
  const challenges: Challenge[] = [];
  while (!reader.done) {
    reader.skipSpaceAndCommas();
    if (reader.done) break;
    const scheme = reader.token();
    if (scheme === '') {
      reader.skipItem();
      continue;
    }
    const challenge: Challenge = { scheme, params: new Map() };
    challenges.push(challenge);
    if (reader.peek() === ' ' || reader.peek() === '\t') readParams(reader, challenge.params);
    else if (!reader.done && reader.peek() !== ',') reader.skipItem();
  }
  return challenges;
}

/**
 * The Bearer challenge of a `WWW-Authenticate` header (which may hold several challenges, of
 * several schemes: the first Bearer one is taken), or `undefined` when there is none. Parameter
 * names are case-insensitive; quoted strings may hold `\` escapes and commas. Never throws: a
 * header it cannot make sense of gives what it could read, or `undefined`.
 */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (typeof header !== 'string' || header === '') return undefined;
  const bearer = readChallenges(header).find((c) => c.scheme.toLowerCase() === 'bearer');
  if (bearer === undefined) return undefined;
  const get = (name: string): string | undefined => bearer.params.get(name);
  return {
    scheme: bearer.scheme,
    error: get('error'),
    errorDescription: get('error_description'),
    scope: get('scope'),
    resourceMetadata: get('resource_metadata'),
    realm: get('realm'),
  };
}

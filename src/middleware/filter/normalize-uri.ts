/**
 * @module
 * The forms of a resource uri that rules judge. A client may spell one resource many ways
 * (`file:///allowed/../etc/passwd`, `FILE:///etc/%70asswd`, `file:///allowed/..%2Fetc/passwd`);
 * rules on resource uris (`filter`, `requireScopes`) match the forms below, never only the
 * spelling, so no spelling slips past a deny or into an allow. The uri the upstream receives is
 * the client's own: normalization is for the decision only. Never throws, whatever the input.
 */

/** The spellings of one resource uri a rule is matched against. */
export interface UriForms {
  /** As the client sent it. */
  readonly raw: string;
  /** {@link normalizeUri}: the RFC 3986 normal form (an encoded `/` or `\` kept encoded). */
  readonly normal: string;
  /**
   * As a file system or a lenient URL parser would read it: also `%2F`, `%5C` and `\` as `/`,
   * runs of `/` in the path as one, and dot segments removed again.
   */
  readonly decoded: string;
}

/** Ports a scheme implies, dropped from the normal form. */
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443', ws: '80', wss: '443', ftp: '21' };

/** Characters decoded from `%XX` in a path: unreserved, sub-delims, `:` and `@` (RFC 3986 §3.3 pchar). */
const PATH_CHARACTERS = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/u;
/** Characters decoded from `%XX` in an authority: unreserved only. */
const UNRESERVED = /[A-Za-z0-9\-._~]/u;

/**
 * The RFC 3986 §6.2.2 normal form of `uri`: scheme and host lower-cased, default ports dropped
 * (an empty port too), `%XX` of unreserved characters decoded (in the path also sub-delims, `:`,
 * `@` and UTF-8 sequences of non-ASCII characters), the hex of other escapes upper-cased, and
 * `.`/`..` segments removed (§5.2.4). `file://localhost/x` and `file:/x` become `file:///x`
 * (RFC 8089). The query and fragment are kept as they are. An encoded `/` (`%2F`) or `\`
 * (`%5C`) stays encoded; an invalid escape stays as written.
 */
export function normalizeUri(uri: string): string {
  return normalize(uri, false);
}

/** The forms of `uri` that rules judge (see {@link UriForms}). */
export function uriForms(uri: string): UriForms {
  return { raw: uri, normal: normalize(uri, false), decoded: normalize(uri, true) };
}

/**
 * A rule's uri glob and, when it differs, its normal form, so that a rule written
 * `FILE:///Docs/%7Ea/*` matches what `file:///Docs/~a/*` does. The normal form is left out when
 * normalizing made a wildcard of an escape (`%2A` → `*`), which would widen the glob.
 */
export function uriPatternForms(pattern: string): readonly string[] {
  const normal = normalize(pattern, false);
  if (normal === pattern) return [pattern];
  const wildcards = (text: string): number => text.replace(/[^*?]/gu, '').length;
  return wildcards(normal) === wildcards(pattern) ? [pattern, normal] : [pattern];
}

function normalize(uri: string, decodeSeparators: boolean): string {
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/u.exec(uri);
  const scheme = schemeMatch?.[1]?.toLowerCase();
  let rest = schemeMatch ? uri.slice(schemeMatch[0].length) : uri;
  const suffixAt = rest.search(/[?#]/u);
  const suffix = suffixAt < 0 ? '' : rest.slice(suffixAt);
  if (suffixAt >= 0) rest = rest.slice(0, suffixAt);

  // Only a literal `//` starts an authority (an encoded one is a path a lenient server reads as
  // `/`); in the decoded form, it ends at the first separator, encoded or not.
  let authority: string | undefined;
  let path = rest;
  if (rest.startsWith('//')) {
    const end = (decodeSeparators ? /[/\\]|%2f|%5c/iu : /\//u).exec(rest.slice(2))?.index;
    authority = normalizeAuthority(end === undefined ? rest.slice(2) : rest.slice(2, end + 2), scheme);
    path = end === undefined ? '' : rest.slice(end + 2);
  }
  if (decodeSeparators) path = path.replace(/\\|%2f|%5c/giu, '/');

  path = decodePercent(path, PATH_CHARACTERS, true);
  if (decodeSeparators) path = path.replace(/\/{2,}/gu, '/');
  path = removeDotSegments(path);
  if (scheme === 'file' && authority === undefined && path.startsWith('/')) authority = '';
  // A path that removing dot segments left starting with `//` would read as an authority:
  // `/.` keeps it a path (as WHATWG URL does), and normalizing again gives the same.
  if (authority === undefined && path.startsWith('//')) path = '/.' + path;
  // Likewise a relative path that decoding (`A%30:`, `a%3Ab`) made start like a scheme.
  if (scheme === undefined && authority === undefined && /^[A-Za-z][A-Za-z0-9+.-]*:/u.test(path)) path = './' + path;

  return (scheme === undefined ? '' : `${scheme}:`) + (authority === undefined ? '' : `//${authority}`) + path + suffix;
}

/** userinfo@host:port with the host lower-cased, unreserved escapes decoded and a default port dropped. */
function normalizeAuthority(authority: string, scheme: string | undefined): string {
  const at = authority.lastIndexOf('@');
  const userinfo = at < 0 ? undefined : decodePercent(authority.slice(0, at), UNRESERVED, false);
  let hostPort = authority.slice(at + 1);
  let port: string | undefined;
  // A port that says nothing (empty, or the scheme's default) is dropped, and what is left is
  // looked at again: `h::80` is `h`, as normalizing its normal form `h:` again would say.
  for (let colon = hostPort.lastIndexOf(':'); colon >= 0 && colon > hostPort.lastIndexOf(']'); colon = hostPort.lastIndexOf(':')) {
    let candidate = hostPort.slice(colon + 1);
    hostPort = hostPort.slice(0, colon);
    if (/^\d+$/u.test(candidate)) candidate = candidate.replace(/^0+(?=\d)/u, '');
    if (candidate === '' || (scheme !== undefined && DEFAULT_PORTS[scheme] === candidate)) continue;
    port = candidate;
    break;
  }
  // Lower-cased after decoding (`%41` is `a`), the hex of the escapes kept upper-case (`%5C`).
  let host = decodePercent(decodePercent(hostPort, UNRESERVED, false).toLowerCase(), UNRESERVED, false);
  if (scheme === 'file' && host === 'localhost' && userinfo === undefined && port === undefined) host = '';
  return (userinfo === undefined ? '' : `${userinfo}@`) + host + (port === undefined ? '' : `:${port}`);
}

/**
 * `text` with each valid `%XX` whose character is in `decodable` decoded (and, when `utf8`, each
 * run of escapes that is valid UTF-8 for non-ASCII characters), the hex of the rest upper-cased;
 * an invalid escape is left as written.
 */
function decodePercent(text: string, decodable: RegExp, utf8: boolean): string {
  if (!text.includes('%')) return text;
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/gu, (run) => {
    let out = '';
    for (let i = 0; i < run.length; ) {
      const byte = Number.parseInt(run.slice(i + 1, i + 3), 16);
      if (byte < 0x80) {
        const char = String.fromCharCode(byte);
        out += decodable.test(char) ? char : run.slice(i, i + 3).toUpperCase();
        i += 3;
        continue;
      }
      let end = i;
      while (end < run.length && Number.parseInt(run.slice(end + 1, end + 3), 16) >= 0x80) end += 3;
      const escapes = run.slice(i, end).toUpperCase();
      out += utf8 ? decodeUtf8(escapes) : escapes;
      i = end;
    }
    return out;
  });
}

/** A run of escaped bytes ≥ 0x80 as characters when it is valid UTF-8, else as written. */
function decodeUtf8(escapes: string): string {
  try {
    return decodeURIComponent(escapes);
  } catch {
    return escapes;
  }
}

/**
 * RFC 3986 §5.2.4 for a path: `.` segments dropped, `..` segments dropping the segment before
 * them (never above the root), a trailing `/` kept where a dot segment ended the path. A rootless
 * path (`a/../b`) loses its leading `..` segments the same way.
 */
export function removeDotSegments(path: string): string {
  if (!path.includes('.')) return path;
  const rooted = path.startsWith('/');
  const segments = (rooted ? path.slice(1) : path).split('/');
  const out: string[] = [];
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..') out.pop();
      if (last) out.push('');
    } else {
      out.push(segment);
    }
  });
  return (rooted ? '/' : '') + out.join('/');
}

import { ErrorCode } from '../errors/error-code.js';
import { McpError } from '../errors/mcp-error.js';
import { decodeHeaderValue, encodeHeaderValue } from './stateless-headers.js';

/** One argument a tool mirrors into a header: `Mcp-Param-{name}` carries the value at `path` in the arguments. */
export interface ParamHeader {
  /** The `x-mcp-header` value, as the schema spells it (header names compare case-insensitively). */
  readonly name: string;
  /** The chain of `properties` keys from the schema root to the annotated property. */
  readonly path: readonly string[];
}

/** The schema keyword of the annotation (Streamable HTTP, "Custom Headers from Tool Parameters"). */
const X_MCP_HEADER = 'x-mcp-header';

/** RFC 9110 §5.1 `token` (`1*tchar`): no empty name, no space, no control character, no delimiter, ASCII only. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The primitive types an annotated property may have; `number` is not one of them. */
const PRIMITIVE_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);

/**
 * Keywords whose value is one subschema or an array of them, none on a chain of `properties` only
 * (2020-12 and draft-07 spellings): an annotation under any of them makes the tool invalid.
 */
const SUBSCHEMA_KEYWORDS = [
  'items', 'prefixItems', 'additionalItems', 'contains', 'additionalProperties', 'unevaluatedProperties',
  'unevaluatedItems', 'propertyNames', 'contentSchema', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else',
] as const;

/** Keywords whose value maps names to subschemas (`dependencies` values may also be arrays of names). */
const SUBSCHEMA_MAP_KEYWORDS = ['patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'] as const;

type SchemaObject = { readonly [key: string]: unknown };

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The headers a tool's inputSchema declares (`x-mcp-header` on properties reachable through a
 * chain of `properties` from the root), or `undefined` when the declaration is invalid by the
 * spec's rules (Streamable HTTP, "Schema Extension"; tools, "x-mcp-header"): a name that is not a
 * non-empty RFC 9110 token (so no control characters, no non-ASCII), two names equal
 * case-insensitively, an annotated property whose `type` is not `string`, `integer` or `boolean`
 * (`number` is not permitted; a missing `type` cannot be shown to be primitive; a nullable
 * `[<one of them>, "null"]` is accepted), an annotation on the root or anywhere but a chain of
 * `properties` (under `items`, `oneOf`, `$defs`, `if`, …). A client MUST drop such a tool.
 * `[]` when it declares none, or when `inputSchema` is not an object. Walks without recursion, so
 * any depth of untrusted JSON is safe.
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeader[] | undefined {
  if (!isObject(inputSchema)) return [];
  const found: ParamHeader[] = [];
  const seen = new Set<string>();
  const visited = new Set<object>();
  const stack: Visit[] = [{ schema: inputSchema, at: undefined, reachable: true }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { schema, at, reachable } = visit;
    // JSON has neither cycles nor shared nodes; an in-process object might, and is walked once.
    if (!isObject(schema) || visited.has(schema)) continue;
    visited.add(schema);
    if (Object.hasOwn(schema, X_MCP_HEADER)) {
      if (!reachable || at === undefined) return undefined;
      const name = schema[X_MCP_HEADER];
      if (typeof name !== 'string' || !TOKEN.test(name) || !isPrimitiveType(schema['type'])) return undefined;
      const folded = name.toLowerCase();
      if (seen.has(folded)) return undefined;
      seen.add(folded);
      found.push({ name, path: pathOf(at) });
    }
    // Pushed so that they pop in schema order: the other subschemas last, properties first to last.
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const value = schema[keyword];
      for (const child of Array.isArray(value) ? value : [value]) stack.push({ schema: child, at, reachable: false });
    }
    for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
      const value = schema[keyword];
      if (isObject(value)) for (const child of Object.values(value)) stack.push({ schema: child, at, reachable: false });
    }
    const properties = schema['properties'];
    if (isObject(properties)) {
      for (const [key, child] of Object.entries(properties).reverse()) stack.push({ schema: child, at: { key, parent: at }, reachable });
    }
  }
  return found;
}

/** A schema to look at: where it is (its `properties` keys, innermost first) and whether every step to it was a `properties` key. */
interface Visit {
  readonly schema: unknown;
  readonly at: Step | undefined;
  readonly reachable: boolean;
}

/** A path as a linked list, innermost key first, so that a deep schema costs no copying. */
interface Step {
  readonly key: string;
  readonly parent: Step | undefined;
}

function pathOf(at: Step | undefined): string[] {
  const path: string[] = [];
  for (let step = at; step !== undefined; step = step.parent) path.push(step.key);
  return path.reverse();
}

function isPrimitiveType(type: unknown): boolean {
  if (typeof type === 'string') return PRIMITIVE_TYPES.has(type);
  if (!Array.isArray(type)) return false;
  const nonNull = type.filter((entry) => entry !== 'null');
  return nonNull.length === 1 && type.length <= 2 && typeof nonNull[0] === 'string' && PRIMITIVE_TYPES.has(nonNull[0]);
}

/**
 * The `Mcp-Param-*` headers a client sends for `args` (lower-case names). A string goes as it is,
 * an integer as its decimal digits (`42`, `-7`), a boolean as `true` or `false` (Streamable HTTP,
 * "Value Encoding": "Type conversion"), each then encoded with `encodeHeaderValue` (Base64 sentinel
 * for non-ASCII, control characters, surrounding whitespace or a sentinel-looking value). An
 * absent or `null` value gives no header; so does a value no header can carry faithfully (an
 * object, an array, an integer outside ±(2^53−1)).
 */
export function paramHeaderValues(headers: readonly ParamHeader[], args: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  for (const header of headers) {
    const text = headerText(valueAt(args, header.path));
    if (text !== undefined) values[`mcp-param-${header.name.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return values;
}

/**
 * Checks a request's `Mcp-Param-*` headers (Node's lower-case header object; other spellings are
 * found case-insensitively too) against its arguments, as a server that processes the body must
 * (Streamable HTTP, "Server Behavior for Custom Headers", "Server Validation"). Each declared header
 * must be present when the body has a value at its path (not absent, not `null`), and then decode
 * to that value: strings exactly (case-sensitive), booleans as `true`/`false`, integers numerically
 * (`42.0` equals 42, per spec). A declared header that is present when the body has no value it
 * could carry, that has characters outside visible ASCII, space and tab, or whose `=?base64?…?=`
 * does not decode, is refused too. A refusal is McpError(-32020 HeaderMismatch, a message naming the
 * header, `data: { mismatch: { header, body } }` with `body` the argument's path, never a value),
 * to be sent with HTTP 400. Headers the tool does not declare are ignored (intermediaries forward
 * unknown ones).
 */
export function checkParamHeaders(
  headers: readonly ParamHeader[],
  requestHeaders: Readonly<Record<string, string | string[] | undefined>>,
  args: unknown,
): void {
  for (const header of headers) {
    const display = `Mcp-Param-${header.name}`;
    const where = ['arguments', ...header.path].join('.');
    const refuse = (why: string): McpError =>
      new McpError(ErrorCode.HeaderMismatch, `Header mismatch: the ${display} header ${why}`, { mismatch: { header: display, body: where } });
    const body = valueAt(args, header.path);
    const raw = headerValue(requestHeaders, `mcp-param-${header.name.toLowerCase()}`);
    if (raw === undefined) {
      if (headerText(body) !== undefined) throw refuse(`is missing, but ${where} has a value`);
      continue;
    }
    const trimmed = withoutOws(raw);
    if (!/^[\t\x20-\x7e]*$/.test(trimmed)) throw refuse('contains invalid characters');
    const decoded = decodeHeaderValue(trimmed);
    if (decoded === undefined) throw refuse('is not valid Base64');
    if (!matches(decoded, body)) throw refuse(`does not match ${where}`);
  }
}

/**
 * A field value without the spaces and tabs around it, which field parsing drops (RFC 9110 §5.5;
 * Node has done so already). In linear time, unlike a regular expression anchored at the end.
 */
function withoutOws(value: string): string {
  const ows = (i: number): boolean => value[i] === ' ' || value[i] === '\t';
  let start = 0;
  let end = value.length;
  while (start < end && ows(start)) start++;
  while (end > start && ows(end - 1)) end--;
  return value.slice(start, end);
}

/** Whether a decoded header value is what the client had to send for `body`. */
function matches(decoded: string, body: unknown): boolean {
  const text = headerText(body);
  if (text === undefined) return false;
  // "When validating integer parameter values, servers SHOULD compare the header value and the
  // body value numerically": a numeral with an all-zero fraction names the same integer. It is
  // exact: headerText refused a body beyond ±(2^53−1), and a longer numeral rounds to no safe
  // integer. A body with a fraction equals no such numeral, and is compared as text below.
  if (typeof body === 'number' && /^-?\d+(\.0+)?$/.test(decoded)) return Number(decoded) === body;
  return decoded === text;
}

/** The text a header carries for a body value, before encoding; undefined when it carries none. */
function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

/** The value at a path of own object properties (never an inherited one such as `constructor`). */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** A header's value by case-insensitive name; several (repeated or differently spelled) joined by ", " as HTTP does. */
function headerValue(headers: Readonly<Record<string, string | string[] | undefined>>, lowerName: string): string | undefined {
  const values: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== lowerName || value === undefined) continue;
    if (Array.isArray(value)) values.push(...value);
    else values.push(value);
  }
  return values.length === 0 ? undefined : values.join(', ');
}

#!/usr/bin/env node
// Generates src/spec/2025-11-25.ts from the MCP specification's JSON Schema.
// Usage: node scripts/gen-spec-types.mjs   (or: npm run gen:spec)
//
// The schema lives beside this repository, in ../shared/spec/2025-11-25/schema.json.
// json-schema-to-typescript does the heavy lifting; this script only prepares the
// schema and tidies the output:
//   * Every definition under `$defs` becomes an exported type of the same name
//     (`unreachableDefinitions`), hung off a throw-away root type that is removed again.
//   * A `$ref` that carries sibling keywords (usually a `description`) would make the
//     generator declare a numbered copy of the referenced type (`Annotations1`,
//     `TaskMetadata3`, ...). Such refs are rewritten to `tsType: '<Name>'`, which keeps
//     the description as the property's doc comment and points at the one declaration.
//     A definition that is nothing but a `$ref` (`EmptyResult`) is rewritten the same way,
//     so that it is declared as an alias instead of silently disappearing.
//   * A property whose schema is only a description (any JSON value, e.g. `Error.data`,
//     `LoggingMessageNotificationParams.data`) is typed `unknown`; the generator would
//     otherwise make it an open object.
//   * `any` never appears (`unknownAny`); objects the schema leaves open
//     (`additionalProperties: {}` / `true` / a schema) keep an index signature, while
//     objects without an `additionalProperties` keyword are closed, as they are in the
//     specification's own schema.ts from which schema.json is generated.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const VERSION = '2025-11-25';
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const schemaPath = join(repoRoot, '..', 'shared', 'spec', VERSION, 'schema.json');
const outPath = join(repoRoot, 'src', 'spec', `${VERSION}.ts`);
const ROOT_NAME = 'McpChainGeneratedSchemaRoot';

/** @type {Record<string, unknown>} */
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const defs = /** @type {Record<string, unknown> | undefined} */ (schema['$defs']);
if (!defs || typeof defs !== 'object') throw new Error(`${schemaPath}: no $defs`);
const REF_PREFIX = '#/$defs/';

/** Keywords that give a schema a shape; a subschema with none of them accepts any JSON value. */
const SHAPE_KEYWORDS = ['type', '$ref', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'properties', 'items', 'not', 'tsType'];
/** Keywords whose value is a single subschema. */
const SCHEMA_KEYWORDS = ['items', 'additionalProperties', 'not'];
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

/**
 * Prepares one (sub)schema for the generator (see the header):
 *  - `{ $ref: '#/$defs/X', ...siblings }` becomes `{ tsType: 'X', ...siblings }`, and so does a
 *    definition (`isDefinition`) that is a bare `$ref`;
 *  - a property whose schema has no shape keyword (`{ description }`: any JSON value) gets
 *    `tsType: 'unknown'`; left alone the generator would type it as an open object.
 * @param {unknown} node a JSON Schema, or a boolean schema
 * @param {{ isDefinition?: boolean, isProperty?: boolean }} [at]
 * @returns {unknown}
 */
function prepare(node, at = {}) {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const obj = /** @type {Record<string, unknown>} */ (node);
  const ref = obj['$ref'];
  if (typeof ref === 'string' && (at.isDefinition === true || Object.keys(obj).length > 1)) {
    if (!ref.startsWith(REF_PREFIX)) throw new Error(`unexpected $ref ${ref}`);
    const name = ref.slice(REF_PREFIX.length);
    if (!(name in defs)) throw new Error(`dangling $ref ${ref}`);
    const { $ref: _ref, ...rest } = obj;
    return { ...rest, tsType: name };
  }
  /** @type {Record<string, unknown>} */
  const out = { ...obj };
  if (at.isProperty === true && !SHAPE_KEYWORDS.some((k) => k in obj)) out['tsType'] = 'unknown';
  const props = obj['properties'];
  if (props && typeof props === 'object') {
    out['properties'] = Object.fromEntries(
      Object.entries(props).map(([k, v]) => [k, prepare(v, { isProperty: true })]),
    );
  }
  for (const k of SCHEMA_KEYWORDS) if (k in obj) out[k] = prepare(obj[k]);
  for (const k of SCHEMA_LIST_KEYWORDS) {
    const list = obj[k];
    if (Array.isArray(list)) out[k] = list.map((v) => prepare(v));
  }
  return out;
}

const prepared = {
  $schema: schema['$schema'],
  title: ROOT_NAME,
  type: 'object',
  properties: {},
  additionalProperties: false,
  $defs: Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, prepare(def, { isDefinition: true })])),
};

let ts = await compile(/** @type {never} */ (prepared), ROOT_NAME, {
  bannerComment: '',
  unreachableDefinitions: true,
  unknownAny: true,
  additionalProperties: false,
  strictIndexSignatures: false,
  enableConstEnums: false,
  format: true,
  style: { singleQuote: true, printWidth: 120, semi: true, trailingComma: 'all', bracketSpacing: true },
});

// Remove the throw-away root declaration.
const rootDecl = new RegExp(`export interface ${ROOT_NAME} \\{\\s*\\}\\n*`);
if (!rootDecl.test(ts)) throw new Error('root declaration not found in generated output');
ts = ts.replace(rootDecl, '');

// Drop the generator's "This interface was referenced by <root>'s JSON-Schema via the `definition` X"
// notes (they name the throw-away root), and any doc comment left empty by that.
ts = ts
  .replace(/^( \*\n)? \* This interface was referenced by `\w+`'s JSON-Schema\n \* via the `definition` "\w+"\.\n/gm, '')
  .replace(/^\/\*\*\n \*\/\n/gm, '');
if (ts.includes(ROOT_NAME)) throw new Error(`${ROOT_NAME} is still mentioned in the generated output`);

// Sanity checks: every definition is declared exactly once, with its own name, and nothing else is.
const declared = [...ts.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);
const expected = Object.keys(defs);
const missing = expected.filter((n) => !declared.includes(n));
const extra = declared.filter((n) => !expected.includes(n));
const dupes = declared.filter((n, i) => declared.indexOf(n) !== i);
if (missing.length || extra.length || dupes.length) {
  throw new Error(
    `generated declarations differ from $defs: missing=[${missing}] extra=[${extra}] duplicated=[${dupes}]`,
  );
}
if (/\bany\b(?![\w-])/.test(ts.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, ''))) {
  throw new Error('generated output contains `any`');
}

const header =
  `// Generated from the MCP specification ${VERSION} schema.json by scripts/gen-spec-types.mjs. DO NOT EDIT.\n` +
  `// Source: ${relative(repoRoot, schemaPath)}. Regenerate with: npm run gen:spec\n\n`;
mkdirSync(dirname(outPath), { recursive: true });
writeFileSync(outPath, header + ts.trimEnd() + '\n');
console.log(`wrote ${relative(repoRoot, outPath)} (${declared.length} types)`);

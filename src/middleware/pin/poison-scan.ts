/**
 * @module
 * A scan of a tool's texts for what tool-poisoning attacks hide there: instructions aimed at the
 * model (`<IMPORTANT>` blocks, "ignore previous instructions", "do not tell the user"), invisible
 * and bidirectional Unicode, and descriptions long enough to bury anything. And `stripPoison`,
 * which removes what can be removed.
 */
import type { JsonObject } from '../../message/jsonrpc.js';

/** The rules of the scan. */
export type PoisonRule = 'tag' | 'phrase' | 'invisible' | 'bidi' | 'length';

/** One thing the scan found. */
export interface PoisonFinding {
  rule: PoisonRule;
  /** Where in the tool: `description`, `title`, `inputSchema.properties.path.description`… */
  path: string;
  /** What matched, quoted safely (invisible characters as `U+200B`), at most 80 characters. */
  match: string;
}

export interface PoisonScanOptions {
  /** Descriptions longer than this many characters are a finding (`length`). Default 2000. */
  maxDescriptionLength?: number | undefined;
}

/** The default of `maxDescriptionLength`. */
export const DEFAULT_MAX_DESCRIPTION_LENGTH = 2000;

/** Tags that address the model, not a reader: `<IMPORTANT>`, `<SYSTEM>`, `<instructions>`, and their closing forms. */
const TAG_NAMES = 'important|system|system[-_ ]?prompt|instructions?|assistant|admin|critical|secret|hidden|override|prompt|context|user[-_ ]?instructions?|ai[-_ ]?instructions?|note[-_ ]?to[-_ ]?(?:ai|model|assistant)';
const TAG = new RegExp(`<\\s*/?\\s*(?:${TAG_NAMES})(?:\\s[^<>]*)?>`, 'i');
/** A tagged block, from its opening to its closing tag (or to the end of the text when unclosed). */
const TAGGED_BLOCK = new RegExp(`<\\s*(${TAG_NAMES})(?:\\s[^<>]*)?>[\\s\\S]*?(?:<\\s*/\\s*\\1\\s*>|$)`, 'gi');
const STRAY_TAG = new RegExp(TAG.source, 'gi');

/** Phrases of prompt injection. Case-insensitive, whitespace-tolerant. */
const PHRASES: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|preceding|other|system)\s+(?:instructions?|prompts?|rules|directions|messages)\b/i,
  /\b(?:do\s+not|don['’]t|never)\s+(?:tell|inform|notify|alert|mention(?:\s+\w+)?\s+to|reveal(?:\s+\w+)?\s+to|show(?:\s+\w+)?\s+to)\s+the\s+user\b/i,
  /\b(?:without|before)\s+(?:telling|informing|notifying|asking)\s+the\s+user\b/i,
  /\b(?:hide|conceal|keep)\s+(?:this|it|these)\s+(?:secret\s+)?from\s+the\s+user\b/i,
  /\bthe\s+user\s+(?:must|should)\s+not\s+(?:know|see|be\s+told)\b/i,
  /\byou\s+are\s+now\s+(?:in\s+)?(?:developer|admin|god|jailbreak)\s+mode\b/i,
  /\bnew\s+(?:system\s+)?instructions\s*:/i,
];

// Zero-width and invisible formatting: U+200B–U+200F, U+2060–U+2064, U+FEFF; Unicode tags U+E0000–U+E007F.
const INVISIBLE = /[\u200B-\u200F\u2060-\u2064\uFEFF\u{E0000}-\u{E007F}]/u;
const INVISIBLE_ALL = /[\u200B-\u200F\u2060-\u2064\uFEFF\u{E0000}-\u{E007F}]/gu;
// Bidirectional embeddings, overrides and isolates: U+202A–U+202E, U+2066–U+2069.
const BIDI = /[\u202A-\u202E\u2066-\u2069]/u;
const BIDI_ALL = /[\u202A-\u202E\u2066-\u2069]/gu;

/** How deep and how many schema nodes are scanned (a schema can be large or deeply nested). */
const MAX_DEPTH = 32;
const MAX_NODES = 5000;

/** Every text of a tool that the model reads: its title and description, and its schemas' titles and descriptions. */
interface Text {
  path: string;
  text: string;
  /** A description, subject to the length rule. */
  description: boolean;
}

/** Scans one tool definition; no findings for a clean tool. */
export function scanTool(tool: JsonObject, options: PoisonScanOptions = {}): PoisonFinding[] {
  const max = options.maxDescriptionLength ?? DEFAULT_MAX_DESCRIPTION_LENGTH;
  const findings: PoisonFinding[] = [];
  for (const { path, text, description } of textsOf(tool)) {
    const tag = TAG.exec(text);
    if (tag) findings.push({ rule: 'tag', path, match: quote(tag[0]) });
    for (const phrase of PHRASES) {
      const found = phrase.exec(text);
      if (found) {
        findings.push({ rule: 'phrase', path, match: quote(found[0]) });
        break;
      }
    }
    const invisible = INVISIBLE.exec(text);
    if (invisible) findings.push({ rule: 'invisible', path, match: codePoint(invisible[0]) });
    const bidi = BIDI.exec(text);
    if (bidi) findings.push({ rule: 'bidi', path, match: codePoint(bidi[0]) });
    if (description && text.length > max) findings.push({ rule: 'length', path, match: `${text.length} characters, over ${max}` });
  }
  return findings;
}

/**
 * The tool with invisible and bidirectional characters removed, tagged blocks (`<IMPORTANT>…</IMPORTANT>`)
 * cut out, and descriptions cut to `maxDescriptionLength` (ending in `…`), in every text `scanTool` reads.
 * Phrases outside tags cannot be removed safely: they stay (and are still findings).
 */
export function stripPoison(tool: JsonObject, options: PoisonScanOptions = {}): JsonObject {
  const max = options.maxDescriptionLength ?? DEFAULT_MAX_DESCRIPTION_LENGTH;
  const clean = (text: string, description: boolean): string => {
    let out = text.replace(INVISIBLE_ALL, '').replace(BIDI_ALL, '').replace(TAGGED_BLOCK, '').replace(STRAY_TAG, '');
    out = out.replace(/[ \t]{2,}/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
    if (description && out.length > max) out = `${sliceWhole(out, max - 1)}…`;
    return out;
  };
  const copy: JsonObject = { ...tool };
  for (const key of ['title', 'description'] as const) {
    if (typeof copy[key] === 'string') copy[key] = clean(copy[key], key === 'description');
  }
  const budget = { nodes: MAX_NODES };
  for (const key of ['inputSchema', 'outputSchema'] as const) {
    if (isObject(tool[key])) copy[key] = cleanSchema(tool[key], 0, budget, clean);
  }
  if (isObject(tool.annotations) && typeof tool.annotations.title === 'string') {
    copy.annotations = { ...tool.annotations, title: clean(tool.annotations.title, false) };
  }
  return copy;
}

function cleanSchema(node: unknown, depth: number, budget: { nodes: number }, clean: (text: string, description: boolean) => string): unknown {
  if (depth > MAX_DEPTH || budget.nodes-- <= 0) return node;
  if (Array.isArray(node)) return node.map((item: unknown) => cleanSchema(item, depth + 1, budget, clean));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'description' || key === 'title') && typeof value === 'string') out[key] = clean(value, key === 'description');
    else if (typeof value === 'object' && value !== null && !SCHEMA_DATA_KEYWORDS.has(key)) out[key] = cleanSchema(value, depth + 1, budget, clean);
    else out[key] = value;
  }
  return out;
}

/** Schema keywords whose values are data, not schemas: their `description` keys are not texts for the model. */
const SCHEMA_DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);

function textsOf(tool: JsonObject): Text[] {
  const texts: Text[] = [];
  if (typeof tool.title === 'string') texts.push({ path: 'title', text: tool.title, description: false });
  if (typeof tool.description === 'string') texts.push({ path: 'description', text: tool.description, description: true });
  if (isObject(tool.annotations) && typeof tool.annotations.title === 'string') {
    texts.push({ path: 'annotations.title', text: tool.annotations.title, description: false });
  }
  const budget = { nodes: MAX_NODES };
  const walk = (node: unknown, path: string, depth: number): void => {
    if (depth > MAX_DEPTH || budget.nodes-- <= 0) return;
    if (Array.isArray(node)) {
      node.forEach((item: unknown, i) => walk(item, `${path}[${i}]`, depth + 1));
      return;
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}.${key}`;
      if ((key === 'description' || key === 'title') && typeof value === 'string') texts.push({ path: at, text: value, description: key === 'description' });
      else if (typeof value === 'object' && value !== null && !SCHEMA_DATA_KEYWORDS.has(key)) walk(value, at, depth + 1);
    }
  };
  for (const key of ['inputSchema', 'outputSchema'] as const) walk(tool[key], key, 0);
  return texts;
}

/** The match as a log can show it: control and invisible characters as `U+XXXX`, at most 80 characters. */
function quote(text: string): string {
  const shown = text.replace(/[\p{Cc}\p{Cf}]/gu, (char) => codePoint(char));
  return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
}

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first `length` UTF-16 units of `text`, not ending inside a surrogate pair. */
function sliceWhole(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return code >= 0xd800 && code <= 0xdbff ? text.slice(0, length - 1) : text.slice(0, length);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

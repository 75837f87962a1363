import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { parse as parseToml, TomlError } from 'smol-toml';
import { isMap, isSeq, LineCounter, parseDocument, type Node as YamlNode, type Range } from 'yaml';
import { ConfigError, type ConfigProblem } from './config-error.js';
import type { ConfigPath } from './config-path.js';

/** The text formats a config file may be in (a `.ts`/`.js` file is a module, loaded instead). */
export type TextFormat = 'json' | 'yaml' | 'toml';

/** Where something is in a file. 1-based. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** A config file's content, and where each part of it was written. */
export interface ParsedText {
  readonly data: unknown;
  /**
   * Where the thing at `path` is: the key of an object's member, the start of a list's element
   * (the nearest enclosing one when `path` goes further than the file does). Undefined when the
   * format gives no positions (TOML).
   */
  locate(path: ConfigPath): Position | undefined;
}

/**
 * Parses the text of a config file: JSON with comments and trailing commas (jsonc), YAML 1.2, or
 * TOML 1.0. A syntax error (and a key written twice in one object) is a ConfigError with its line
 * and column.
 */
export function parseConfigText(text: string, format: TextFormat, file: string): ParsedText {
  switch (format) {
    case 'json':
      return parseJson(text, file);
    case 'yaml':
      return parseYaml(text, file);
    case 'toml':
      return parseTomlText(text, file);
  }
}

/** jsonc-parser's error codes, as a person would say them. */
const JSON_ERRORS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a key in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected "," or the end of the object or list',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'expected the end of the file',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in a string',
};

function parseJson(text: string, file: string): ParsedText {
  const lines = lineStarts(text);
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined) {
    // Later errors mostly follow from the first.
    throw new ConfigError([{ file, ...positionAt(lines, first.offset), path: '', message: `invalid JSON: ${JSON_ERRORS[printParseErrorCode(first.error)] ?? 'syntax error'}` }]);
  }
  if (tree === undefined) throw new ConfigError([{ file, line: 1, column: 1, path: '', message: 'invalid JSON: the file is empty' }]);
  const duplicates: ConfigProblem[] = [];
  findDuplicateKeys(tree, (key) => duplicates.push({ file, ...positionAt(lines, key.offset), path: '', message: `the key ${JSON.stringify(key.value)} is written twice in the same object` }));
  if (duplicates.length > 0) throw new ConfigError(duplicates);
  return {
    data: getNodeValue(tree),
    locate(path) {
      let node: Node | undefined;
      for (let length = path.length; length >= 0 && node === undefined; length--) node = findNodeAtLocation(tree, [...path.slice(0, length)]);
      if (node === undefined) return undefined;
      const key = node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
      return positionAt(lines, (key ?? node).offset);
    },
  };
}

function findDuplicateKeys(node: Node, report: (key: Node) => void): void {
  if (node.type === 'object') {
    const seen = new Set<unknown>();
    for (const property of node.children ?? []) {
      const key = property.children?.[0];
      if (key === undefined) continue;
      if (seen.has(key.value)) report(key);
      seen.add(key.value);
    }
  }
  for (const child of node.children ?? []) findDuplicateKeys(child, report);
}

function parseYaml(text: string, file: string): ParsedText {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true });
  const first = doc.errors[0];
  if (first !== undefined) {
    const at = first.linePos?.[0];
    // "Map keys must be unique at line 2, column 3:\n\n<excerpt>": the first line, without its position.
    const message = (first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError([{ file, ...(at ? { line: at.line, column: at.col } : {}), path: '', message: `invalid YAML: ${lowerFirst(message)}` }]);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    throw new ConfigError([{ file, path: '', message: `invalid YAML: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  return {
    data,
    locate(path) {
      let node: unknown = doc.contents;
      let range: Range | undefined = (doc.contents as YamlNode | null)?.range ?? undefined;
      for (const segment of path) {
        if (isMap(node)) {
          const pair = node.items.find((item) => keyOf(item.key) === segment);
          if (pair === undefined) break;
          range = (pair.key as YamlNode | null)?.range ?? range;
          node = pair.value;
        } else if (isSeq(node) && typeof segment === 'number') {
          const item = node.items[segment] as YamlNode | undefined;
          if (item === undefined) break;
          range = item.range ?? range;
          node = item;
        } else break;
      }
      if (range === undefined) return undefined;
      const { line, col } = lineCounter.linePos(range[0]);
      return { line, column: col };
    },
  };
}

function keyOf(key: unknown): unknown {
  return typeof key === 'object' && key !== null && 'value' in key ? (key as { value: unknown }).value : key;
}

function parseTomlText(text: string, file: string): ParsedText {
  try {
    return { data: parseToml(text), locate: () => undefined };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // "Invalid TOML document: invalid value\n\n<excerpt>": the first line, without its prefix.
    const message = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    throw new ConfigError([{ file, line: error.line, column: error.column, path: '', message: `invalid TOML: ${message}` }]);
  }
}

/** Offsets where each line starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function positionAt(starts: readonly number[], offset: number): Position {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - (starts[low] as number) + 1 };
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

// The recipes of the docs: fenced blocks right after a marker line
//
//   <!-- recipe: <name> [key=value ...] -->
//
// Blocks of one document with the same name form one recipe and run in order, in one folder.
// Keys (see recipes.test.ts for what each does):
//   file=<name>     the block is written to that file (a config file is then checked with
//                   `mcp-chain validate`; a TypeScript file is there for the commands after it)
//   run=exit|stdio  a TypeScript file is run with tsx: to its end (exit 0), or as a stdio server
//   tools=a,b       every server a command starts must list these tools (and a config file
//                   block with `tools` is served with `mcp-chain serve`)
//   hidden=a,b      ... and must not list these
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface RecipeBlock {
  /** The fence's language: sh, json, yaml, ts, … */
  lang: string;
  text: string;
  /** 1-based line of the marker, for messages. */
  line: number;
  attrs: Readonly<Record<string, string>>;
}

export interface Recipe {
  /** The document, relative to the repository root. */
  doc: string;
  name: string;
  blocks: RecipeBlock[];
}

const MARKER = /^<!--\s*recipe:\s*(\S+)((?:\s+[\w-]+=\S+)*)\s*-->\s*$/;
const FENCE = /^```(\S*)\s*$/;

/** The recipes of one Markdown text, in the order they first appear. */
export function recipesOf(doc: string, markdown: string): Recipe[] {
  const lines = markdown.split('\n');
  const byName = new Map<string, Recipe>();
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i] ?? '');
    if (!marker) {
      if (/<!--\s*recipe/.test(lines[i] ?? '')) throw new Error(`${doc}:${i + 1}: a recipe marker that does not parse: ${lines[i]}`);
      continue;
    }
    const fence = FENCE.exec(lines[i + 1] ?? '');
    if (!fence) throw new Error(`${doc}:${i + 1}: a recipe marker must be followed by a fenced block`);
    const end = lines.findIndex((line, j) => j > i + 1 && /^```\s*$/.test(line));
    if (end === -1) throw new Error(`${doc}:${i + 1}: the recipe's block is not closed`);
    const attrs: Record<string, string> = {};
    for (const pair of (marker[2] ?? '').trim().split(/\s+/).filter(Boolean)) {
      const at = pair.indexOf('=');
      attrs[pair.slice(0, at)] = pair.slice(at + 1);
    }
    const name = marker[1] as string;
    const recipe = byName.get(name) ?? { doc, name, blocks: [] };
    byName.set(name, recipe);
    recipe.blocks.push({ lang: fence[1] ?? '', text: `${lines.slice(i + 2, end).join('\n')}\n`, line: i + 1, attrs });
    i = end;
  }
  return [...byName.values()];
}

/** README.md and every Markdown file under docs/, relative to `root`. */
export function documents(root: string): string[] {
  const found = ['README.md'];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(relative(root, path));
    }
  };
  walk(join(root, 'docs'));
  return found;
}

/** Every recipe of the repository's docs. */
export function allRecipes(root: string): Recipe[] {
  return documents(root).flatMap((doc) => recipesOf(doc, readFileSync(join(root, doc), 'utf8')));
}

/**
 * The words of one command line as a POSIX shell splits them (single and double quotes, no
 * expansion: a recipe's `${NAME}` stays for mcp-chain), without a trailing `# comment`.
 */
export function commandWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '#' && word === undefined) {
      break;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) throw new Error(`an unclosed quote in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

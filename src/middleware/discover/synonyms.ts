/**
 * @module
 * Words people use for the same thing when they ask for a tool ("open a PR", "remove a folder",
 * "ticket" for "issue"): groups of interchangeable words, and abbreviations that stand for more
 * than one word. A query's word also searches for the other words of its group, at a lower weight.
 */
import { stem } from './tokenize.js';

/** Each line: words that a query may use for one another (in plain form; stemmed below). */
const GROUPS: readonly string[] = [
  'create add new make open',
  'delete remove erase destroy drop',
  'update edit change modify',
  'get fetch retrieve read show view detail',
  'list show enumerate',
  'search find lookup look locate',
  'send post publish',
  'issue ticket bug',
  'message chat dm',
  'meeting event appointment invite',
  'calendar schedule agenda',
  'today tomorrow yesterday date day week',
  'error exception crash failure',
  'directory folder dir',
  'file document doc',
  'user member person people someone coworker colleague teammate',
  'customer client',
  'payment charge pay',
  'repository repo',
  'database db',
  'comment reply note respond',
  'alert monitor alarm',
  'status state',
  'done complete close resolve finish',
  'move transition',
  'hour time duration',
];

/** Abbreviations a query may use for several words at once. */
const PHRASES: Readonly<Record<string, readonly string[]>> = {
  pr: ['pull', 'request'],
  mr: ['merge', 'request'],
  ci: ['pipeline', 'workflow'],
  sql: ['query', 'database'],
};

const related = new Map<string, Set<string>>();
for (const line of GROUPS) {
  const stems = line.split(' ').map(stem);
  for (const word of stems) {
    const set = related.get(word) ?? new Set<string>();
    for (const other of stems) if (other !== word) set.add(other);
    related.set(word, set);
  }
}
for (const [abbreviation, words] of Object.entries(PHRASES)) {
  const set = related.get(abbreviation) ?? new Set<string>();
  for (const word of words) set.add(stem(word));
  related.set(abbreviation, set);
}

/** The stems a query's stem also stands for (empty when it has none). */
export function synonymsOf(word: string): ReadonlySet<string> {
  return related.get(word) ?? EMPTY;
}

const EMPTY: ReadonlySet<string> = new Set();

/**
 * @module
 * The ranking behind `search_tools`: BM25F (BM25 over weighted fields) across a catalog's tools.
 * Fields: the server part of a gateway name (`github` of `github__create_issue`), the tool's own
 * name, its title, its description and the property names of its input schema; a word of the name
 * counts three times a word of the description. Words are split at `__`, `_` and camelCase and
 * lightly stemmed (tokenize.ts). A query's words also match their synonyms (synonyms.ts) and the
 * longer words they begin (`react` → `reaction`), at a lower weight. On top of BM25: the share of
 * the query's words a tool matched scales its score (coordination), a tool whose name begins with
 * the query's first word (its action) or whose name the query covers counts more, and when the
 * query names a server ("a Linear issue") that server's tools are preferred.
 */
import type { JsonObject } from '../../message/jsonrpc.js';
import { isJsonObject } from '../../message/parse-message.js';
import { synonymsOf } from './synonyms.js';
import { splitWords, stem, tokenize } from './tokenize.js';

/** One ranked tool. */
export interface RankedTool {
  readonly name: string;
  readonly description: string;
  /** BM25 score: higher is better; only comparable within one search. */
  readonly score: number;
  readonly tool: JsonObject;
}

interface FieldSpec {
  /** How much a word in this field counts against a word of the description. */
  readonly weight: number;
  /** Length normalization (BM25's b): 0 for fields whose length says nothing. */
  readonly b: number;
}

const FIELDS = {
  server: { weight: 1.5, b: 0 },
  name: { weight: 3, b: 0.5 },
  title: { weight: 2, b: 0.5 },
  description: { weight: 1, b: 0.5 },
  params: { weight: 0.5, b: 0.5 },
} as const satisfies Record<string, FieldSpec>;

type Field = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as Field[];

/** BM25's term-frequency saturation. */
const K1 = 1.2;
/** What a synonym, or a word the query's word begins, counts against the word itself. */
const SYNONYM_WEIGHT = 0.5;
const PREFIX_WEIGHT = 0.4;
/** Shortest query word that matches longer words by prefix. */
const MIN_PREFIX = 3;
/** What a query word that names a server (`github`, `jira`) counts. */
const SERVER_WEIGHT = 2;
/** What a tool of another server counts when the query names servers ("a Linear issue"). */
const OTHER_SERVER_FACTOR = 0.5;

/**
 * What a tool counts whose name begins with the query's first word, or a synonym of it: people
 * ask for a tool with its action first ("schedule a meeting"), and tool names begin with theirs
 * (`create_event`).
 */
const VERB_FACTOR = 1.5;

/** How much more a tool counts when the query matched every word of its own name (in proportion). */
const NAME_COVERAGE = 0.5;

/** One word of a query: the terms it matches, with their weights, and the servers it names. */
interface QueryWord {
  readonly terms: ReadonlyMap<string, number>;
  readonly named: readonly string[];
}

interface Doc {
  readonly tool: JsonObject;
  readonly name: string;
  /** The server part of a gateway name (`github` of `github__create_issue`), or ''. */
  readonly server: string;
  /** The first word of the tool's own name (its action, in most catalogs). */
  readonly verb: string | undefined;
  readonly description: string;
  /** Term frequencies per field. */
  readonly tf: Readonly<Record<Field, ReadonlyMap<string, number>>>;
  readonly length: Readonly<Record<Field, number>>;
}

/** A search index over one catalog's tools, built once per catalog version. */
export class ToolIndex {
  readonly #docs: Doc[];
  /** term → documents (by index) that have it in any field. */
  readonly #postings = new Map<string, number[]>();
  readonly #averages: Record<Field, number>;
  readonly #vocabulary: string[];
  /** The words of the servers' names, and the servers each names. */
  readonly #servers = new Map<string, string[]>();

  constructor(tools: readonly JsonObject[]) {
    this.#docs = tools.filter((tool): tool is JsonObject & { name: string } => typeof tool.name === 'string').map(document);
    const totals = { server: 0, name: 0, title: 0, description: 0, params: 0 };
    this.#docs.forEach((doc, i) => {
      const terms = new Set<string>();
      for (const field of FIELD_NAMES) {
        totals[field] += doc.length[field];
        for (const term of doc.tf[field].keys()) terms.add(term);
      }
      for (const term of doc.tf.server.keys()) {
        const servers = this.#servers.get(term) ?? [];
        if (!servers.includes(doc.server)) this.#servers.set(term, [...servers, doc.server]);
      }
      for (const term of terms) {
        const list = this.#postings.get(term);
        if (list) list.push(i);
        else this.#postings.set(term, [i]);
      }
    });
    const n = Math.max(this.#docs.length, 1);
    this.#averages = {
      server: totals.server / n || 1,
      name: totals.name / n || 1,
      title: totals.title / n || 1,
      description: totals.description / n || 1,
      params: totals.params / n || 1,
    };
    this.#vocabulary = [...this.#postings.keys()].sort();
  }

  /** How many tools the index holds. */
  get size(): number {
    return this.#docs.length;
  }

  /**
   * The best `limit` tools for `query`, best first (ties by name); tools matching no word of the
   * query are left out. Each word of the query scores a tool once, by the best of itself and its
   * synonyms and longer forms; a word that names a server counts twice; the sum is scaled by the
   * share of the query's words the tool matched, so a tool that matches most of what was asked
   * beats one that matches a rare word of it.
   */
  search(query: string, limit: number): RankedTool[] {
    const groups = this.#queryTerms(query);
    const totals = new Map<number, { score: number; matched: number }>();
    /** The words of each tool's own name that the query matched, with the weight of the match (synonyms count less). */
    const named = new Map<number, Map<string, number>>();
    for (const group of groups) {
      const best = new Map<number, number>();
      for (const [term, weight] of group.terms) {
        for (const [i, score] of this.#scores(term)) {
          const weighted = weight * score;
          if ((best.get(i) ?? 0) < weighted) best.set(i, weighted);
          const doc = this.#docs[i] as Doc;
          if (doc.tf.name.has(term)) {
            const words = named.get(i) ?? new Map<string, number>();
            if ((words.get(term) ?? 0) < weight) words.set(term, Math.min(weight, 1));
            named.set(i, words);
          }
        }
      }
      for (const [i, score] of best) {
        const total = totals.get(i);
        if (total) {
          total.score += score;
          total.matched++;
        } else totals.set(i, { score, matched: 1 });
      }
    }
    const servers = groups.flatMap((group) => group.named);
    const elsewhere = (doc: Doc): boolean => servers.length > 0 && !servers.includes(doc.server);
    const covered = (i: number, doc: Doc): number => {
      let sum = 0;
      for (const weight of named.get(i)?.values() ?? []) sum += weight;
      return doc.tf.name.size === 0 ? 0 : sum / doc.tf.name.size;
    };
    return [...totals]
      .map(([i, { score, matched }]) => {
        const doc = this.#docs[i] as Doc;
        return { doc, score: ((score * matched) / groups.length) * (1 + NAME_COVERAGE * covered(i, doc)) };
      })
      .map(({ doc, score }) => ({ doc, score: elsewhere(doc) ? score * OTHER_SERVER_FACTOR : score }))
      .map(({ doc, score }) => ({ doc, score: doc.verb !== undefined && groups[0]?.terms.has(doc.verb) === true ? score * VERB_FACTOR : score }))
      .sort((a, b) => b.score - a.score || (a.doc.name < b.doc.name ? -1 : 1))
      .slice(0, limit)
      .map(({ doc, score }) => ({ name: doc.name, description: doc.description, score, tool: doc.tool }));
  }

  /** Each tool that has `term`, with its BM25F score for it. */
  #scores(term: string): Map<number, number> {
    const scores = new Map<number, number>();
    const postings = this.#postings.get(term);
    if (!postings) return scores;
    const idf = Math.log(1 + (this.#docs.length - postings.length + 0.5) / (postings.length + 0.5));
    for (const i of postings) {
      const doc = this.#docs[i] as Doc;
      let tf = 0;
      for (const field of FIELD_NAMES) {
        const count = doc.tf[field].get(term);
        if (count === undefined) continue;
        const { weight, b } = FIELDS[field];
        tf += (weight * count) / (1 - b + (b * doc.length[field]) / this.#averages[field]);
      }
      scores.set(i, idf * ((tf * (K1 + 1)) / (tf + K1)));
    }
    return scores;
  }

  /**
   * One group of weighted terms per distinct word of the query: the word itself (1, or 2 when it
   * names a server), its synonyms, and the longer words it begins.
   */
  #queryTerms(query: string): QueryWord[] {
    const groups: QueryWord[] = [];
    for (const word of new Set(tokenize(query))) {
      const group = new Map<string, number>();
      const raise = (term: string, weight: number): void => {
        if ((group.get(term) ?? 0) < weight) group.set(term, weight);
      };
      for (const synonym of synonymsOf(word)) raise(synonym, SYNONYM_WEIGHT);
      if (word.length >= MIN_PREFIX) for (const longer of this.#startingWith(word)) raise(longer, PREFIX_WEIGHT);
      const servers = this.#servers.get(word) ?? [];
      raise(word, servers.length > 0 ? SERVER_WEIGHT : 1);
      groups.push({ terms: group, named: servers });
    }
    return groups;
  }

  /** Words of the vocabulary that begin with `prefix` and are longer (binary search over the sorted vocabulary). */
  #startingWith(prefix: string): string[] {
    const words = this.#vocabulary;
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((words[mid] as string) < prefix) lo = mid + 1;
      else hi = mid;
    }
    const found: string[] = [];
    for (let i = lo; i < words.length; i++) {
      const word = words[i] as string;
      if (!word.startsWith(prefix)) break;
      if (word !== prefix) found.push(word);
    }
    return found;
  }
}

function document(tool: JsonObject & { name: string }): Doc {
  const name = tool.name;
  const split = name.lastIndexOf('__');
  const server = split > 0 ? name.slice(0, split) : '';
  const own = split > 0 ? name.slice(split + 2) : name;
  const description = typeof tool.description === 'string' ? tool.description : '';
  const title = typeof tool.title === 'string' ? tool.title : isJsonObject(tool.annotations) && typeof tool.annotations.title === 'string' ? tool.annotations.title : '';
  const schema = tool.inputSchema;
  const params = isJsonObject(schema) && isJsonObject(schema.properties) ? Object.keys(schema.properties).join(' ') : '';
  const words: Record<Field, string[]> = {
    server: splitWords(server).map(stem),
    name: tokenize(own, true),
    title: tokenize(title),
    description: tokenize(description),
    params: tokenize(params, true),
  };
  const tf = {} as Record<Field, Map<string, number>>;
  const length = {} as Record<Field, number>;
  for (const field of FIELD_NAMES) {
    const counts = new Map<string, number>();
    for (const word of words[field]) counts.set(word, (counts.get(word) ?? 0) + 1);
    tf[field] = counts;
    length[field] = words[field].length;
  }
  return { tool, name, server, verb: words.name[0], description, tf, length };
}

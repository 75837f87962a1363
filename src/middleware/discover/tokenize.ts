/**
 * @module
 * Words for ranking tools: names split at `__`, `_`, `-`, `.`, `/` and camelCase, text split at
 * anything that is not a letter or digit, lower-cased, common English function words dropped,
 * and each word reduced to a light stem (plurals, -ing, -ed, a final e), so that `create_issues`,
 * "Creates an issue" and "creating issues" share their words.
 */

/** Words too common to tell tools apart. */
const STOPWORDS = new Set(
  (
    'a an the of to in on onto into for from with by at as and or nor but is are was were be been being it its this that these those ' +
    'my me mine i we us our you your he she they them their what whats which do does did can could would should will shall ' +
    'how some any all please up out about via e g eg ie etc than then there here so just also only'
  ).split(' '),
);

/**
 * The words of `text` as stems, in order (repeats kept, for term frequencies). Without
 * `keepStopwords`, function words are dropped; a text made only of them keeps them.
 */
export function tokenize(text: string, keepStopwords = false): string[] {
  const words = splitWords(text);
  const kept = keepStopwords ? words : words.filter((word) => !STOPWORDS.has(word));
  return (kept.length > 0 ? kept : words).map(stem);
}

/** Lower-cased words: `createPullRequest`, `github__create_pull_request` and "Create pull-requests" all split. */
export function splitWords(text: string): string[] {
  const spaced = text
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/'s\b/g, '')
    .toLowerCase();
  return spaced.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 1 || /\d/.test(word));
}

/** A light English stem: `issues` → `issue`, `queries` → `query`, `crashed` → `crash`, `creating`/`created`/`create` → `creat`. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** `mapp` → `map`, `runn` → `run` (but `pull`, `pass`, `buzz` stay). */
function undouble(w: string): string {
  const last = w.at(-1);
  return last !== undefined && last === w.at(-2) && !'lsz'.includes(last) && /[bcdfghjkmnpqrtvw]/.test(last) ? w.slice(0, -1) : w;
}

import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether an `Accept` header admits `type` (such as `text/event-stream`): listed exactly, or by a
 * `type/*` or `*\/*` range, and not with `q=0`. A missing header admits nothing.
 */
export function accepts(header: IncomingHttpHeaders['accept'], type: string): boolean {
  if (header === undefined) return false;
  // A client sends the same header on every request: remember the answers (bounded).
  const key = `${type}\n${header}`;
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = parse(header, type);
    if (answers.size >= 256) answers.clear();
    answers.set(key, answer);
  }
  return answer;
}

const answers = new Map<string, boolean>();

function parse(header: string, type: string): boolean {
  const [major] = type.split('/');
  for (const range of header.split(',')) {
    const [media = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (params.some((param) => /^q=0(\.0*)?$/.test(param))) continue;
    if (media === type || media === '*/*' || media === `${major}/*`) return true;
  }
  return false;
}

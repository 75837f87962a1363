import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether an `Accept` header admits `type` (such as `text/event-stream`): listed exactly, or by a
 * `type/*` or `*\/*` range, and not with `q=0`. A missing header admits nothing.
 */
export function accepts(header: IncomingHttpHeaders['accept'], type: string): boolean {
  if (header === undefined) return false;
  const [major] = type.split('/');
  for (const range of header.split(',')) {
    const [media = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (params.some((param) => /^q=0(\.0*)?$/.test(param))) continue;
    if (media === type || media === '*/*' || media === `${major}/*`) return true;
  }
  return false;
}

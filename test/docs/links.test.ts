// The docs' map holds: every relative link of README.md, AGENTS.md and docs/ reaches a file that
// exists, and a `#fragment` reaches a heading of the page it names (as GitHub makes its anchors).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/targets.js';
import { documents } from './extract-recipes.js';

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) fenced = !fenced;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!fenced && heading) anchors.add(anchorOf(heading[1] as string));
  }
  return anchors;
}

test('every relative link of the docs reaches a file, and every #fragment a heading', () => {
  const broken: string[] = [];
  for (const doc of [...documents(repoRoot), 'AGENTS.md']) {
    const text = readFileSync(join(repoRoot, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target === undefined || /^[a-z]+:/.test(target)) continue;
      const [path = '', fragment] = target.split('#');
      const file = path === '' ? join(repoRoot, doc) : join(repoRoot, dirname(doc), path);
      if (!existsSync(file)) {
        broken.push(`${doc}: ${target} (no ${relative(repoRoot, file)})`);
      } else if (fragment !== undefined && statSync(file).isFile() && file.endsWith('.md')) {
        if (!anchorsOf(readFileSync(file, 'utf8')).has(fragment)) broken.push(`${doc}: ${target} (no heading #${fragment})`);
      }
    }
  }
  assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
});

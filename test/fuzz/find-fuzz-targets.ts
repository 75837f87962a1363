import { readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { RunnableFuzzTarget } from './fuzz-target.js';

const here = new URL('.', import.meta.url);

/** Every target of every `test/fuzz/*.fuzz.ts` (their `fuzzTargets`), in file order. */
export async function findFuzzTargets(): Promise<RunnableFuzzTarget[]> {
  const files = readdirSync(here).filter((name) => name.endsWith('.fuzz.ts')).sort();
  const targets: RunnableFuzzTarget[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(new URL(file, here).pathname).href)) as { fuzzTargets?: readonly RunnableFuzzTarget[] };
    if (!module.fuzzTargets) throw new Error(`test/fuzz/${file} exports no fuzzTargets`);
    targets.push(...module.fuzzTargets);
  }
  const names = new Set<string>();
  for (const { name } of targets) {
    if (names.has(name)) throw new Error(`two fuzz targets are named ${name}`);
    names.add(name);
  }
  return targets;
}

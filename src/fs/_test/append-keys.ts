// Test helper: adds `count` keys `<prefix>-<i>` to the `keys` object of a LockedJsonFile, one
// write each, as another process would. Run: node --import tsx append-keys.ts <file> <prefix> <count>
import { LockedJsonFile } from '../locked-json-file.js';

const [file, prefix, count] = process.argv.slice(2);
if (file === undefined || prefix === undefined || count === undefined) throw new Error('usage: append-keys.ts <file> <prefix> <count>');
const store = new LockedJsonFile<{ keys: Record<string, number> }>(file, {
  label: 'test file',
  parse: (value) => value as { keys: Record<string, number> },
  empty: () => ({ keys: {} }),
});
for (let i = 0; i < Number(count); i++) {
  await store.update((data) => {
    data.keys[`${prefix}-${i}`] = i;
    return true;
  });
}

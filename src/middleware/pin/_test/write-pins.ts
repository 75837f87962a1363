// Test helper: pins `count` tools named `<prefix>-<i>` in namespace `ns` of the store file, one
// write each, as another process would. Run: node --import tsx write-pins.ts <file> <prefix> <count>
import { PinStore } from '../pin-store.js';

const [file, prefix, count] = process.argv.slice(2);
if (file === undefined || prefix === undefined || count === undefined) throw new Error('usage: write-pins.ts <file> <prefix> <count>');
const store = new PinStore(file);
for (let i = 0; i < Number(count); i++) {
  const name = `${prefix}-${i}`;
  await store.check('ns', [{ name, hash: `sha256:${name}`, definition: { name } }]);
}

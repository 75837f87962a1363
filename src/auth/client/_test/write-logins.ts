// Test helper: stores `count` logins of principals `<prefix>-<i>` at https://mcp.example/, one
// write each, as another process would. Run: node --import tsx write-logins.ts <file> <prefix> <count>
import { TokenStore } from '../token-store.js';

const [file, prefix, count] = process.argv.slice(2);
if (file === undefined || prefix === undefined || count === undefined) throw new Error('usage: write-logins.ts <file> <prefix> <count>');
const store = new TokenStore(file);
for (let i = 0; i < Number(count); i++) {
  await store.setLogin('https://mcp.example/', `${prefix}-${i}`, {
    tokens: { accessToken: `at-${prefix}-${i}`, tokenType: 'Bearer' },
    issuer: 'https://as.example',
    resource: 'https://mcp.example/',
    clientId: 'c',
    obtainedAt: i,
  });
}

// `redact` end to end: `mcp-chain serve` of a TypeScript config file whose middleware is imported
// from the repository's sources, in front of server-everything and server-filesystem, reached by
// the official SDK client on stdio and on --http. Secrets in a server's environment (get-env), in a
// file it reads and in an error it answers are masked; images are byte for byte what the server
// sent; a server without redact in front of it is untouched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gatewayTarget, serverBin, workspace, type Workspace } from '../helpers/gateway.js';
import { callTool, textOf } from '../helpers/mcp.js';
import { connectClient, proxyBuilt, repoRoot, type Connection } from '../helpers/targets.js';
import { forEachTransport } from '../helpers/transports.js';

const T = { timeout: 30_000 };

const GITHUB = `ghp_${'A1b2'.repeat(9)}`;
const OPENAI = 'sk-proj-Ab3dEf6hIj9lMn2pQr5tUv8xYz1AbCdEfGhIjKl';
const EMAIL = 'alice.smith@example.com';
const CARD = '4111-1111-1111-1111';
const PEM = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49\n-----END EC PRIVATE KEY-----';

function configFile(ws: Workspace, files: string): string {
  const json = (value: unknown): string => JSON.stringify(value);
  const everything = `{ command: ${json(process.execPath)}, args: [${json(serverBin('server-everything'))}], env: { GITHUB_TOKEN: ${json(GITHUB)}, OPENAI_API_KEY: ${json(OPENAI)} }`;
  return ws.write(
    'mcp-chain.config.ts',
    `import { redact } from ${json(`${repoRoot}/src/middleware/redact/index.ts`)};

export default {
  mcpServers: {
    everything: ${everything}, middleware: [redact()] },
    files: { command: ${json(process.execPath)}, args: [${json(serverBin('server-filesystem'))}, ${json(files)}], middleware: [redact({ custom: [{ name: 'employee-id', pattern: 'EMP-\\\\d{6}' }] })] },
    raw: ${everything} },
  },
};
`,
  );
}

forEachTransport(({ http, flag }) => {
  describe(`redact through mcp-chain serve${flag}`, () => {
    let ws: Workspace;
    let gateway: Connection;

    before(async () => {
      assert.ok(proxyBuilt(), 'dist/ is missing: npm run build first');
      ws = workspace('mcp-chain-policy-redact-');
      const files = ws.mkdir('files');
      ws.write('files/notes.txt', `owner: ${EMAIL}\ncard: ${CARD}\nbadge: EMP-123456\n${PEM}\nversion 1.2.3, order 4111111111111112\n`);
      gateway = await connectClient(gatewayTarget(configFile(ws, files), { http }), { capabilities: {} });
    });

    after(async () => {
      await gateway?.close();
      ws?.remove();
    });

    it("a server's secrets in a tool result are masked; the same server without redact shows them", T, async () => {
      const masked = textOf(await callTool(gateway.client, { name: 'everything__get-env', arguments: {} }));
      assert.match(masked, /"GITHUB_TOKEN": "\[REDACTED:github-token\]"/);
      assert.match(masked, /"OPENAI_API_KEY": "\[REDACTED:openai-key\]"/);
      assert.ok(!masked.includes(GITHUB) && !masked.includes(OPENAI));
      const raw = textOf(await callTool(gateway.client, { name: 'raw__get-env', arguments: {} }));
      assert.ok(raw.includes(GITHUB) && raw.includes(OPENAI));
    });

    it('a text file read through server-filesystem: every secret masked, look-alikes and custom patterns as configured', T, async () => {
      const result = await callTool(gateway.client, { name: 'files__read_text_file', arguments: { path: ws.path('files', 'notes.txt') } });
      const expected = 'owner: [REDACTED:email]\ncard: [REDACTED:credit-card]\nbadge: [REDACTED:employee-id]\n[REDACTED:private-key]\nversion 1.2.3, order 4111111111111112\n';
      assert.equal(textOf(result), expected);
      if (result.structuredContent !== undefined) assert.deepEqual(result.structuredContent, { content: expected });
    });

    it('an error naming a secret comes back masked', T, async () => {
      const outside = `/nowhere/${EMAIL}.txt`;
      const answer = await gateway.client.callTool({ name: 'files__read_text_file', arguments: { path: outside } }).then(
        (result) => JSON.stringify(result),
        (error: unknown) => String(error),
      );
      assert.ok(!answer.includes(EMAIL), answer);
      assert.match(answer, /\[REDACTED:email\]/);
    });

    it('images are exactly what the server sent', T, async () => {
      const image = (await callTool(gateway.client, { name: 'everything__get-tiny-image', arguments: {} })).content.find((block) => block.type === 'image');
      const rawImage = (await callTool(gateway.client, { name: 'raw__get-tiny-image', arguments: {} })).content.find((block) => block.type === 'image');
      assert.ok(image && rawImage);
      assert.deepEqual(image, rawImage);
    });
  });
});

import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { HttpClient } from './http-client.js';
import { readResponseBytes } from './read-response-text.js';

/** A server that answers every request with what it received: its headers and body. */
async function mirror(): Promise<{ url: URL; received: { headers: IncomingHttpHeaders; body: Buffer }[]; close: () => Promise<void> }> {
  const received: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    received,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('HttpClient', () => {
  test('a spliced body (head, bytes, tail) arrives as the three pieces back to back, with their length', async () => {
    const server = await mirror();
    const client = new HttpClient();
    try {
      const bytes = Buffer.from(`{"text":"${'é 中文 😀 \\"q\\" \\u00e9 '.repeat(400)}"}`);
      const head = '{"jsonrpc":"2.0","id":"é-1","method":"tools/call","params":';
      const response = await client.send(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: { head, bytes, tail: '}' } });
      assert.equal((await readResponseBytes(response, 1024))?.toString(), 'ok');
      const [got] = server.received;
      assert.ok(got !== undefined);
      const expected = Buffer.concat([Buffer.from(head), bytes, Buffer.from('}')]);
      assert.ok(got.body.equals(expected));
      assert.equal(got.headers['content-length'], String(expected.length));

      const text = '{"jsonrpc":"2.0","method":"notifications/é"}';
      await readResponseBytes(await client.send(server.url, { method: 'POST', headers: {}, body: text }), 1024);
      assert.equal(server.received[1]?.body.toString(), text);
      assert.equal(server.received[1]?.headers['content-length'], String(Buffer.byteLength(text)));
    } finally {
      client.destroy();
      await server.close();
    }
  });
});

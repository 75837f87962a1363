// HTTP front → chain → HTTP upstream: what the remote server sends on the stream of a call (a
// request to the client, a log line) reaches the client on the stream of that same call, even
// when the client also has its GET stream open.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { chain } from '../../src/chain/chain.js';
import { serveHttp, type HttpFront } from '../../src/front/http/serve-http.js';
import { silentLogger } from '../../src/log/stderr-logger.js';
import { http } from '../../src/upstream/http/index.js';
import { openSession, openStream, send, type SseEvent } from '../helpers/http.js';
import { fixtureCommand } from '../helpers/targets.js';
import { processGone } from './_process.js';

describe('HTTP front → HTTP upstream: related messages keep their stream', () => {
  let server: ChildProcess;
  let front: HttpFront;
  before(async () => {
    const { command, args } = fixtureCommand('conformance');
    server = spawn(command, [...args, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      server.stderr?.on('data', (d: Buffer) => {
        seen += d.toString();
        const match = /listening on (http:\/\/\S+)/.exec(seen);
        if (match?.[1]) resolve(match[1]);
      });
      server.once('exit', (code) => reject(new Error(`the fixture exited (${code}): ${seen}`)));
    });
    front = await serveHttp(chain().to(http({ url })), { port: 0, log: silentLogger });
  });
  after(async () => {
    await front.close();
    server.kill('SIGTERM');
    if (server.pid !== undefined) await processGone(server.pid);
  });

  test('an elicitation the server makes during a call arrives on that call\'s stream, not on the GET stream', async () => {
    const { headers } = await openSession(front.url);
    const standalone = await openStream(front.url, { headers });
    const call = await openStream(front.url, {
      method: 'POST',
      body: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'test_elicitation', arguments: { message: 'who?' } } },
      headers,
    });
    assert.equal(call.headers.get('content-type'), 'text/event-stream');
    const next = async (): Promise<SseEvent> => {
      for (;;) {
        const event = await call.next();
        if (event.data !== '') return event;
      }
    };
    const request = JSON.parse((await next()).data) as { id: number; method: string; params: { message: string } };
    assert.equal(request.method, 'elicitation/create');
    assert.equal(request.params.message, 'who?');
    const answered = await send(front.url, {
      body: { jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } } },
      headers,
    });
    assert.equal(answered.status, 202);
    const result = JSON.parse((await next()).data) as { id: number; result: { content: Array<{ text: string }> } };
    assert.equal(result.id, 5);
    assert.match(JSON.stringify(result.result), /ada/);
    call.close();
    standalone.close();
  });
});

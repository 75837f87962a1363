import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { describe, test } from 'node:test';
import type { EventSourceMessage } from 'eventsource-parser';
import { readSse } from './read-sse.js';
import { readWithCursor, sseCursor } from './sse-cursor.js';

/** A response body arriving in exactly these chunks, decoded as `setEncoding('utf8')` does. */
function body(...chunks: (string | Buffer)[]): IncomingMessage {
  let decoder = new StringDecoder('utf8');
  const fake = {
    setEncoding(encoding: BufferEncoding) {
      decoder = new StringDecoder(encoding);
      return fake;
    },
    destroy: () => fake,
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        const text = decoder.write(Buffer.from(chunk));
        if (text !== '') yield text;
      }
    },
  };
  return fake as unknown as IncomingMessage;
}

async function events(response: IncomingMessage): Promise<Pick<EventSourceMessage, 'id' | 'data'>[]> {
  const out: Pick<EventSourceMessage, 'id' | 'data'>[] = [];
  await readSse(response, { event: ({ id, data }) => out.push({ id, data }) }, 1024);
  return out;
}

describe('readSse', () => {
  test('drops a leading byte order mark, so the first event is read (whole or split inside the BOM)', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    assert.deepEqual(await events(body(Buffer.concat([bom, Buffer.from('data: first\n\n')]))), [{ id: undefined, data: 'first' }]);
    assert.deepEqual(await events(body(bom.subarray(0, 1), bom.subarray(1), 'data: first\n\n')), [{ id: undefined, data: 'first' }]);
  });

  test('an event ended by CRs at the end of a chunk is delivered then, not when a later line end comes (or never)', async () => {
    assert.deepEqual(await events(body('data: a\r\r', 'data: b')), [{ id: undefined, data: 'a' }]);
    assert.deepEqual(await events(body('data: a\r', '\r', 'data: b')), [{ id: undefined, data: 'a' }]);
  });

  test('a CRLF split between chunks is one line end, not two', async () => {
    assert.deepEqual(await events(body('data: a\r', '\ndata: b\r', '\n\r\n')), [{ id: undefined, data: 'a\nb' }]);
  });
});

describe('readWithCursor', () => {
  test('an empty id resets the last event id and marks no event as seen', async () => {
    const cursor = sseCursor();
    const delivered: string[] = [];
    await readWithCursor(body('id: 7\ndata: a\n\nid:\ndata: b\n\nid:\ndata: c\n\n'), cursor, (data) => delivered.push(data), 1024);
    assert.deepEqual(delivered, ['a', 'b', 'c']);
    assert.equal(cursor.lastEventId, undefined);
  });
});

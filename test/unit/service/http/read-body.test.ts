import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../../../../src/service/http/read-body.js';
import { ExectlError } from '../../../../src/errors.js';

const LIMIT = 65_536;

/** An endless body that counts how many bytes the reader actually pulled from it. */
function endlessBody(chunkSize: number) {
  let pulled = 0;
  const stream = new Readable({
    highWaterMark: chunkSize,
    read() {
      pulled += chunkSize;
      this.push(Buffer.alloc(chunkSize, 'a'));
    },
  }) as Readable & { headers: Record<string, string> };
  stream.headers = {};
  return { req: stream as unknown as IncomingMessage, pulled: () => pulled };
}

const noResponse = {} as ServerResponse;

test('an endless body is refused after the limit, without pulling much more than it', async () => {
  const body = endlessBody(16 * 1024);
  await assert.rejects(readBody(body.req, noResponse, LIMIT), (err: unknown) => {
    assert.ok(err instanceof ExectlError);
    assert.equal(err.code, 'body_too_large');
    assert.equal(err.message, 'request body exceeds 65536 bytes');
    return true;
  });
  // Give the stream a chance to keep flowing if the reader had not stopped it.
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(body.pulled() <= LIMIT + 3 * 16 * 1024, `pulled ${body.pulled()} bytes`);
});

test('a declared Content-Length over the limit is refused before reading a byte', async () => {
  const body = endlessBody(1024);
  (body.req.headers as Record<string, string>)['content-length'] = String(LIMIT + 1);
  await assert.rejects(readBody(body.req, noResponse, LIMIT), /exceeds 65536 bytes/);
  assert.equal(body.pulled(), 0);
});

test('a body of exactly the limit is returned whole', async () => {
  const data = Buffer.alloc(LIMIT, 'x');
  const req = Object.assign(Readable.from([data.subarray(0, 1000), data.subarray(1000)]), {
    headers: {},
  }) as unknown as IncomingMessage;
  assert.deepEqual(await readBody(req, noResponse, LIMIT), data);
});

// The /exec client against a real loopback HTTP server: what it sends, how it reads JSON, raw
// streamed output, X-Exec-Exit headers and trailers, and how network failures become errors.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ExectlError } from '../../../../src/errors.js';
import { postExec } from '../../../../src/cli/exec/http.js';
import { execExitCode } from '../../../../src/cli/exec/answer.js';
import { answerJson, startLoopback, type Loopback } from './loopback.js';

const TOKEN = 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYZ';

describe('postExec on a loopback server', () => {
  let server: Loopback;
  before(async () => {
    server = await startLoopback((res, request) => {
      const line = request.body.toString('utf8');
      if (line === 'whoami') return answerJson(res, 200, { email: 'a@b' });
      if (line === 'denied') return answerJson(res, 403, { error: 'command not allowed: ls' });
      if (line === 'html') {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        return res.end('<h1>not exectl</h1>');
      }
      if (line.startsWith('ssh web -- small')) {
        res.writeHead(422, { 'Content-Type': 'application/octet-stream', 'X-Exec-Exit': '3' });
        return res.end('out\nerr\n');
      }
      // Streamed: a first chunk, then more, then the exit code as a trailer.
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', Trailer: 'X-Exec-Exit' });
      res.write('part one\n');
      setTimeout(() => {
        res.write(Buffer.from([0xff, 0x00, 0x0a]));
        res.addTrailers({ 'X-Exec-Exit': '42' });
        res.end();
      }, 20);
    });
  });
  after(() => server.close());

  test('sends POST /exec with the bearer token and the line as UTF-8, and reads JSON', async () => {
    const response = await postExec(`${server.url}/`, TOKEN, 'whoami');
    const sent = server.requests.at(-1)!;
    assert.deepEqual(
      [sent.method, sent.url, sent.headers.authorization, sent.body.toString('utf8')],
      ['POST', '/exec', `Bearer ${TOKEN}`, 'whoami'],
    );
    assert.equal(sent.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'application/json');
    assert.equal(response.body.toString('utf8'), '{"email":"a@b"}\n');
    assert.equal(execExitCode(response), undefined);
  });

  test('a JSON error body is collected even when a chunk sink is given', async () => {
    const chunks: Buffer[] = [];
    const response = await postExec(server.url, TOKEN, 'denied', {
      onChunk: (c) => void chunks.push(c),
    });
    assert.equal(response.status, 403);
    assert.equal(response.body.toString('utf8'), '{"error":"command not allowed: ls"}\n');
    assert.deepEqual(chunks, []);
  });

  test('a body that is neither JSON nor VM output is collected, not streamed', async () => {
    const chunks: Buffer[] = [];
    const response = await postExec(server.url, TOKEN, 'html', {
      onChunk: (c) => void chunks.push(c),
    });
    assert.deepEqual(
      [response.status, response.body.toString('utf8'), chunks],
      [200, '<h1>not exectl</h1>', []],
    );
  });

  test('raw output up to 1 MiB: exit code from the X-Exec-Exit header', async () => {
    const response = await postExec(server.url, TOKEN, 'ssh web -- small');
    assert.equal(response.status, 422);
    assert.equal(response.body.toString('utf8'), 'out\nerr\n');
    assert.equal(execExitCode(response), 3);
  });

  test('streamed raw output goes to the sink byte for byte; exit code from the trailer', async () => {
    const chunks: Buffer[] = [];
    const heads: number[] = [];
    const response = await postExec(server.url, TOKEN, 'ssh web -- big', {
      onHead: (head) => heads.push(head.status),
      onChunk: (c) => void chunks.push(c),
    });
    assert.deepEqual(heads, [200]);
    assert.deepEqual(Buffer.concat(chunks), Buffer.from('part one\n\xff\x00\n', 'latin1'));
    assert.equal(response.body.length, 0);
    assert.equal(response.headers['x-exec-exit'], undefined);
    assert.deepEqual(response.trailers, { 'x-exec-exit': '42' });
    assert.equal(execExitCode(response), 42);
  });
});

test('execExitCode: only 0..255 written as digits counts', () => {
  const cases: [Record<string, string>, Record<string, string>, number | undefined][] = [
    [{ 'x-exec-exit': '0' }, {}, 0],
    [{}, { 'x-exec-exit': '255' }, 255],
    [{ 'x-exec-exit': ' 7 ' }, {}, 7],
    [{ 'x-exec-exit': '256' }, {}, undefined],
    [{ 'x-exec-exit': '-1' }, {}, undefined],
    [{ 'x-exec-exit': '1e2' }, {}, undefined],
    [{}, {}, undefined],
  ];
  for (const [headers, trailers, code] of cases) {
    const response = { status: 200, headers, trailers, body: Buffer.alloc(0) };
    assert.equal(execExitCode(response), code, JSON.stringify([headers, trailers]));
  }
});

/** A TCP server that reads a request and then resets the connection, counting requests. */
async function resettingServer(): Promise<{
  url: string;
  count: () => number;
  close(): Promise<void>;
}> {
  let count = 0;
  const server = createServer((socket) => {
    socket.once('data', () => {
      count += 1;
      socket.resetAndDestroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => count,
    close: async () => {
      server.close();
      await once(server, 'close');
    },
  };
}

describe('network failures are `unreachable` (exit 8)', () => {
  test('connection refused: cannot reach <url>', async () => {
    const closed = await resettingServer();
    await closed.close(); // its port is now (almost certainly) free and refusing
    await assert.rejects(postExec(closed.url, TOKEN, 'ls'), (err: unknown) => {
      assert.ok(err instanceof ExectlError);
      assert.deepEqual(
        [err.code, err.exitCode, err.message, err.hint],
        [
          'unreachable',
          8,
          `cannot reach ${closed.url}: connection refused`,
          'is `exectl serve` running? check --url / EXECTL_URL',
        ],
      );
      return true;
    });
  });

  test('credentials in --url never reach the message', async () => {
    const closed = await resettingServer();
    await closed.close();
    const withPassword = closed.url.replace('http://', 'http://ada:s3cret@');
    await assert.rejects(postExec(withPassword, TOKEN, 'ls'), (err: unknown) => {
      assert.ok(err instanceof ExectlError);
      assert.equal(err.message, `cannot reach ${closed.url}: connection refused`);
      return true;
    });
  });

  test('unknown host: cannot reach <url>: host not found', async () => {
    const url = 'http://no-such-host.invalid:7070';
    await assert.rejects(postExec(url, TOKEN, 'ls'), {
      code: 'unreachable',
      message: `cannot reach ${url}: host not found`,
    });
  });

  test('a reset after sending: lost the connection, with the caller hint', async () => {
    const server = await resettingServer();
    try {
      await assert.rejects(postExec(server.url, TOKEN, 'new', { lostHint: 'it may have run' }), {
        code: 'unreachable',
        message: `lost the connection to ${server.url}`,
        hint: 'it may have run',
      });
      assert.equal(server.count(), 1);
    } finally {
      await server.close();
    }
  });
});

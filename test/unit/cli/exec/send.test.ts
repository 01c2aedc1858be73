// The retry rule of run/ssh against real loopback servers, counting the requests that arrive:
// 429 is retried (3 tries in all) after Retry-After; a connection failure is retried only for a
// command that changes nothing; a command that changes state is never sent twice.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { prepareRunLine } from '../../../../src/command-line.js';
import { sendExec } from '../../../../src/cli/exec/send.js';
import { responseError } from '../../../../src/cli/exec/answer.js';
import { answerJson, startLoopback, type Loopback } from './loopback.js';
import { capturedContext } from '../../../helpers/io.js';

const TOKEN = 'svc1.ABCDEFGHIJKLMNOPQRSTUVWXYZ';

describe('429', () => {
  let limited: Loopback;
  before(async () => {
    // Two 429s (Retry-After 0: no wait), then an answer.
    limited = await startLoopback((res, request, index) => {
      if (request.body.toString() === 'always' || index % 3 !== 2) {
        return answerJson(res, 429, { error: 'rate limit exceeded' }, { 'Retry-After': '0' });
      }
      return answerJson(res, 200, { ok: true });
    });
  });
  after(() => limited.close());

  test('retried, even for a command that changes state (the server read nothing)', async () => {
    const { ctx, stderr } = capturedContext();
    const response = await sendExec(ctx, {
      url: limited.url,
      token: TOKEN,
      prepared: prepareRunLine(['new']),
    });
    assert.equal(response.status, 200);
    assert.equal(limited.requests.length, 3);
    assert.equal(
      stderr(),
      'exectl: rate limited — trying again in 0s (try 2 of 3)\n' +
        'exectl: rate limited — trying again in 0s (try 3 of 3)\n',
    );
  });

  test('the third 429 is the answer: exit 6 with the Retry-After hint; -q hides the notices', async () => {
    const { ctx, stderr } = capturedContext({}, { quiet: true });
    const before = limited.requests.length;
    const prepared = { ...prepareRunLine(['ls']), line: 'always' };
    const response = await sendExec(ctx, { url: limited.url, token: TOKEN, prepared });
    assert.equal(limited.requests.length - before, 3);
    assert.equal(stderr(), '');
    const err = responseError(response, { url: limited.url, scope: 'ls' });
    assert.deepEqual(
      [err.exitCode, err.message, err.hint],
      [6, 'rate limit exceeded', 'retry after 0s'],
    );
  });
});

describe('429 asking for a long wait', () => {
  let patient: Loopback;
  before(async () => {
    patient = await startLoopback((res) =>
      answerJson(res, 429, { error: 'rate limit exceeded' }, { 'Retry-After': '3600' }),
    );
  });
  after(() => patient.close());

  test('is answered at once, not waited out for an hour', async () => {
    const { ctx } = capturedContext();
    const response = await sendExec(ctx, {
      url: patient.url,
      token: TOKEN,
      prepared: prepareRunLine(['ls']),
    });
    assert.equal(response.status, 429);
    assert.equal(patient.requests.length, 1);
  });
});

describe('connection reset after the request was read', () => {
  let url: string;
  let count = 0;
  const server = createServer((socket) => {
    socket.once('data', () => {
      count += 1;
      socket.resetAndDestroy();
    });
  });
  before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  test('a command that changes state is sent once, and the hint says it may have run', async () => {
    const { ctx, stderr } = capturedContext();
    count = 0;
    await assert.rejects(
      sendExec(ctx, { url, token: TOKEN, prepared: prepareRunLine(['new', '--name', 'web']) }),
      {
        code: 'unreachable',
        message: `lost the connection to ${url}`,
        hint: 'the command may have run: check (e.g. with `exectl run ls`) before running it again',
      },
    );
    assert.equal(count, 1);
    assert.equal(stderr(), '');
  });

  test('a command that changes nothing is tried 3 times, each retry announced', async () => {
    const { ctx, stderr } = capturedContext();
    count = 0;
    await assert.rejects(sendExec(ctx, { url, token: TOKEN, prepared: prepareRunLine(['ls']) }), {
      code: 'unreachable',
      message: `lost the connection to ${url}`,
      hint: 'is `exectl serve` running? check --url / EXECTL_URL',
    });
    assert.equal(count, 3);
    assert.equal(
      stderr(),
      `exectl: lost the connection to ${url} — trying again in 0.25s (try 2 of 3)\n` +
        `exectl: lost the connection to ${url} — trying again in 0.75s (try 3 of 3)\n`,
    );
  });

  test('--help of a command that changes state is safe to repeat', async () => {
    const { ctx } = capturedContext({}, { quiet: true });
    count = 0;
    await assert.rejects(
      sendExec(ctx, { url, token: TOKEN, prepared: prepareRunLine(['rm', '--help']) }),
      { code: 'unreachable' },
    );
    assert.equal(count, 3);
  });
});

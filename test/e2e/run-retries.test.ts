// The retry rule of `exectl run` (SPEC §8), with the built CLI: 429 retried after the real
// service's Retry-After; exit 6 once three tries were refused; after a connection reset, a
// command that changes state is never sent again (requests counted on the server side).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { homeWithOwnerKey, startTestService, type TestService } from '../helpers/service.js';
import { answerJson, startLoopback, type Loopback } from '../unit/cli/exec/loopback.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';

let svc: TestService;
let home: string;

before(async () => {
  assertBuilt();
  // One request per key, refilled over 8 s: the second request in a row is refused, even when
  // the CLI takes seconds to start on a loaded machine (2 s was seen to let it through).
  svc = await startTestService({ rateLimit: { capacity: 1, refillMs: 8000 } });
  home = await homeWithOwnerKey(svc);
});
after(() => svc.stop());

/** The statuses the service logged, in order. */
const statuses = (): number[] => svc.logs.map((line) => Number(/ status=(\d+) /.exec(line)?.[1]));

describe('429 from the real service', () => {
  test('waits Retry-After, tries again, and succeeds', async () => {
    const first = await exectl(['--url', svc.url, 'run', 'whoami'], { home });
    assert.deepEqual([first.code, first.stderr], [0, '']);
    const second = await exectl(['--url', svc.url, 'run', 'whoami'], { home });
    assert.equal(second.code, 0, second.stderr);
    // Whole seconds until a token is back: 8 s less the time the CLI took to start.
    assert.match(second.stderr, /^exectl: rate limited — trying again in [1-8]s \(try 2 of 3\)\n$/);
    assert.equal(JSON.parse(second.stdout).email, 'owner@example.com');
    // Had the CLI not waited, its retry would have been refused too.
    assert.deepEqual(statuses(), [200, 429, 200]);
  });
});

describe('429 three times', () => {
  let limited: Loopback;
  before(async () => {
    limited = await startLoopback((res) =>
      answerJson(res, 429, { error: 'rate limit exceeded' }, { 'Retry-After': '0' }),
    );
  });
  after(() => limited.close());

  test('exit 6 after 3 tries, each retry announced', async () => {
    const result = await exectl(['--url', limited.url, 'run', '--token', 'svc1.X', 'ls'], { home });
    assert.equal(limited.requests.length, 3);
    assert.deepEqual(
      { code: result.code, stdout: result.stdout, stderr: result.stderr },
      {
        code: 6,
        stdout: '',
        stderr:
          'exectl: rate limited — trying again in 0s (try 2 of 3)\n' +
          'exectl: rate limited — trying again in 0s (try 3 of 3)\n' +
          'exectl: rate limit exceeded — retry after 0s\n',
      },
    );
  });

  test('-q: only the error line', async () => {
    const before = limited.requests.length;
    const result = await exectl(['--url', limited.url, '-q', 'run', '--token', 'svc1.X', 'new'], {
      home,
    });
    assert.equal(limited.requests.length - before, 3);
    assertOneLineError(result, 6, 'rate limit exceeded — retry after 0s');
  });
});

describe('a server that reads the request, then resets the connection', () => {
  let server: Server;
  let url: string;
  const bodies: string[] = [];
  before(async () => {
    server = createServer((socket) => {
      let received = '';
      socket.on('data', (data: Buffer) => {
        received += data.toString('utf8');
        const end = received.indexOf('\r\n\r\n');
        const length = Number(/content-length: *(\d+)/i.exec(received)?.[1] ?? NaN);
        if (end < 0 || received.length - end - 4 < length) return; // not all there yet
        bodies.push(received.slice(end + 4));
        socket.resetAndDestroy();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  test('a command that changes state is sent exactly once', async () => {
    bodies.length = 0;
    const result = await exectl(
      ['--url', url, 'run', '--token', 'svc1.X', 'new', '--name', 'web'],
      {
        home,
      },
    );
    assert.deepEqual(bodies, ['new --name web']);
    assertOneLineError(
      result,
      8,
      `lost the connection to ${url} — the command may have run: check (e.g. with \`exectl run ls\`) before running it again`,
    );
  });

  test('a command that changes nothing is sent 3 times', async () => {
    bodies.length = 0;
    const result = await exectl(['--url', url, '-q', 'run', '--token', 'svc1.X', 'ssh-key list'], {
      home,
    });
    assert.deepEqual(bodies, ['ssh-key list', 'ssh-key list', 'ssh-key list']);
    assertOneLineError(
      result,
      8,
      `lost the connection to ${url} — is \`exectl serve\` running? check --url / EXECTL_URL`,
    );
  });
});

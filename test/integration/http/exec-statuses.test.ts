// Every row of the SPEC §2 status table, and the order in which the checks answer, driven with
// real curl against a real service; tokens come from the SPEC §1.1 shell recipe (ssh-keygen).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { run } from '../../helpers/keys.js';
import { useTestService, type TestService } from '../../helpers/service.js';

interface CurlResult {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request with real curl; headers lower-cased, body as text. */
async function curl(url: string, args: string[]): Promise<CurlResult> {
  const r = await run('curl', ['-sS', '-D', '-', '-o', '-', ...args, url]);
  assert.equal(r.code, 0, r.stderr);
  // Interim answers (100 Continue) come first; the final one is the last header block.
  const raw = r.stdout.replace(/^(HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(head[0]!.split(' ')[1]), headers, body: raw.slice(split + 4) };
}

function exec(svc: TestService, token: string | null, body: string, extra: string[] = []) {
  const auth = token === null ? [] : ['-H', `Authorization: Bearer ${token}`];
  return curl(`${svc.url}/exec`, [...auth, '--data-binary', body, ...extra]);
}

function assertError(r: CurlResult, status: number, message: string) {
  assert.equal(r.status, status, r.body);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(r.body), { error: message });
}

const FAR = 4_000_000_000;

describe('POST /exec statuses (SPEC §2)', () => {
  const svc = useTestService();
  let all: string; // a token allowing the default commands
  before(async () => {
    all = await svc.token(`{"exp":${FAR}}`);
  });

  test('200: JSON output followed by a newline', async () => {
    const r = await exec(svc, all, 'whoami');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.ok(r.body.endsWith('}\n'));
    assert.equal(JSON.parse(r.body).email, 'owner@example.com');
  });

  test('every answer names its request: X-Request-Id is the req= of its log line', async () => {
    const file = svc.dir.join('too-large');
    await writeFile(file, 'whoami' + ' '.repeat(65537 - 6));
    const answers = [
      await exec(svc, all, 'whoami'),
      await exec(svc, null, 'whoami'),
      await exec(svc, all, 'no-such-command'),
      await exec(svc, all, `@${file}`),
      await curl(`${svc.url}/exec`, ['-X', 'GET']),
      await exec(svc, all, 'rename nope'),
      await exec(svc, all, 'ls --bogus'),
    ];
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 401, 404, 413, 405, 403, 422],
    );
    for (const r of answers) {
      const id = r.headers['x-request-id'];
      assert.match(id ?? '', /^[0-9a-f]{16}$/);
      const line = svc.logs.find((l) => l.includes(` req=${id} `));
      assert.match(line ?? '', new RegExp(` status=${r.status} `), `log line for ${id}`);
    }
  });

  test('405 for any other method, with Allow: POST, before authentication', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await curl(`${svc.url}/exec`, ['-X', method]);
      assertError(r, 405, 'method not allowed');
      assert.equal(r.headers['allow'], 'POST');
    }
  });

  test('401 without a Bearer Authorization header, with WWW-Authenticate', async () => {
    for (const header of [null, 'Basic dXNlcjpwdw==', 'Bearer', 'Token abc']) {
      const extra = header === null ? [] : ['-H', `Authorization: ${header}`];
      const r = await curl(`${svc.url}/exec`, [...extra, '--data-binary', 'whoami']);
      assertError(r, 401, 'missing or invalid Authorization header');
      assert.equal(r.headers['www-authenticate'], 'Bearer');
    }
  });

  test('the Bearer scheme is case-insensitive', async () => {
    const r = await curl(`${svc.url}/exec`, ['-H', `Authorization: bEaReR ${all}`, '-d', 'whoami']);
    assert.equal(r.status, 200);
  });

  test('401 for each way a token can be invalid', async () => {
    const stranger = await svc.addAccount('stranger@example.com');
    svc.service.store.removeKey(
      svc.service.store.listKeys(
        svc.service.store.findAccountByEmail('stranger@example.com')!.id,
      )[0]!.fingerprint,
    );
    const cases: [string, string][] = [
      ['svc0.e30', 'invalid token: malformed'],
      ['svc0.e30=.AAAA', 'invalid token: payload is not valid base64url'],
      ['svc1.AAAAAAAAAAAAAAAAAAAAAAAAAA', 'invalid token'],
      ['svc9.abc', 'invalid token: malformed'],
      ['svc0.' + 'A'.repeat(8200), 'invalid token: exceeds 8192 bytes'],
      [await svc.token('{"exp":1000000000}'), 'invalid token: expired'],
      [await svc.token(`{"nbf":${FAR}}`), 'invalid token: not yet valid'],
      [await svc.token('{"exp":1.5e9}'), 'invalid token: exp must be an integer'],
      [await svc.token(`{"exp":${FAR},"x":1}`), 'invalid token: unknown field "x" in permissions'],
      [await svc.token(`{"exp":${FAR}}`, stranger), 'invalid token'],
      [await svc.token(`{"exp":${FAR}}`, svc.owner.key, 'v0@elsewhere'), 'invalid token'],
    ];
    for (const [token, message] of cases) {
      const r = await exec(svc, token, 'whoami');
      assertError(r, 401, message);
      assert.equal(r.headers['www-authenticate'], 'Bearer');
    }
  });

  test('401 comes before 404', async () => {
    assertError(await exec(svc, 'svc0.e30', 'no-such-command'), 401, 'invalid token: malformed');
  });

  test('400 for an empty, blank, NUL-bearing or unlexable body', async () => {
    assertError(await exec(svc, all, ''), 400, 'missing command');
    assertError(await exec(svc, all, '  \n\t '), 400, 'missing command');
    const nul = svc.dir.join('nul');
    await writeFile(nul, 'ls\u0000');
    assertError(await exec(svc, all, `@${nul}`), 400, 'request body contains a NUL byte');
    assertError(
      await exec(svc, all, "ls 'abc"),
      400,
      'invalid command syntax: unterminated single quote',
    );
  });

  test('404 for an unknown command, before 403', async () => {
    const onlyLs = await svc.token(`{"exp":${FAR},"cmds":["ls"]}`);
    assertError(await exec(svc, onlyLs, 'frobnicate now'), 404, 'unknown command: frobnicate');
    assertError(await exec(svc, onlyLs, 'ssh-key frob'), 404, 'unknown command: ssh-key frob');
  });

  test('404 says exactly "unknown command: <name>"; the nearest paths go in X-Exec-Suggest', async () => {
    // SPEC §2's message is exact (it carried the suggestion until issue 29: test first failed).
    const cases: [line: string, name: string, suggested: string][] = [
      ['lss', 'lss', 'ls'],
      ['whoam --json', 'whoam', 'whoami'],
      ['ssh-key lst', 'ssh-key lst', 'ssh-key list'],
      ['rn', 'rn', 'rm'],
      ['help whoam', 'whoam', 'whoami'],
    ];
    for (const [line, name, suggested] of cases) {
      const r = await exec(svc, all, line);
      assertError(r, 404, `unknown command: ${name}`);
      assert.equal(r.headers['x-exec-suggest'], suggested, line);
    }
    assert.equal((await exec(svc, all, 'frobnicate')).headers['x-exec-suggest'], undefined);
  });

  test('403 for a command outside cmds; a parent grants no subcommand', async () => {
    const onlyLs = await svc.token(`{"exp":${FAR},"cmds":["ls"]}`);
    assertError(await exec(svc, onlyLs, 'whoami'), 403, 'command not allowed: whoami');
    const parent = await svc.token(`{"exp":${FAR},"cmds":["ssh-key"]}`);
    assertError(await exec(svc, parent, 'ssh-key list'), 403, 'command not allowed: ssh-key list');
    const none = await svc.token(`{"exp":${FAR},"cmds":[]}`);
    assertError(await exec(svc, none, 'help'), 403, 'command not allowed: help');
    // Flags and arguments never matter once the path is allowed.
    assert.equal((await exec(svc, onlyLs, 'ls --json -l')).status, 200);
  });

  test('422 when the command runs and fails', async () => {
    assertError(await exec(svc, all, 'ls --bogus'), 422, 'unknown flag "--bogus"');
  });

  test('413 for a 65537-byte body; 65536 bytes are read', async () => {
    const justFits = 'whoami' + ' '.repeat(65536 - 6);
    assert.equal((await exec(svc, all, justFits)).status, 200);
    const file = svc.dir.join('big');
    await writeFile(file, 'whoami' + ' '.repeat(65537 - 6));
    assertError(await exec(svc, all, `@${file}`), 413, 'request body exceeds 65536 bytes');
  });

  test('413 for a multi-megabyte body, declared or chunked', async () => {
    const file = svc.dir.join('huge');
    await writeFile(file, Buffer.alloc(8 * 1024 * 1024, 'a'));
    assertError(await exec(svc, all, `@${file}`), 413, 'request body exceeds 65536 bytes');
    const chunked = await exec(svc, all, `@${file}`, ['-H', 'Transfer-Encoding: chunked']);
    assertError(chunked, 413, 'request body exceeds 65536 bytes');
  });

  test('after a 413 the rest of the body is read for a moment, then an endless body is cut off', async () => {
    const { port } = new URL(svc.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `POST /exec HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${all}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = (n: number) => `${n.toString(16)}\r\n${'a'.repeat(n)}\r\n`;
    socket.write(chunk(70_000));
    let answer = '';
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
    const started = Date.now();
    // Keeps sending, as a client that never stops would; the server cuts it off.
    const feeding = setInterval(() => socket.writable && socket.write(chunk(1000)), 20);
    socket.on('error', () => {});
    await once(socket, 'close');
    clearInterval(feeding);
    assert.match(answer, /^HTTP\/1\.1 413 /);
    const lingered = Date.now() - started;
    assert.ok(lingered >= 1_500 && lingered < 6_000, `closed after ${lingered} ms`);
  });

  test('any other path answers 404 through the funnel, with its log line', async () => {
    const before = svc.logs.length;
    assertError(await curl(`${svc.url}/`, []), 404, 'not found');
    assertError(await curl(`${svc.url}/exec/more?x=1`, ['-d', 'ls']), 404, 'not found');
    const lines = svc.logs.slice(before);
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, / via=http key=- cmd="GET \/" status=404 /);
    assert.match(lines[1]!, / via=http key=- cmd="POST \/exec\/more" status=404 /);
  });

  test('the request log never holds a token or its signature', () => {
    const logs = svc.logs.join('\n');
    assert.ok(svc.logs.length > 10);
    assert.ok(!logs.includes(all.split('.')[2]!));
    assert.ok(!logs.includes(all.split('.')[1]!));
    assert.match(logs, /status=403/);
  });
});

describe('rate limiting per key (SPEC §2)', () => {
  const svc = useTestService({ rateLimit: { capacity: 2, refillMs: 60_000 } });

  test('429 with Retry-After once the bucket is empty, before body checks; other keys unaffected', async () => {
    const token = await svc.token(`{"exp":${FAR}}`);
    assert.equal((await exec(svc, token, 'whoami')).status, 200);
    assert.equal((await exec(svc, token, 'whoami')).status, 200);
    const limited = await exec(svc, token, '');
    assertError(limited, 429, 'rate limit exceeded');
    assert.equal(limited.headers['retry-after'], '30');
    const other = await svc.addAccount('other@example.com');
    const otherToken = await svc.token(`{"exp":${FAR}}`, other);
    assert.equal((await exec(svc, otherToken, 'whoami')).status, 200);
  });
});

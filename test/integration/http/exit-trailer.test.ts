// `ssh <vm> <command>` over /exec ends with its exit trailer whatever the client's TE (SPEC §2):
// a client written in Go (net/http sends no `TE: trailers`, reads the trailer anyway, and takes
// any non-2xx for a transport error) must find the exit code there even for a short output held
// back. Under `--compat exe.dev` the status is 200 whatever the exit code, and `X-Exe-Exit`
// comes beside `X-Exec-Exit`. The client here is node's raw http, sending no TE, as Go's does.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { useTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  trailers: Record<string, string | undefined>;
  body: string;
}

/** POST /exec with no `TE` header, as Go's net/http sends it. */
function postWithoutTe(url: string, token: string, line: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          trailers: res.trailers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.end(line);
  });
}

async function createVm(svc: TestService, token: string, name: string): Promise<void> {
  const made = await postWithoutTe(svc.url, token, `new --name=${name}`);
  assert.equal(made.status, 200, made.body);
}

describe('exectl names: status by exit code, trailer always', () => {
  const svc = useTestService({ commandDeadlineMs: 3_000 });

  test('a short output held back is chunked and ends with X-Exec-Exit as a trailer too', async () => {
    const token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
    await createVm(svc, token, 'go1');
    const ok = await postWithoutTe(svc.url, token, 'ssh go1 echo hi');
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['transfer-encoding'], 'chunked');
    assert.equal(ok.headers['content-length'], undefined);
    assert.equal(ok.headers.trailer, 'X-Exec-Exit');
    assert.equal(ok.headers['x-exec-exit'], '0');
    assert.deepEqual(ok.trailers, { 'x-exec-exit': '0' });
    assert.equal(ok.body, 'hi\n');

    const failed = await postWithoutTe(svc.url, token, 'ssh go1 false');
    assert.equal(failed.status, 422);
    assert.equal(failed.headers['x-exec-exit'], '1');
    assert.deepEqual(failed.trailers, { 'x-exec-exit': '1' });
    assert.equal(failed.body, '');
  });

  test('the deadline with output held back: 504, the output, 124 and why, header and trailer', async () => {
    const token = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
    await createVm(svc, token, 'go2');
    const r = await postWithoutTe(svc.url, token, "ssh go2 'echo partial; sleep 20'");
    assert.equal(r.status, 504);
    assert.equal(r.body, 'partial\n');
    assert.equal(r.headers['x-exec-exit'], '124');
    assert.equal(r.headers['x-exec-error'], 'command timed out after 3s');
    assert.deepEqual(r.trailers, {
      'x-exec-exit': '124',
      'x-exec-error': 'command timed out after 3s',
    });
  });
});

describe('--compat exe.dev: 200 whatever the exit code, X-Exe-Exit header and trailer', () => {
  const svc = useTestService({ compat: 'exe.dev', domain: 'exe.dev', commandDeadlineMs: 3_000 });

  test('a failing command answers 200 with its code in both names, header and trailer', async () => {
    const svc1 = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
    const token = `exe0.${svc1.slice('svc0.'.length)}`;
    await createVm(svc, token, 'go3');
    const r = await postWithoutTe(svc.url, token, "ssh go3 'echo nope; exit 3'");
    assert.equal(r.status, 200);
    assert.equal(r.headers.trailer, 'X-Exec-Exit, X-Exe-Exit');
    assert.deepEqual([r.headers['x-exec-exit'], r.headers['x-exe-exit']], ['3', '3']);
    assert.deepEqual(r.trailers, { 'x-exec-exit': '3', 'x-exe-exit': '3' });
    assert.equal(r.body, 'nope\n');
  });

  test('the deadline answers 200 too, with 124 in the trailer', async () => {
    const svc1 = await svc.token(`{"exp":${FAR},"cmds":["new","ssh"]}`);
    const token = `exe0.${svc1.slice('svc0.'.length)}`;
    await createVm(svc, token, 'go4');
    const r = await postWithoutTe(svc.url, token, 'ssh go4 sleep 20');
    assert.equal(r.status, 200);
    assert.deepEqual(r.trailers, {
      'x-exec-exit': '124',
      'x-exe-exit': '124',
      'x-exec-error': 'command timed out after 3s',
    });
  });
});

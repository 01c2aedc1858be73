// The VM proxy and VM output under `--compat exe.dev` (SPEC §12): a VM app written for the real
// service gets its visitor in X-ExeDev-* headers, from a token sent in X-ExeDev-Authorization,
// and a client reads X-Exe-Exit beside X-Exec-Exit, as header and as trailer. Without the flag
// none of it is accepted. Real curl, real servers inside the VMs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { curl, echoOf, FAR, headerText, startProxyFixture, type ProxyFixture } from './fixture.js';

/** The same svc0 in the real service's spelling. */
const asExe0 = (svc0: string) => `exe0.${svc0.slice('svc0.'.length)}`;

/** POST /exec with `TE: trailers`, so the answer streams and ends with its trailers. */
function execWithTrailers(
  url: string,
  token: string,
  line: string,
): Promise<{
  status: number;
  headers: Record<string, unknown>;
  trailers: Record<string, string | undefined>;
}> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, TE: 'trailers' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, trailers: res.trailers }),
      );
    });
    req.end(line);
  });
}

describe('VM proxy and VM output under --compat exe.dev (SPEC §12)', () => {
  let f: ProxyFixture;
  let host: string;
  before(async () => {
    f = await startProxyFixture({ compat: 'exe.dev', domain: 'exe.dev', vmDomain: 'exe.xyz' });
    await f.createVm('app');
    await f.startEchoServer('app');
    host = `app.exe.xyz:${f.port}`;
  });
  after(() => f.stop());

  const vmToken = async (payload: string) =>
    asExe0(await f.svc.token(payload, f.svc.owner.key, 'v0@app.exe.xyz'));

  test('X-ExeDev-Authorization lets in; the VM sees X-ExeDev-Email, -UserID, -Token-Ctx', async () => {
    const token = await vmToken(`{"exp":${FAR},"ctx":{"role":"viewer"}}`);
    const echo = echoOf(
      await curl(`${f.svc.url}/`, [
        '-H',
        `Host: ${host}`,
        '-H',
        `X-ExeDev-Authorization: Bearer ${token}`,
        '-H',
        'X-ExeDev-Email: forged@example.com',
      ]),
    );
    const seen = (name: string) => headerText(echo.rawHeaders, name);
    const userId = seen('X-Exectl-User-Id');
    assert.match(userId ?? '', /^usr_/);
    assert.deepEqual(
      ['X-ExeDev-Email', 'X-ExeDev-UserID', 'X-ExeDev-Token-Ctx', 'X-ExeDev-Authorization'].map(
        seen,
      ),
      [f.svc.owner.email, userId, '{"role":"viewer"}', undefined],
    );
    assert.equal(seen('X-Exectl-Email'), f.svc.owner.email);
  });

  test('an exe0. token in Authorization lets in and does not reach the VM', async () => {
    const token = await vmToken(`{"exp":${FAR}}`);
    const echo = echoOf(
      await curl(`${f.svc.url}/`, ['-H', `Host: ${host}`, '-H', `Authorization: Bearer ${token}`]),
    );
    assert.equal(headerText(echo.rawHeaders, 'Authorization'), undefined);
    assert.equal(headerText(echo.rawHeaders, 'X-ExeDev-Email'), f.svc.owner.email);
  });

  test('a token for v0@app.exe.dev (the command domain) is refused at app.exe.xyz', async () => {
    const wrong = asExe0(await f.svc.token(`{"exp":${FAR}}`, f.svc.owner.key, 'v0@app.exe.dev'));
    const r = await curl(`${f.svc.url}/`, [
      '-H',
      `Host: ${host}`,
      '-H',
      `X-ExeDev-Authorization: Bearer ${wrong}`,
    ]);
    assert.equal(r.status, 401, r.body);
  });

  test('ssh output carries X-Exe-Exit beside X-Exec-Exit, as header and as trailer', async () => {
    const token = await f.svc.token(`{"exp":${FAR},"cmds":["ssh"]}`);
    const held = await curl(`${f.svc.url}/exec`, [
      '-H',
      `Authorization: Bearer ${asExe0(token)}`,
      '--data-binary',
      'ssh app exit 7',
    ]);
    // The real service's clients take any other status for a transport error (SPEC §2).
    assert.equal(held.status, 200);
    assert.deepEqual([held.headers['x-exec-exit'], held.headers['x-exe-exit']], ['7', '7']);

    const streamed = await execWithTrailers(f.svc.url, token, 'ssh app echo streamed');
    assert.equal(streamed.status, 200);
    assert.equal(streamed.headers.trailer, 'X-Exec-Exit, X-Exe-Exit');
    assert.deepEqual(streamed.trailers, { 'x-exec-exit': '0', 'x-exe-exit': '0' });
  });
});

describe('the same without --compat: none of it is accepted', () => {
  let f: ProxyFixture;
  before(async () => {
    f = await startProxyFixture();
    await f.createVm('app');
    await f.startEchoServer('app');
  });
  after(() => f.stop());

  test('X-ExeDev-Authorization and exe0. tokens are no credential; exe.xyz is no VM host', async () => {
    const svc0 = await f.vmToken('app');
    for (const header of [
      `X-ExeDev-Authorization: Bearer ${svc0}`,
      `Authorization: Bearer ${asExe0(svc0)}`,
    ]) {
      const r = await curl(f.vmUrl('app'), ['-H', header]);
      assert.equal(r.status, 401, `${header}: ${r.body}`);
    }
    // exectl's own names still work, and name the visitor in X-Exectl-* only.
    const echo = echoOf(
      await curl(f.vmUrl('app'), ['-H', `X-Exectl-Authorization: Bearer ${svc0}`]),
    );
    assert.equal(headerText(echo.rawHeaders, 'X-ExeDev-Email'), undefined);
    assert.equal(headerText(echo.rawHeaders, 'X-Exectl-Email'), f.svc.owner.email);
    // app.exe.xyz is not this server's VM domain: the request is for the service itself.
    const elsewhere = await curl(`${f.svc.url}/`, [
      '-H',
      `Host: app.exe.xyz:${f.port}`,
      '-H',
      `X-Exectl-Authorization: Bearer ${svc0}`,
    ]);
    assert.notEqual(elsewhere.status, 201);
  });

  test('streamed ssh output announces and sends X-Exec-Exit only', async () => {
    const token = await f.svc.token(`{"exp":${FAR},"cmds":["ssh"]}`);
    const streamed = await execWithTrailers(f.svc.url, token, 'ssh app echo streamed');
    assert.equal(streamed.headers.trailer, 'X-Exec-Exit');
    assert.deepEqual(streamed.trailers, { 'x-exec-exit': '0' });
  });
});

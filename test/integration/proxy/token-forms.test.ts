// SPEC §6's header rules at the VM proxy: a token in any form a client puts it in `Authorization`
// (Bearer, bare, either half of Basic) is consumed and never reaches the VM's app, and the
// headers that tell an app where a client is (`Forwarded`, `X-Real-IP`) or how a command ended
// (`X-Exec-Exit`, `X-Exe-Exit`) come only from the proxy. Real servers in real VMs, real curl.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  curl,
  echoOf,
  headerText,
  startProxyFixture,
  withToken,
  type ProxyFixture,
} from './fixture.js';

describe('VM proxy: every form of a token is consumed, no client forges where it is from', () => {
  let f: ProxyFixture;
  let token: string;
  before(async () => {
    f = await startProxyFixture();
    await f.createVm('vm1');
    await f.startEchoServer('vm1');
    token = await f.vmToken('vm1');
  });
  after(() => f.stop());

  test('a token in Authorization with no scheme or as the Basic user signs in and stays behind', async () => {
    const basicUser = `Basic ${Buffer.from(`${token}:`).toString('base64')}`;
    const basicUserOnly = `Basic ${Buffer.from(token).toString('base64')}`;
    const rows: { name: string; args: string[] }[] = [
      { name: 'no scheme', args: ['-H', `Authorization: ${token}`] },
      { name: 'Basic user, empty password', args: ['-H', `Authorization: ${basicUser}`] },
      { name: 'Basic user without a colon', args: ['-H', `Authorization: ${basicUserOnly}`] },
      // git's habit: the token as the URL's user (curl sends it as the Basic user).
      { name: 'https://$TOKEN@host', args: [] },
    ];
    for (const row of rows) {
      const url =
        row.args.length === 0 ? `http://${token}@vm1.localhost:${f.port}/` : f.vmUrl('vm1');
      const r = await curl(url, row.args);
      assert.equal(r.status, 201, `${row.name}: ${r.body}`); // the echo server's own status
      const echo = echoOf(r);
      assert.equal(headerText(echo.rawHeaders, 'authorization'), undefined, row.name);
      assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com', row.name);
      const everything = echo.rawHeaders.join('\n');
      assert.ok(!everything.includes(token.split('.')[2]!), `${row.name}: no signature`);
    }
  });

  test('a token in Authorization beside the preferred header is dropped too', async () => {
    const other = await f.vmToken('vm1', '{"exp":4000000000,"ctx":1}');
    for (const authorization of [other, `Basic ${Buffer.from(`${other}:x`).toString('base64')}`]) {
      const echo = echoOf(
        await curl(f.vmUrl('vm1'), [...withToken(token), '-H', `Authorization: ${authorization}`]),
      );
      assert.equal(headerText(echo.rawHeaders, 'authorization'), undefined);
    }
  });

  test('Forwarded, X-Real-IP and every exit header a client sends never reach the VM', async () => {
    const echo = echoOf(
      await curl(f.vmUrl('vm1'), [
        ...withToken(token),
        '-H',
        'Forwarded: for=6.6.6.6;proto=https;host=evil.example',
        '-H',
        'FORWARDED: for=7.7.7.7',
        '-H',
        'X-Real-IP: 6.6.6.6',
        '-H',
        'X_Real_Ip: 7.7.7.7',
        '-H',
        'X-Exe-Exit: 0',
        '-H',
        'x_exe_exit: 0',
        '-H',
        'X-Exec-Exit: 0',
        '-H',
        'Forwarded-Custom: kept',
      ]),
    );
    const names = echo.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    for (const gone of ['forwarded', 'x-real-ip', 'x_real_ip', 'x-exe-exit', 'x_exe_exit']) {
      assert.ok(!names.includes(gone), `${gone} stays behind`);
    }
    assert.ok(!names.includes('x-exec-exit'), 'x-exec-exit stays behind');
    assert.equal(headerText(echo.rawHeaders, 'forwarded-custom'), 'kept');
    assert.equal(headerText(echo.rawHeaders, 'x-forwarded-for'), '127.0.0.1');
  });
});

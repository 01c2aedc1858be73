// `exectl mint --vm NAME` and `exectl mint --svc1 --vm NAME` (SPEC §8) against a real service:
// the client's main() in this process, the token then used on the VM proxy with real curl.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { main } from '../../../src/cli/main.js';
import {
  curl,
  echoOf,
  headerText,
  startProxyFixture,
  withToken,
  type ProxyFixture,
} from './fixture.js';

/** Runs `exectl <argv>` in-process with a clean environment pointed at the test service. */
async function exectl(f: ProxyFixture, argv: string[]) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const sink = (into: Buffer[]) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        into.push(chunk);
        done();
      },
    });
  const code = await main(argv, {
    stdin: Readable.from([]),
    stdout: sink(out),
    stderr: sink(err),
    env: { HOME: f.svc.dir.path, EXECTL_URL: f.svc.url, NO_COLOR: '1' },
  });
  return {
    code,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
  };
}

describe('exectl mint --vm: tokens for the VM proxy', () => {
  let f: ProxyFixture;
  let key: string;
  before(async () => {
    f = await startProxyFixture();
    key = f.svc.owner.key.path;
    await f.createVm('vm1');
    await f.startEchoServer('vm1');
    await f.createVm('vm2');
    await f.startEchoServer('vm2');
  });
  after(() => f.stop());

  test('a svc0 signed for v0@vm1.localhost opens vm1 only, and carries its ctx', async () => {
    const minted = await exectl(f, ['mint', '--vm', 'vm1', '--key', key, '--ctx', '{"who":"cli"}']);
    assert.equal(minted.code, 0, minted.stderr);
    assert.match(minted.stdout, /^svc0\.\S+\n$/);
    const token = minted.stdout.trim();

    const echo = echoOf(await curl(f.vmUrl('vm1'), withToken(token)));
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-token-ctx'), '{"who":"cli"}');
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com');
    assert.equal((await curl(f.vmUrl('vm2'), withToken(token))).status, 401);
    const exec = await curl(`${f.svc.url}/exec`, [
      '-H',
      `Authorization: Bearer ${token}`,
      '--data-binary',
      'whoami',
    ]);
    assert.equal(exec.status, 401);
    assert.deepEqual(JSON.parse(exec.body), { error: 'invalid token' });
  });

  test('--svc1 --vm exchanges it through the server for a svc1 that opens vm1 only', async () => {
    const minted = await exectl(f, ['mint', '--svc1', '--vm', 'vm1', '--key', key]);
    assert.equal(minted.code, 0, minted.stderr);
    assert.match(minted.stdout, /^svc1\.[A-Z2-7]{26}\n$/);
    const svc1 = minted.stdout.trim();

    const echo = echoOf(await curl(f.vmUrl('vm1'), ['-u', `git:${svc1}`]));
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com');
    assert.equal((await curl(f.vmUrl('vm2'), withToken(svc1))).status, 401);
  });
});

// Who gets through the VM proxy (SPEC §6): VM tokens of the owner and of users the VM is shared
// with, in any of the three places; everyone on a public VM; and one identical 401 for every
// failure, whether or not the VM exists. Real servers in real VMs, real curl and git.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKey, run, type GeneratedKey } from '../../helpers/keys.js';
import {
  curl,
  echoOf,
  FAR,
  headerText,
  startProxyFixture,
  withToken,
  type CurlResult,
  type ProxyFixture,
} from './fixture.js';

/** What a 401 looks like once the parts that differ per request or per VM are set aside. */
function comparable(r: CurlResult, vm: string) {
  const headers = r.headerList
    .filter(([name]) => name !== 'date' && name !== 'x-request-id')
    .map(([name, value]) => [name, value.replaceAll(`${vm}.localhost`, '<vm>.localhost')]);
  return { status: r.status, headers, body: r.body };
}

function assert401(r: CurlResult, vm: string, message: string) {
  assert.equal(r.status, 401, r.body);
  assert.deepEqual(JSON.parse(r.body), { error: message });
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(
    r.headers['www-authenticate'],
    `Bearer realm="${vm}.localhost", Basic realm="${vm}.localhost"`,
  );
}

describe('VM proxy: who may enter (SPEC §6)', () => {
  let f: ProxyFixture;
  let friend: GeneratedKey;
  let stranger: GeneratedKey;
  before(async () => {
    f = await startProxyFixture();
    friend = await f.svc.addAccount('friend@example.com');
    stranger = await f.svc.addAccount('stranger@example.com');
    await f.createVm('vm1');
    await f.startEchoServer('vm1');
    await f.createVm('vm2');
    await f.startEchoServer('vm2');
  });
  after(() => f.stop());

  test('every failure is the same 401 for an existing VM and a missing one', async () => {
    const unregistered = await generateKey(f.svc.dir.path, 'ed25519', { name: 'id_nobody' });
    const expired = `{"exp":1000000000}`;
    const svc1ForVm2 = await exchange(f, await f.vmToken('vm2'), 'vm2');
    // Each row gives the curl arguments for a request to `vm`.
    const rows: { name: string; message: string; args(vm: string): Promise<string[]> }[] = [
      {
        name: 'no token',
        message: 'missing or invalid Authorization header',
        args: async () => [],
      },
      {
        name: 'X-Exectl-Authorization without Bearer',
        message: 'missing or invalid Authorization header',
        args: async (vm) => ['-H', `X-Exectl-Authorization: ${await f.vmToken(vm)}`],
      },
      {
        name: 'Authorization that is not an exectl token',
        message: 'missing or invalid Authorization header',
        args: async () => ['-H', 'Authorization: Bearer abc.def'],
      },
      {
        name: 'malformed token',
        message: 'invalid token: malformed',
        args: async () => withToken('svc0.nonsense'),
      },
      {
        name: 'a token for vm2',
        message: 'invalid token',
        args: async () => withToken(await f.vmToken('vm2')),
      },
      {
        name: 'a svc1 made for vm2',
        message: 'invalid token',
        args: async () => withToken(svc1ForVm2),
      },
      {
        name: 'an API (/exec namespace) token',
        message: 'invalid token',
        args: async () => withToken(await f.svc.token(`{"exp":${FAR}}`)),
      },
      {
        name: 'an expired token',
        message: 'invalid token: expired',
        args: async (vm) => withToken(await f.vmToken(vm, expired)),
      },
      {
        name: "a stranger's token for the VM",
        message: 'invalid token',
        args: async (vm) => withToken(await f.vmToken(vm, `{"exp":${FAR}}`, stranger)),
      },
      {
        name: 'a token of an unregistered key',
        message: 'invalid token',
        args: async (vm) => withToken(await f.vmToken(vm, `{"exp":${FAR}}`, unregistered)),
      },
      {
        name: "a stranger's token in Basic auth",
        message: 'invalid token',
        args: async (vm) => ['-u', `git:${await f.vmToken(vm, `{"exp":${FAR}}`, stranger)}`],
      },
    ];
    for (const row of rows) {
      const existing = await curl(f.vmUrl('vm1'), await row.args('vm1'));
      const missing = await curl(f.vmUrl('ghost'), await row.args('ghost'));
      assert401(existing, 'vm1', row.message);
      assert401(missing, 'ghost', row.message);
      assert.deepEqual(comparable(existing, 'vm1'), comparable(missing, 'ghost'), row.name);
    }
    // The owner's own valid token for a VM that does not exist is refused like a stranger's.
    const ownerForGhost = await curl(f.vmUrl('ghost'), withToken(await f.vmToken('ghost')));
    assert401(ownerForGhost, 'ghost', 'invalid token');
  });

  test('Basic auth with the token as password (any user name), never forwarded', async () => {
    const token = await f.vmToken('vm1');
    for (const user of ['git', '', 'owner@example.com']) {
      const echo = echoOf(await curl(f.vmUrl('vm1'), ['-u', `${user}:${token}`]));
      assert.equal(headerText(echo.rawHeaders, 'authorization'), undefined);
      assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'owner@example.com');
    }
  });

  test('git clones through the proxy with the token in the URL (Basic after a challenge)', async () => {
    const port = await f.createVm('repo');
    await f.runInVm(
      'repo',
      'set -e; cd "$HOME"; git init -q work; cd work; ' +
        'git -c user.email=o@example.com -c user.name=o commit -q --allow-empty -m "first commit"; ' +
        'cd ..; git clone -q --bare work project.git; git -C project.git update-server-info; ' +
        `(setsid nohup python3 -m http.server ${port} --bind 127.0.0.1 > http.log 2>&1 < /dev/null &)`,
    );
    await f.waitForPort(port, 'http.log', 'repo');
    const token = await f.vmToken('repo');
    const dest = f.svc.dir.join('clone');
    const env = { HOME: f.svc.dir.path, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
    const url = `http://git:${token}@repo.localhost:${f.port}/project.git`;
    const clone = await run('git', ['-c', 'credential.helper=', 'clone', '-q', url, dest], { env });
    assert.equal(clone.code, 0, clone.stderr);
    const log = await run('git', ['-C', dest, 'log', '--format=%s'], { env });
    assert.equal(log.stdout, 'first commit\n');
    // Without the token git gets the 401 and gives up.
    const refused = await run(
      'git',
      ['clone', '-q', `http://repo.localhost:${f.port}/project.git`, f.svc.dir.join('no')],
      { env },
    );
    assert.notEqual(refused.code, 0);
  });

  test('a user the VM is shared with gets in with their own key; others do not', async () => {
    const friendToken = await f.vmToken('vm1', `{"exp":${FAR}}`, friend);
    const strangerToken = await f.vmToken('vm1', `{"exp":${FAR}}`, stranger);
    assert401(await curl(f.vmUrl('vm1'), withToken(friendToken)), 'vm1', 'invalid token');

    // Shared by an email written differently: emails compare case-insensitively.
    await f.exec('share add vm1 Friend@Example.COM');
    const echo = echoOf(await curl(f.vmUrl('vm1'), withToken(friendToken)));
    const friendAccount = f.svc.service.store.findAccountByEmail('friend@example.com')!;
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), 'friend@example.com');
    assert.equal(headerText(echo.rawHeaders, 'x-exectl-user-id'), friendAccount.userId);
    assert401(await curl(f.vmUrl('vm1'), withToken(strangerToken)), 'vm1', 'invalid token');
    // The friend's key signed for the /exec namespace is still no VM token.
    const friendApi = await f.svc.token(`{"exp":${FAR}}`, friend);
    assert401(await curl(f.vmUrl('vm1'), withToken(friendApi)), 'vm1', 'invalid token');
    // A svc1 the friend made with --vm works like the svc0 it stands for.
    const friendSvc1 = await exchange(f, friendToken, 'vm1', friend);
    assert.match(friendSvc1, /^svc1\.[A-Z2-7]{26}$/);
    const viaSvc1 = echoOf(await curl(f.vmUrl('vm1'), withToken(friendSvc1)));
    assert.equal(headerText(viaSvc1.rawHeaders, 'x-exectl-email'), 'friend@example.com');
    assert401(await curl(f.vmUrl('vm2'), withToken(friendSvc1)), 'vm2', 'invalid token');

    await f.exec('share remove vm1 Friend@Example.COM');
    assert401(await curl(f.vmUrl('vm1'), withToken(friendToken)), 'vm1', 'invalid token');
    assert401(await curl(f.vmUrl('vm1'), withToken(friendSvc1)), 'vm1', 'invalid token');
  });

  test('a public VM answers without a token and names a visitor whose token is valid', async () => {
    await f.createVm('pub');
    await f.startEchoServer('pub');
    await f.exec('share set-public pub');

    const anonymous = echoOf(await curl(f.vmUrl('pub')));
    assert.deepEqual(
      anonymous.rawHeaders.filter((_, i) => i % 2 === 0 && /^x-exectl-/i.test(_)),
      ['X-Exectl-Hop'],
    );
    assert.equal(headerText(anonymous.rawHeaders, 'x-forwarded-for'), '127.0.0.1');

    // Anyone's valid VM token for it names them, shared or not.
    const strangerToken = await f.vmToken('pub', `{"exp":${FAR},"ctx":{"n":1}}`, stranger);
    const named = echoOf(await curl(f.vmUrl('pub'), withToken(strangerToken)));
    assert.equal(headerText(named.rawHeaders, 'x-exectl-email'), 'stranger@example.com');
    assert.equal(headerText(named.rawHeaders, 'x-exectl-token-ctx'), '{"n":1}');

    // A token that fails makes the visit anonymous, and still never reaches the VM.
    const expired = await f.vmToken('pub', '{"exp":1000000000}', stranger);
    for (const args of [withToken(expired), ['-H', `Authorization: Bearer ${expired}`]]) {
      const echo = echoOf(await curl(f.vmUrl('pub'), args));
      assert.equal(headerText(echo.rawHeaders, 'x-exectl-email'), undefined);
      assert.equal(headerText(echo.rawHeaders, 'authorization'), undefined);
    }

    await f.exec('share set-private pub');
    assert401(await curl(f.vmUrl('pub')), 'pub', 'missing or invalid Authorization header');
  });
});

describe('VM proxy: rate limit per key, shared with /exec (SPEC §2)', () => {
  let f: ProxyFixture;
  before(async () => {
    f = await startProxyFixture({ rateLimit: { capacity: 3, refillMs: 3_600_000 } });
  });
  after(() => f.stop());

  test('the key that empties its bucket gets 429 with Retry-After, on /exec too', async () => {
    await f.createVm('vm1');
    await f.startEchoServer('vm1');
    // A key of its own: the setup above spent the owner's three requests.
    const visitor = await f.svc.addAccount('visitor@example.com');
    await f.exec('share add vm1 visitor@example.com');
    const token = await f.vmToken('vm1', `{"exp":${FAR}}`, visitor);

    for (let i = 0; i < 3; i++) echoOf(await curl(f.vmUrl('vm1'), withToken(token)));
    const limited = await curl(f.vmUrl('vm1'), withToken(token));
    assert.equal(limited.status, 429);
    assert.deepEqual(JSON.parse(limited.body), { error: 'rate limit exceeded' });
    // One request back every 1200 s; the seconds already gone since the bucket began to refill
    // count (a busy machine may take more than one for the requests above).
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter > 1140 && retryAfter <= 1200, `Retry-After ${retryAfter}`);
    const api = await f.svc.token(`{"exp":${FAR}}`, visitor);
    const exec = await curl(`${f.svc.url}/exec`, [
      '-H',
      `Authorization: Bearer ${api}`,
      '--data-binary',
      'whoami',
    ]);
    assert.equal(exec.status, 429);
  });
});

/** `svc0-to-svc1 --vm <vm>` on /exec, as `key`'s account: the svc1 for a VM token. */
async function exchange(
  f: ProxyFixture,
  svc0: string,
  vm: string,
  key?: GeneratedKey,
): Promise<string> {
  const answer = (await f.exec(`svc0-to-svc1 --vm ${vm} ${svc0}`, key)) as { token: string };
  return answer.token;
}

// The VM proxy remembers its last admissions while the store is unchanged (http/admission-memo.ts).
// Each test lets a token in once (so that it is remembered), changes what the admission depended
// on, and sends the very same request again: it must get what a fresh admission gives. Real VMs,
// a real echo server, real curl.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { generateKey, type GeneratedKey } from '../../helpers/keys.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import { curl, FAR, startProxyFixture, withToken, type ProxyFixture } from './fixture.js';

describe('VM proxy: a remembered admission never outlives what it was based on', () => {
  let f: ProxyFixture;
  let friend: GeneratedKey;
  before(async () => {
    f = await startProxyFixture();
    friend = await f.svc.addAccount('friend@example.com');
    await f.createVm('memo');
    await f.startEchoServer('memo');
    await f.exec('share add memo friend@example.com');
  });
  after(() => f.stop());

  const get = async (token: string) => {
    const r = await curl(f.vmUrl('memo'), withToken(token));
    // The echo server answers 201: anything below 400 came from it.
    return { status: r.status, error: r.status < 400 ? null : JSON.parse(r.body).error };
  };

  test('a share removed, then given again', async () => {
    const token = await f.vmToken('memo', `{"exp":${FAR}}`, friend);
    assert.deepEqual(await get(token), { status: 201, error: null });
    assert.deepEqual(await get(token), { status: 201, error: null });
    await f.exec('share remove memo friend@example.com');
    assert.deepEqual(await get(token), { status: 401, error: 'invalid token' });
    await f.exec('share add memo friend@example.com');
    assert.deepEqual(await get(token), { status: 201, error: null });
  });

  // The store's own write, as `pause` makes it (the command itself needs the bwrap runtime).
  const setStatus = (status: 'paused' | 'running') => {
    const vm = f.svc.service.store.getVmByName('memo')!;
    f.svc.service.store.setStatus(vm.id, status);
  };

  test('the VM paused, then resumed', async () => {
    const token = await f.vmToken('memo');
    assert.deepEqual(await get(token), { status: 201, error: null });
    setStatus('paused');
    assert.deepEqual(await get(token), { status: 503, error: 'vm "memo" is paused' });
    setStatus('running');
    assert.deepEqual(await get(token), { status: 201, error: null });
  });

  test("the signer's key removed", async () => {
    const leaver = await generateKey(f.svc.dir.path, 'ed25519', { name: 'id_leaver' });
    const key = parsePublicKey(leaver.publicKeyLine);
    f.svc.service.store.createAccount('leaver@example.com', [
      { fingerprint: key.fingerprint, name: 'k', publicKey: key.toOpenSsh(), keyType: key.type },
    ]);
    await f.exec('share add memo leaver@example.com');
    const token = await f.vmToken('memo', `{"exp":${FAR}}`, leaver);
    assert.deepEqual(await get(token), { status: 201, error: null });
    f.svc.service.store.removeKey(key.fingerprint);
    assert.deepEqual(await get(token), { status: 401, error: 'invalid token' });
  });

  test('the token expired', async () => {
    // Valid for 4–5 s: the first request (a signature with ssh-keygen, curl) gets in on a
    // loaded machine too.
    const exp = Math.floor(Date.now() / 1000) + 5;
    const token = await f.vmToken('memo', `{"exp":${exp}}`);
    assert.deepEqual(await get(token), { status: 201, error: null });
    // Past `exp` by the server's clock (whole seconds): at most a few seconds from now.
    while (Date.now() / 1000 < exp + 1) await sleep(200);
    assert.deepEqual(await get(token), { status: 401, error: 'invalid token: expired' });
  });

  test('a change committed by another process (SQLite data_version)', async () => {
    const token = await f.vmToken('memo');
    assert.deepEqual(await get(token), { status: 201, error: null });
    const db = new Database(f.svc.dir.join('data', 'exectl.db'));
    try {
      db.prepare(`UPDATE vms SET status = 'paused' WHERE name = 'memo'`).run();
      assert.deepEqual(await get(token), { status: 503, error: 'vm "memo" is paused' });
      db.prepare(`UPDATE vms SET status = 'running' WHERE name = 'memo'`).run();
    } finally {
      db.close();
    }
    assert.deepEqual(await get(token), { status: 201, error: null });
  });
});

describe('VM proxy: a remembered admission still takes from the key bucket', () => {
  let f: ProxyFixture;
  let friend: GeneratedKey;
  before(async () => {
    // The owner's /exec calls have a bucket of their own key; the friend's has 3 requests.
    f = await startProxyFixture({ rateLimit: { capacity: 3, refillMs: 3_600_000 } });
    friend = await f.svc.addAccount('friend@example.com');
    await f.createVm('bucket');
    await f.startEchoServer('bucket');
    await f.exec('share add bucket friend@example.com');
  });
  after(() => f.stop());

  test('the fourth request of a 3-request bucket is 429, remembered or not', async () => {
    const token = await f.vmToken('bucket', `{"exp":${FAR}}`, friend);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await curl(f.vmUrl('bucket'), withToken(token))).status);
    assert.deepEqual(statuses, [201, 201, 201, 429]);
  });
});

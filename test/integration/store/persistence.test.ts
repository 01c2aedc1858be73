// Everything the store holds is on disk: closing and opening the file again (as a server restart
// does) gives back exactly the same records, and the file works from a second process too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { openStore, type Store } from '../../../src/service/store/index.js';

let dir: TempDir;
before(async () => {
  dir = await createTempDir('persist');
});
after(() => dir.remove());

/** Every record reachable through the store's read methods. */
function snapshot(store: Store) {
  return store.listAccounts().map((account) => {
    const team = store.getTeamOfAccount(account.id);
    return {
      account,
      team,
      members: team === undefined ? [] : store.listTeamMembers(team.team.id),
      keys: store.listKeys(account.id),
      vms: store
        .listVmsVisibleTo(account.id)
        .map((vm) => ({ vm, shares: store.listShares(vm.id) })),
      integrations: store.listIntegrations(account.id),
    };
  });
}

test('close and reopen gives back every record, byte for byte', () => {
  const path = dir.join('exectl.db');
  const now = () => new Date('2025-07-01T08:00:00Z');
  const store = openStore(path, { now });
  const ada = store.createAccount('ada@x.io');
  const bob = store.createAccount('bob@x.io');
  store.addTeamMember(store.getTeamOfAccount(ada.id)!.team.id, bob.id);
  const key = store.addKey({
    accountId: ada.id,
    name: 'laptop',
    fingerprint: 'SHA256:abc',
    publicKey: 'ssh-ed25519 AAAA ada@laptop',
    keyType: 'ssh-ed25519',
  });
  store.recordKeyUse(key.fingerprint, new Date('2025-07-01T09:00:00Z'));
  const svc1 = store.findOrCreateSvc1({
    fingerprint: key.fingerprint,
    namespace: 'v0@localhost',
    payload: Buffer.from('{}'),
    svc0: 'svc0.e30.sig',
    exp: null,
    newHandle: () => 'svc1.PERSISTPERSISTPERSISTPERS',
  });
  store.createIntegration({
    accountId: ada.id,
    name: 'gh',
    type: 'github',
    target: 'https://github.com',
    headers: ['Authorization: token x'],
    attachments: ['tag:code'],
  });
  const vm = store.createVm({
    accountId: ada.id,
    name: 'web',
    emoji: '🐳',
    status: 'running',
    tags: ['code'],
    comment: 'c',
    env: { K: 'V' },
    setupScript: 'true',
    integrations: ['reflection'],
  });
  store.addShare(vm.id, 'bob@x.io');
  store.setVisibility(vm.id, 'public');
  const before = snapshot(store);
  store.close();
  store.close(); // a second close is harmless

  const reopened = openStore(path, { now });
  try {
    assert.deepEqual(snapshot(reopened), before);
    assert.deepEqual(reopened.findSvc1(svc1.handle), svc1);
    assert.equal(
      reopened.findKeyByFingerprint(key.fingerprint)?.lastUsedAt,
      '2025-07-01T09:00:00Z',
    );
    assert.deepEqual(reopened.getVmByReflectionSecret(vm.reflectionSecret)?.name, 'web');
  } finally {
    reopened.close();
  }

  // Another process sees the same data (as `exectl serve accounts list` would next to a server).
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { openStore } from ${JSON.stringify(new URL('../../../src/service/store/index.ts', import.meta.url).href)};
       const s = openStore(${JSON.stringify(path)});
       console.log(JSON.stringify(s.listAccounts().map((a) => a.email)));
       s.close();`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(child.stderr, '');
  assert.equal(child.stdout, '["ada@x.io","bob@x.io"]\n');
});

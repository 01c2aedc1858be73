import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Account, AttachmentSpec } from '../../../../src/service/store/index.js';
import { T0, openFixture, type StoreFixture } from '../../../helpers/store.js';

let f: StoreFixture;
let ada: Account;
let bob: Account;
before(async () => {
  f = await openFixture();
  ada = f.store.createAccount('ada@x.io');
  bob = f.store.createAccount('bob@x.io');
});
after(() => f.cleanup());

describe('createIntegration', () => {
  test('stores every field; non-reflection types expose no reflection fields', () => {
    const llm = f.store.createIntegration({
      accountId: ada.id,
      name: 'llm',
      type: 'llm',
      comment: 'models',
      target: 'https://llm.example/v1',
      headers: ['Authorization: Bearer sk-secret', 'X-Org: 7'],
      attachments: ['tag:ai', 'auto:all', 'tag:ai'],
    });
    assert.deepEqual(llm, {
      id: llm.id,
      accountId: ada.id,
      name: 'llm',
      type: 'llm',
      comment: 'models',
      target: 'https://llm.example/v1',
      headers: ['Authorization: Bearer sk-secret', 'X-Org: 7'],
      attachments: ['auto:all', 'tag:ai'],
      reflectionFields: [],
      createdAt: T0,
    });
    assert.deepEqual(f.store.getIntegration(ada.id, 'llm'), llm);
  });

  test('a reflection integration opts into all fields by default, or the ones given', () => {
    const narrow = f.store.createIntegration({
      accountId: ada.id,
      name: 'narrow',
      type: 'reflection',
      reflectionFields: ['tags'],
    });
    assert.deepEqual(
      [narrow.reflectionFields, narrow.target, narrow.attachments],
      [['tags'], null, []],
    );
  });

  test('refuses a name the account already uses; another account may use it', () => {
    assert.throws(
      () => f.store.createIntegration({ accountId: ada.id, name: 'llm', type: 'github' }),
      {
        kind: 'duplicate',
        message: 'integration "llm" already exists',
      },
    );
    assert.equal(
      f.store.createIntegration({ accountId: bob.id, name: 'llm', type: 'llm' }).accountId,
      bob.id,
    );
  });
});

describe('read, update, rename, remove', () => {
  test('listIntegrations lists the account’s own, by name', () => {
    assert.deepEqual(
      f.store.listIntegrations(ada.id).map((i) => i.name),
      ['llm', 'narrow', 'reflection'],
    );
    assert.equal(f.store.getIntegration(bob.id, 'narrow'), undefined);
  });

  test('updateIntegration changes the given fields only, including clearing the target', () => {
    const llm = f.store.getIntegration(ada.id, 'llm')!;
    assert.deepEqual(f.store.updateIntegration(llm.id, { headers: ['K: V'] }), {
      ...llm,
      headers: ['K: V'],
    });
    assert.deepEqual(
      f.store.updateIntegration(llm.id, {
        comment: 'c',
        target: null,
        reflectionFields: ['email'],
      }),
      {
        ...llm,
        headers: ['K: V'],
        comment: 'c',
        target: null,
        reflectionFields: ['email'],
      },
    );
  });

  test('renameIntegration renames; a taken name is refused', () => {
    const narrow = f.store.getIntegration(ada.id, 'narrow')!;
    assert.equal(f.store.renameIntegration(narrow.id, 'thin').name, 'thin');
    assert.throws(() => f.store.renameIntegration(narrow.id, 'llm'), {
      kind: 'duplicate',
      message: 'integration "llm" already exists',
    });
  });

  test('removeIntegration returns what it removed', () => {
    const thin = f.store.getIntegration(ada.id, 'thin')!;
    assert.deepEqual(f.store.removeIntegration(thin.id), thin);
    assert.equal(f.store.getIntegration(ada.id, 'thin'), undefined);
  });

  test('an integration that no longer exists is a not_found conflict for every change', () => {
    const changes = [
      () => f.store.updateIntegration(9999, {}),
      () => f.store.renameIntegration(9999, 'x'),
      () => f.store.removeIntegration(9999),
      () => f.store.attachIntegration(9999, 'auto:all'),
      () => f.store.detachIntegration(9999, 'auto:all'),
    ];
    for (const change of changes) {
      assert.throws(change, { kind: 'not_found', message: 'integration no longer exists' });
    }
  });
});

describe('attach / detach', () => {
  test('attach adds a spec; twice is refused', () => {
    const llm = f.store.getIntegration(ada.id, 'llm')!;
    assert.deepEqual(f.store.attachIntegration(llm.id, 'vm:web').attachments, [
      'auto:all',
      'tag:ai',
      'vm:web',
    ]);
    assert.throws(() => f.store.attachIntegration(llm.id, 'vm:web'), {
      kind: 'duplicate',
      message: 'integration "llm" is already attached to vm:web',
    });
  });

  test('detach removes a spec; an absent one is refused', () => {
    const llm = f.store.getIntegration(ada.id, 'llm')!;
    assert.deepEqual(f.store.detachIntegration(llm.id, 'auto:all').attachments, [
      'tag:ai',
      'vm:web',
    ]);
    assert.throws(() => f.store.detachIntegration(llm.id, 'auto:all'), {
      kind: 'not_found',
      message: 'integration "llm" is not attached to auto:all',
    });
  });
});

describe('integrationsForVm', () => {
  // A fresh account per case: its default `reflection` (auto:all) plus one integration `probe`
  // attached with the case's specs, and the VM `vm` below; other VMs/accounts must not matter.
  const cases: { specs: AttachmentSpec[]; vmTags: string[]; sees: boolean }[] = [
    { specs: [], vmTags: ['db'], sees: false },
    { specs: ['auto:all'], vmTags: [], sees: true },
    { specs: ['tag:db'], vmTags: ['db'], sees: true },
    { specs: ['tag:db'], vmTags: ['web', 'db'], sees: true },
    { specs: ['tag:db'], vmTags: ['dbx'], sees: false },
    { specs: ['tag:db'], vmTags: [], sees: false },
    { specs: ['tag:d*'], vmTags: ['db'], sees: false },
    { specs: ['vm:target'], vmTags: [], sees: true },
    { specs: ['vm:other'], vmTags: ['other'], sees: false },
    { specs: ['vm:targe'], vmTags: [], sees: false },
    { specs: ['tag:nope', 'vm:target'], vmTags: [], sees: true },
    { specs: ['tag:nope', 'vm:other'], vmTags: ['target'], sees: false },
  ];
  cases.forEach(({ specs, vmTags, sees }, i) => {
    test(`specs ${JSON.stringify(specs)} with VM tags ${JSON.stringify(vmTags)} → ${sees ? 'sees' : 'does not see'}`, () => {
      const owner = f.store.createAccount(`owner${i}@x.io`);
      f.store.createIntegration({
        accountId: owner.id,
        name: 'probe',
        type: 'http-proxy',
        attachments: specs,
      });
      // VM names are global: each case makes `target` and `other` and deletes them after.
      const other = f.store.createVm({
        accountId: owner.id,
        name: 'other',
        emoji: 'x',
        status: 'running',
        tags: ['db'],
      });
      const vm = f.store.createVm({
        accountId: owner.id,
        name: 'target',
        emoji: 'x',
        status: 'running',
        tags: vmTags,
      });
      try {
        assert.deepEqual(
          f.store.integrationsForVm(vm).map((x) => x.name),
          sees ? ['probe', 'reflection'] : ['reflection'],
        );
      } finally {
        f.store.deleteVm(vm.id);
        f.store.deleteVm(other.id);
      }
    });
  });

  test('never lists another account’s integrations, even ones attached to the VM’s name', () => {
    f.store.createIntegration({
      accountId: bob.id,
      name: 'sneaky',
      type: 'http-proxy',
      attachments: ['vm:adas', 'auto:all'],
    });
    const vm = f.store.createVm({
      accountId: ada.id,
      name: 'adas',
      emoji: 'x',
      status: 'running',
      tags: ['ai'],
    });
    assert.deepEqual(
      f.store.integrationsForVm(vm).map((x) => x.name),
      ['llm', 'reflection'],
    );
  });
});

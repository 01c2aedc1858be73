import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_VM_LIMITS,
  type Account,
  type VmRecord,
} from '../../../../src/service/store/index.js';
import { T0, countRows, openFixture, type StoreFixture } from '../../../helpers/store.js';

let f: StoreFixture;
let ada: Account;
let bob: Account;
before(async () => {
  f = await openFixture();
  ada = f.store.createAccount('ada@x.io');
  bob = f.store.createAccount('Bob@X.io');
});
after(() => f.cleanup());

const names = (vms: VmRecord[]) => vms.map((vm) => vm.name);
const newVm = (accountId: number, name: string, tags: string[] = []) =>
  f.store.createVm({ accountId, name, emoji: '🦊', status: 'running', tags });

describe('createVm', () => {
  test('stores every field, with defaults for the optional ones', () => {
    const vm = f.store.createVm({
      accountId: ada.id,
      name: 'web',
      emoji: '🐳',
      status: 'creating',
    });
    assert.match(vm.reflectionSecret, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(vm, {
      id: vm.id,
      name: 'web',
      accountId: ada.id,
      emoji: '🐳',
      status: 'creating',
      tags: [],
      comment: '',
      defaultPort: 8000,
      visibility: 'private',
      env: {},
      setupScript: null,
      setup: { status: 'none', lastLine: null },
      reflectionSecret: vm.reflectionSecret,
      createdAt: T0,
      limits: DEFAULT_VM_LIMITS,
      image: null,
      region: 'local',
    });
  });

  test('stores given values and attaches the named integrations to the VM', () => {
    f.store.createIntegration({
      accountId: ada.id,
      name: 'gh',
      type: 'github',
      target: 'https://github.com',
    });
    const vm = f.store.createVm({
      accountId: ada.id,
      name: 'api',
      emoji: '🚀',
      status: 'running',
      tags: ['db', 'blue', 'db'],
      comment: 'the api',
      defaultPort: 3000,
      visibility: 'public',
      env: { A: '1', EMPTY: '' },
      setupScript: 'apt-get install -y jq',
      integrations: ['gh'],
      image: { reference: 'ubuntu:22.04', digest: null, command: 'none' },
      region: 'fra',
    });
    assert.deepEqual(
      { ...vm, id: 0, reflectionSecret: '' },
      {
        id: 0,
        name: 'api',
        accountId: ada.id,
        emoji: '🚀',
        status: 'running',
        tags: ['blue', 'db'],
        comment: 'the api',
        defaultPort: 3000,
        visibility: 'public',
        env: { A: '1', EMPTY: '' },
        setupScript: 'apt-get install -y jq',
        setup: { status: 'running', lastLine: null },
        reflectionSecret: '',
        createdAt: T0,
        limits: DEFAULT_VM_LIMITS,
        image: { reference: 'ubuntu:22.04', digest: null, command: 'none' },
        region: 'fra',
      },
    );
    assert.deepEqual(f.store.getIntegration(ada.id, 'gh')?.attachments, ['vm:api']);
    const digest = `sha256:${'a'.repeat(64)}`;
    assert.deepEqual(f.store.setImageDigest(vm.id, digest).image, {
      reference: 'ubuntu:22.04',
      digest,
      command: 'none',
    });
  });

  test('gives each VM its own reflection secret', () => {
    const secrets = ['s1', 's2', 's3'].map((n) => newVm(ada.id, n).reflectionSecret);
    assert.equal(new Set(secrets).size, 3);
  });

  test('refuses a name taken by any account', () => {
    assert.throws(() => newVm(bob.id, 'web'), {
      kind: 'duplicate',
      message: 'vm name "web" is not available: choose another',
    });
  });

  test('refuses an unknown integration and then creates nothing', () => {
    assert.throws(
      () =>
        f.store.createVm({
          accountId: ada.id,
          name: 'ghost',
          emoji: '👻',
          status: 'creating',
          integrations: ['nope'],
        }),
      { kind: 'not_found', message: 'integration "nope" not found' },
    );
    assert.equal(f.store.getVmByName('ghost'), undefined);
    // Another account's integration of that name does not count either.
    f.store.createIntegration({
      accountId: bob.id,
      name: 'bobs',
      type: 'llm',
      target: 'http://127.0.0.1:9',
    });
    assert.throws(
      () =>
        f.store.createVm({
          accountId: ada.id,
          name: 'ghost',
          emoji: '👻',
          status: 'creating',
          integrations: ['bobs'],
        }),
      { message: 'integration "bobs" not found' },
    );
  });
});

describe('lookups', () => {
  test('by id, name and reflection secret; undefined when unknown', () => {
    const web = f.store.getVmByName('web')!;
    assert.deepEqual(f.store.getVm(web.id), web);
    assert.deepEqual(f.store.getVmByReflectionSecret(web.reflectionSecret), web);
    assert.equal(f.store.getVmByName('nope'), undefined);
    assert.equal(f.store.getVm(424242), undefined);
    assert.equal(f.store.getVmByReflectionSecret(web.reflectionSecret.slice(1)), undefined);
  });

  test('listVmsOwnedBy lists the owner’s VMs by name', () => {
    newVm(bob.id, 'bob-box');
    assert.deepEqual(names(f.store.listVmsOwnedBy(ada.id)), ['api', 's1', 's2', 's3', 'web']);
    assert.deepEqual(names(f.store.listVmsOwnedBy(bob.id)), ['bob-box']);
  });

  test('listVmsVisibleTo adds VMs shared with the account’s email, in any case', () => {
    const shared = newVm(ada.id, 'shared', ['team']);
    f.store.addShare(shared.id, 'BOB@x.IO');
    newVm(ada.id, 'not-shared');
    assert.deepEqual(names(f.store.listVmsVisibleTo(bob.id)), ['bob-box', 'shared']);
  });

  const patterns: [string, string[]][] = [
    ['*', ['api', 'not-shared', 's1', 's2', 's3', 'shared', 'web']],
    ['s?', ['s1', 's2', 's3']],
    ['s[12]', ['s1', 's2']],
    ['sh*', ['shared']],
    ['db', ['api']],
    ['bl*', ['api']],
    ['team', ['shared']],
    ['WEB', []],
    ['nothing*', []],
  ];
  for (const [pattern, expected] of patterns) {
    test(`listVmsVisibleTo with pattern ${JSON.stringify(pattern)} matches names and tags`, () => {
      assert.deepEqual(names(f.store.listVmsVisibleTo(ada.id, pattern)), expected);
    });
  }
});

describe('renameVm', () => {
  test('renames and moves the owner’s vm: attachments along', () => {
    const api = f.store.getVmByName('api')!;
    f.store.createIntegration({
      accountId: ada.id,
      name: 'both',
      type: 'http-proxy',
      target: 'http://127.0.0.1:9',
      attachments: ['vm:api', 'vm:api2'],
    });
    const renamed = f.store.renameVm(api.id, 'api2');
    // A new reflection secret too (SPEC §5): the old one no longer finds the VM.
    assert.deepEqual(renamed, { ...api, name: 'api2', reflectionSecret: renamed.reflectionSecret });
    assert.notEqual(renamed.reflectionSecret, api.reflectionSecret);
    assert.equal(f.store.getVmByReflectionSecret(api.reflectionSecret), undefined);
    assert.equal(f.store.getVmByName('api'), undefined);
    assert.deepEqual(f.store.getIntegration(ada.id, 'gh')?.attachments, ['vm:api2']);
    assert.deepEqual(f.store.getIntegration(ada.id, 'both')?.attachments, ['vm:api2']);
  });

  test('refuses a taken name and changes nothing', () => {
    const api2 = f.store.getVmByName('api2')!;
    assert.throws(() => f.store.renameVm(api2.id, 'bob-box'), {
      kind: 'duplicate',
      message: 'vm name "bob-box" is not available: choose another',
    });
    assert.deepEqual(f.store.getVm(api2.id), api2);
    assert.deepEqual(f.store.getIntegration(ada.id, 'gh')?.attachments, ['vm:api2']);
  });

  test('renaming to the same name changes nothing and keeps the attachments', () => {
    const api2 = f.store.getVmByName('api2')!;
    assert.deepEqual(f.store.renameVm(api2.id, 'api2'), api2);
    assert.deepEqual(f.store.getIntegration(ada.id, 'gh')?.attachments, ['vm:api2']);
  });
});

describe('VM ids', () => {
  test('the id of a deleted VM is never given to a new one (it names the VM disk)', () => {
    const last = newVm(ada.id, 'short-lived');
    f.store.deleteVm(last.id);
    const next = newVm(ada.id, 'next-one');
    assert.ok(next.id > last.id, `${next.id} reuses ${last.id}`);
  });
});

describe('tags', () => {
  test('setTags replaces, addTags adds, removeTags removes; always sorted and unique', () => {
    const web = f.store.getVmByName('web')!;
    assert.deepEqual(f.store.setTags(web.id, ['b', 'a', 'b']).tags, ['a', 'b']);
    assert.deepEqual(f.store.addTags(web.id, ['c', 'a']).tags, ['a', 'b', 'c']);
    assert.deepEqual(f.store.removeTags(web.id, ['a', 'zzz']).tags, ['b', 'c']);
    assert.deepEqual(f.store.setTags(web.id, []).tags, []);
  });
});

describe('setters', () => {
  test('each changes one field and returns the VM', () => {
    const web = f.store.getVmByName('web')!;
    assert.deepEqual(f.store.setComment(web.id, 'hello'), { ...web, comment: 'hello' });
    assert.deepEqual(f.store.setDefaultPort(web.id, 8080), {
      ...web,
      comment: 'hello',
      defaultPort: 8080,
    });
    assert.equal(f.store.setVisibility(web.id, 'public').visibility, 'public');
    assert.equal(f.store.setStatus(web.id, 'stopped').status, 'stopped');
    assert.equal(f.store.setComment(web.id, '').comment, '');
    assert.deepEqual(f.store.getVm(web.id), {
      ...web,
      defaultPort: 8080,
      visibility: 'public',
      status: 'stopped',
    });
  });

  test('setEnv replaces the whole environment, as written back on reopen', () => {
    const vm = f.store.createVm({
      accountId: ada.id,
      name: 'envy',
      emoji: '🦊',
      status: 'running',
      env: { OLD: 'x', KEEP: 'y' },
    });
    const changed = f.store.setEnv(vm.id, { KEEP: 'z', NEW: 'a b=c' });
    assert.deepEqual(changed, { ...vm, env: { KEEP: 'z', NEW: 'a b=c' } });
    assert.deepEqual(f.reopen().getVm(vm.id)!.env, { KEEP: 'z', NEW: 'a b=c' });
    assert.deepEqual(f.store.setEnv(vm.id, {}).env, {});
    f.store.deleteVm(vm.id);
  });

  test('the life cycle: setStatusIf changes only from the given statuses; setSetup sets both', () => {
    const vm = f.store.createVm({
      accountId: ada.id,
      name: 'cycle',
      emoji: '🦊',
      status: 'creating',
      setupScript: 'sleep 40',
      limits: { cpus: 1, memoryBytes: 2 ** 30, pids: 100, diskBytes: 2 ** 31 },
    });
    assert.deepEqual(vm.setup, { status: 'running', lastLine: null });
    assert.deepEqual(vm.limits, { cpus: 1, memoryBytes: 2 ** 30, pids: 100, diskBytes: 2 ** 31 });
    assert.deepEqual(names(f.store.listVmsWithStatus('creating')), ['cycle']);
    assert.equal(f.store.setStatusIf(vm.id, ['running', 'paused'], 'stopped')?.status, 'creating');
    const failed = f.store.setSetup(vm.id, { status: 'failed', lastLine: 'E: no jq' }, 'failed');
    assert.deepEqual(
      [failed.status, failed.setup],
      ['failed', { status: 'failed', lastLine: 'E: no jq' }],
    );
    assert.deepEqual(f.reopen().getVm(vm.id)!.setup, { status: 'failed', lastLine: 'E: no jq' });
    assert.equal(f.store.setStatusIf(vm.id, ['failed'], 'running')?.status, 'running');
    assert.deepEqual(f.store.listVmsWithStatus('creating'), []);
    assert.equal(f.store.setStatusIf(9999, ['running'], 'stopped'), undefined);
    f.store.deleteVm(vm.id);
  });

  test('a VM that no longer exists is a not_found conflict for every change', () => {
    const changes = [
      () => f.store.renameVm(9999, 'x'),
      () => f.store.setTags(9999, ['a']),
      () => f.store.addTags(9999, ['a']),
      () => f.store.removeTags(9999, ['a']),
      () => f.store.setComment(9999, ''),
      () => f.store.setDefaultPort(9999, 8000),
      () => f.store.setVisibility(9999, 'private'),
      () => f.store.setStatus(9999, 'running'),
      () => f.store.setSetup(9999, { status: 'done', lastLine: null }, 'running'),
      () => f.store.setEnv(9999, {}),
      () => f.store.deleteVm(9999),
    ];
    for (const change of changes) {
      assert.throws(change, { kind: 'not_found', message: 'vm no longer exists' });
    }
  });
});

describe('deleteVm', () => {
  test('deletes the VM with its tags, shares and vm: attachments', () => {
    const shared = f.store.getVmByName('shared')!;
    f.store.attachIntegration(f.store.getIntegration(ada.id, 'gh')!.id, 'vm:shared');
    assert.deepEqual(f.store.deleteVm(shared.id), shared);
    assert.equal(f.store.getVmByName('shared'), undefined);
    assert.deepEqual(f.store.getIntegration(ada.id, 'gh')?.attachments, ['vm:api2']);
    const db = f.peek();
    assert.equal(countRows(db, `vm_tags WHERE vm_id = ${shared.id}`), 0);
    assert.equal(countRows(db, `vm_shares WHERE vm_id = ${shared.id}`), 0);
    assert.deepEqual(names(f.store.listVmsVisibleTo(bob.id)), ['bob-box']);
  });
});

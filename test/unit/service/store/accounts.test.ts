import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreConflictError } from '../../../../src/service/store/index.js';
import { T0, countRows, fakeKey, useTestStore } from '../../../helpers/store.js';

const f = useTestStore();

describe('createAccount', () => {
  test('creates the account, its own team and its reflection integration', () => {
    const account = f.store.createAccount('Ada.Lovelace@Example.org');
    assert.match(account.userId, /^usr_[a-z2-7]{16}$/);
    assert.deepEqual(account, {
      id: account.id,
      userId: account.userId,
      email: 'Ada.Lovelace@Example.org',
      createdAt: T0,
      region: 'local',
    });
    assert.deepEqual(f.store.getTeamOfAccount(account.id), {
      team: {
        id: f.store.getTeamOfAccount(account.id)!.team.id,
        name: "Ada.Lovelace's team",
        ownerAccountId: account.id,
        ownerEmail: 'Ada.Lovelace@Example.org',
        createdAt: T0,
      },
      role: 'owner',
    });
    const [reflection, ...others] = f.store.listIntegrations(account.id);
    assert.deepEqual(others, []);
    assert.deepEqual(reflection, {
      id: reflection!.id,
      accountId: account.id,
      name: 'reflection',
      type: 'reflection',
      comment: '',
      target: null,
      headers: [],
      attachments: ['auto:all'],
      reflectionFields: ['email', 'integrations', 'tags', 'comment', 'default_port'],
      createdAt: T0,
    });
  });

  test('refuses an email already taken, whatever its case, and leaves nothing behind', () => {
    const db = f.peek();
    const before = ['accounts', 'teams', 'team_members', 'integrations'].map((t) =>
      countRows(db, t),
    );
    assert.throws(
      () => f.store.createAccount('ada.lovelace@EXAMPLE.org'),
      (error: unknown) =>
        error instanceof StoreConflictError &&
        error.kind === 'duplicate' &&
        error.code === 'command_failed' &&
        error.status === 422 &&
        error.message === 'account ada.lovelace@EXAMPLE.org already exists',
    );
    const afterwards = ['accounts', 'teams', 'team_members', 'integrations'].map((t) =>
      countRows(db, t),
    );
    assert.deepEqual(afterwards, before);
  });

  test('registers the given keys with the account, or creates nothing when one is refused', () => {
    const { accountId: _, ...laptop } = fakeKey(0, 'keyed-laptop', 'laptop');
    const keyed = f.store.createAccount('keyed@x.io', [laptop]);
    assert.deepEqual(f.store.listKeys(keyed.id), [
      { ...laptop, accountId: keyed.id, addedAt: T0, lastUsedAt: null, tag: null },
    ]);
    const { accountId: __, ...fresh } = fakeKey(0, 'fresh');
    assert.throws(() => f.store.createAccount('late@x.io', [fresh, laptop]), {
      kind: 'duplicate',
      message: `ssh key ${laptop.fingerprint} is already registered`,
    });
    assert.equal(f.store.findAccountByEmail('late@x.io'), undefined);
    assert.equal(f.store.findKeyByFingerprint(fresh.fingerprint), undefined);
    f.store.removeAccount(keyed.id);
  });

  test('gives every account its own user id', () => {
    const ids = ['a@x.io', 'b@x.io', 'c@x.io'].map((email) => f.store.createAccount(email).userId);
    assert.equal(new Set(ids).size, 3);
  });
});

describe('lookups', () => {
  test('findAccountByEmail ignores case; getAccount by id; both undefined when unknown', () => {
    const ada = f.store.findAccountByEmail('ADA.LOVELACE@example.ORG');
    assert.equal(ada?.email, 'Ada.Lovelace@Example.org');
    assert.deepEqual(f.store.getAccount(ada!.id), ada);
    assert.equal(f.store.findAccountByEmail('nobody@x.io'), undefined);
    assert.equal(f.store.getAccount(999_999), undefined);
  });

  test('listAccounts lists every account, oldest first', () => {
    assert.deepEqual(
      f.store.listAccounts().map((a) => a.email),
      ['Ada.Lovelace@Example.org', 'a@x.io', 'b@x.io', 'c@x.io'],
    );
  });
});

describe('removeAccount', () => {
  test('deletes the account with everything it owns, and shares with its email', () => {
    const s = f.store;
    const gone = s.createAccount('gone@x.io');
    const stays = s.createAccount('stays@x.io');
    const key = s.addKey(fakeKey(gone.id, 'gone-laptop'));
    s.findOrCreateSvc1({
      fingerprint: key.fingerprint,
      namespace: 'v0@localhost',
      payload: Buffer.from('{}'),
      svc0: 'svc0.e30.c2ln',
      exp: null,
      newHandle: () => 'svc1.GONEGONEGONEGONEGONEGONEA',
    });
    const box = s.createVm({
      accountId: gone.id,
      name: 'box',
      emoji: '📦',
      status: 'running',
      tags: ['t'],
    });
    s.addShare(box.id, 'stays@x.io');
    const kept = s.createVm({ accountId: stays.id, name: 'kept', emoji: '🧷', status: 'running' });
    s.addShare(kept.id, 'GONE@x.io');
    s.addShare(kept.id, 'other@x.io');
    s.createIntegration({
      accountId: gone.id,
      name: 'llm',
      type: 'llm',
      target: 'http://127.0.0.1:9/',
      attachments: ['vm:box', 'tag:t'],
    });

    const removed = s.removeAccount(gone.id);

    assert.deepEqual(removed.account, gone);
    assert.deepEqual(
      removed.vms.map((vm) => vm.name),
      ['box'],
    );
    assert.equal(s.getAccount(gone.id), undefined);
    assert.equal(s.findKeyByFingerprint(key.fingerprint), undefined);
    assert.equal(s.findSvc1('svc1.GONEGONEGONEGONEGONEGONEA'), undefined);
    assert.equal(s.getVmByName('box'), undefined);
    assert.deepEqual(s.listIntegrations(gone.id), []);
    assert.equal(s.getTeamOfAccount(gone.id), undefined);
    assert.deepEqual(
      s.listShares(kept.id).map((share) => share.email),
      ['other@x.io'],
    );
    // Nothing of the account is left in any table (checked from another connection).
    const db = f.peek();
    const leftovers = [
      ['ssh_keys', 'account_id'],
      ['vms', 'account_id'],
      ['integrations', 'account_id'],
      ['team_members', 'account_id'],
      ['teams', 'owner_account_id'],
    ].map(([table, column]) => countRows(db, `${table} WHERE ${column} = ${gone.id}`));
    assert.deepEqual(leftovers, [0, 0, 0, 0, 0]);
    assert.equal(countRows(db, `vm_tags WHERE vm_id = ${box.id}`), 0);
    assert.equal(countRows(db, `vm_shares WHERE vm_id = ${box.id}`), 0);
    assert.equal(countRows(db, "integration_attachments WHERE spec IN ('vm:box', 'tag:t')"), 0);
    assert.equal(countRows(db, 'svc1_handles'), 0);
  });

  test('refuses to remove a team owner while others are in the team', () => {
    const owner = f.store.createAccount('owner@x.io');
    const member = f.store.createAccount('member@x.io');
    const team = f.store.getTeamOfAccount(owner.id)!.team;
    f.store.addTeamMember(team.id, member.id);
    assert.throws(() => f.store.removeAccount(owner.id), {
      name: 'StoreConflictError',
      kind: 'team_has_members',
      message: 'owner@x.io owns a team with other members',
    });
    assert.equal(f.store.getAccount(owner.id)?.email, 'owner@x.io');
    // A member can go; then the owner can too.
    f.store.removeAccount(member.id);
    assert.deepEqual(
      f.store.listTeamMembers(team.id).map((m) => m.email),
      ['owner@x.io'],
    );
    f.store.removeAccount(owner.id);
    assert.equal(f.store.findAccountByEmail('owner@x.io'), undefined);
  });

  test('says so when the account does not exist', () => {
    assert.throws(() => f.store.removeAccount(424_242), {
      kind: 'not_found',
      message: 'account no longer exists',
    });
  });
});

describe('setRegion', () => {
  test('records the region for the account alone; an account gone is a conflict', () => {
    const one = f.store.createAccount('region-one@x.io');
    const two = f.store.createAccount('region-two@x.io');
    f.store.setRegion(one.id, 'fra');
    assert.equal(f.store.getAccount(one.id)?.region, 'fra');
    assert.equal(f.store.getAccount(two.id)?.region, 'local');
    assert.throws(
      () => f.store.setRegion(999_999, 'fra'),
      (err) => err instanceof StoreConflictError && err.message === 'account no longer exists',
    );
  });
});

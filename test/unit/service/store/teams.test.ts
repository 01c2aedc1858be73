import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Account, TeamRecord } from '../../../../src/service/store/index.js';
import { T0, openFixture, type StoreFixture } from '../../../helpers/store.js';

let f: StoreFixture;
let owner: Account;
let alice: Account;
let bob: Account;
let team: TeamRecord;
before(async () => {
  f = await openFixture();
  owner = f.store.createAccount('owner@x.io');
  alice = f.store.createAccount('alice@x.io');
  bob = f.store.createAccount('bob@x.io');
  team = f.store.getTeamOfAccount(owner.id)!.team;
});
after(() => f.cleanup());

const emails = (members: { email: string; role: string }[]) =>
  members.map((m) => `${m.email}:${m.role}`);

describe('a new account', () => {
  test('is the owner and only member of its own team', () => {
    assert.deepEqual(team, {
      id: team.id,
      name: "owner's team",
      ownerAccountId: owner.id,
      ownerEmail: 'owner@x.io',
      createdAt: T0,
    });
    assert.deepEqual(f.store.listTeamMembers(team.id), [
      { accountId: owner.id, email: 'owner@x.io', role: 'owner', joinedAt: T0 },
    ]);
  });

  test('has no team when it does not exist', () => {
    assert.equal(f.store.getTeamOfAccount(777), undefined);
  });
});

describe('addTeamMember', () => {
  test('moves the account into the team as a member', () => {
    f.clock.advance(30);
    const members = f.store.addTeamMember(team.id, alice.id);
    assert.deepEqual(members, [
      { accountId: owner.id, email: 'owner@x.io', role: 'owner', joinedAt: T0 },
      {
        accountId: alice.id,
        email: 'alice@x.io',
        role: 'member',
        joinedAt: '2025-03-01T12:00:30Z',
      },
    ]);
    assert.deepEqual(f.store.getTeamOfAccount(alice.id), { team, role: 'member' });
    // Alice's own team still exists, with nobody in it.
    const alicesTeamId = f
      .peek()
      .prepare('SELECT id FROM teams WHERE owner_account_id = ?')
      .pluck()
      .get(alice.id);
    assert.deepEqual(f.store.listTeamMembers(alicesTeamId as number), []);
  });

  test('refuses what would break "one team at a time"', () => {
    const bobsTeam = f.store.getTeamOfAccount(bob.id)!.team;
    const refusals = [
      {
        why: 'already in this team',
        call: () => f.store.addTeamMember(team.id, alice.id),
        kind: 'duplicate',
        message: `alice@x.io is already a member of team "owner's team"`,
      },
      {
        why: 'in another team',
        call: () => f.store.addTeamMember(bobsTeam.id, alice.id),
        kind: 'team_membership',
        message: 'alice@x.io is already a member of another team',
      },
      {
        why: 'owner of a team with members',
        call: () => f.store.addTeamMember(bobsTeam.id, owner.id),
        kind: 'team_has_members',
        message: 'owner@x.io owns a team with other members',
      },
      {
        why: 'the owner joining its own team again',
        call: () => f.store.addTeamMember(team.id, owner.id),
        kind: 'duplicate',
        message: `owner@x.io is already a member of team "owner's team"`,
      },
      {
        why: 'an unknown team',
        call: () => f.store.addTeamMember(9999, bob.id),
        kind: 'not_found',
        message: 'team no longer exists',
      },
      {
        why: 'an unknown account',
        call: () => f.store.addTeamMember(team.id, 9999),
        kind: 'not_found',
        message: 'account no longer exists',
      },
    ];
    for (const { why, call, kind, message } of refusals) {
      assert.throws(call, { name: 'StoreConflictError', kind, message }, why);
    }
    assert.deepEqual(emails(f.store.listTeamMembers(team.id)), [
      'owner@x.io:owner',
      'alice@x.io:member',
    ]);
    assert.deepEqual(f.store.getTeamOfAccount(bob.id)?.role, 'owner');
  });
});

describe('removeTeamMember', () => {
  test('refuses a non-member and the owner', () => {
    assert.throws(() => f.store.removeTeamMember(team.id, bob.id), {
      kind: 'not_found',
      message: `bob@x.io is not a member of team "owner's team"`,
    });
    assert.throws(() => f.store.removeTeamMember(team.id, owner.id), {
      kind: 'team_membership',
      message: `owner@x.io owns team "owner's team" and cannot leave it`,
    });
  });

  test('moves the member back to its own team as owner', () => {
    f.clock.advance(30);
    assert.deepEqual(emails(f.store.removeTeamMember(team.id, alice.id)), ['owner@x.io:owner']);
    const back = f.store.getTeamOfAccount(alice.id)!;
    assert.equal(back.role, 'owner');
    assert.equal(back.team.name, "alice's team");
    assert.deepEqual(f.store.listTeamMembers(back.team.id), [
      { accountId: alice.id, email: 'alice@x.io', role: 'owner', joinedAt: '2025-03-01T12:01:00Z' },
    ]);
  });
});

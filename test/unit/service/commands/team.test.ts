import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCommandFixture, T0, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;
let carol: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
  carol = fx.addUser('carol@example.com');
});
after(() => fx.cleanup());

const T1 = '2025-03-01T12:10:00Z';

test('every account starts as the owner of its own one-member team', async () => {
  assert.deepEqual(await fx.run(ada, 'team'), {
    team: { name: "ada's team", owner: 'ada@example.com', members: 1 },
    role: 'owner',
  });
  assert.deepEqual(await fx.run(ada, 'team members'), {
    members: [{ email: 'ada@example.com', role: 'owner', joined_at: T0 }],
  });
});

test('team add moves an existing account in; team and team members show it', async () => {
  fx.advance(600);
  assert.deepEqual(await fx.run(ada, 'team add bob@example.com'), {
    members: [
      { email: 'ada@example.com', role: 'owner', joined_at: T0 },
      { email: 'bob@example.com', role: 'member', joined_at: T1 },
    ],
  });
  assert.deepEqual(await fx.run(bob, 'team'), {
    team: { name: "ada's team", owner: 'ada@example.com', members: 2 },
    role: 'member',
  });
  assert.deepEqual(await fx.run(bob, 'team members'), await fx.run(ada, 'team members'));
  assert.equal(
    await fx.text(bob, 'team'),
    "team:      ada's team\nowner:     ada@example.com\nmembers:   2\nyour role: member\n",
  );
  assert.equal(
    await fx.text(ada, 'team members'),
    'EMAIL            ROLE    JOINED\n' +
      `ada@example.com  owner   ${T0}\n` +
      `bob@example.com  member  ${T1}\n`,
  );
});

test('team add/remove failures', async () => {
  const cases: [who: User, line: string, message: string][] = [
    [
      ada,
      'team add nobody@example.com',
      'cannot add "nobody@example.com": no such account, or it owns or belongs to another team',
    ],
    [ada, 'team remove nobody@example.com', 'no account for "nobody@example.com"'],
    [ada, 'team add bob@example.com', `bob@example.com is already a member of team "ada's team"`],
    [
      ada,
      'team remove carol@example.com',
      `carol@example.com is not a member of team "ada's team"`,
    ],
    [
      ada,
      'team remove ada@example.com',
      `ada@example.com owns team "ada's team" and cannot leave it`,
    ],
    [bob, 'team add carol@example.com', `only the owner of team "ada's team" can add members`],
    [bob, 'team remove ada@example.com', `only the owner of team "ada's team" can remove members`],
    [
      carol,
      'team add bob@example.com',
      'cannot add "bob@example.com": no such account, or it owns or belongs to another team',
    ],
    [
      carol,
      'team add ada@example.com',
      'cannot add "ada@example.com": no such account, or it owns or belongs to another team',
    ],
    [
      ada,
      'team leave',
      `you own team "ada's team" and cannot leave it: remove its members instead`,
    ],
    [ada, 'team add', 'missing argument <email>'],
  ];
  for (const [who, line, message] of cases) {
    assert.deepEqual(await fx.fail(who, line), { status: 422, message, body: undefined }, line);
  }
});

test('team remove sends the member back to its own team', async () => {
  assert.deepEqual(await fx.run(ada, 'team remove bob@example.com'), {
    members: [{ email: 'ada@example.com', role: 'owner', joined_at: T0 }],
  });
  assert.deepEqual(await fx.run(bob, 'team'), {
    team: { name: "bob's team", owner: 'bob@example.com', members: 1 },
    role: 'owner',
  });
});

test('team leave: a member leaves and is alone in its own team again', async () => {
  await fx.run(ada, 'team add bob@example.com');
  assert.deepEqual(await fx.run(bob, 'team leave'), { team: null });
  assert.deepEqual(await fx.run(bob, 'team'), {
    team: { name: "bob's team", owner: 'bob@example.com', members: 1 },
    role: 'owner',
  });
  assert.deepEqual(await fx.run(ada, 'team members'), {
    members: [{ email: 'ada@example.com', role: 'owner', joined_at: T0 }],
  });
  assert.equal(
    await fx.text(ada, 'team add bob@example.com').then(() => fx.text(bob, 'team leave')),
    'left the team\n',
  );
});

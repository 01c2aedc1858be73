// Teams by consent (SPEC §3): `team add` invites, the account joins only with `team accept`
// (`team decline` refuses); refusals never tell whether an email has an account; `team remove`
// never touches the removed account's VMs, keys or reflection secrets.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openCommandFixture, T0, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;
let carol: User;
let dan: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
  carol = fx.addUser('carol@example.com');
  dan = fx.addUser('dan@example.com');
});
after(() => fx.cleanup());

const T1 = '2025-03-01T12:10:00Z';
const T2 = '2025-03-01T12:20:00Z';
const ADA_ALONE = { members: [{ email: 'ada@example.com', role: 'owner', joined_at: T0 }] };
const CANNOT_ADD = (email: string) =>
  `cannot add "${email}": no such account, or it owns or belongs to another team`;

test('every account starts as the owner of its own one-member team, with no invitations', async () => {
  assert.deepEqual(await fx.run(ada, 'team'), {
    team: { name: "ada's team", owner: 'ada@example.com', members: 1 },
    role: 'owner',
    invitations: [],
  });
  assert.deepEqual(await fx.run(ada, 'team members'), ADA_ALONE);
});

test('team add invites: the account is listed invited and stays in its own team', async () => {
  fx.advance(600);
  const invited = {
    members: [
      { email: 'ada@example.com', role: 'owner', joined_at: T0 },
      { email: 'bob@example.com', role: 'invited', joined_at: null, invited_at: T1 },
    ],
  };
  assert.deepEqual(await fx.run(ada, 'team add bob@example.com'), invited);
  // A second invitation changes nothing, its time included.
  fx.advance(600);
  assert.deepEqual(await fx.run(ada, 'team add bob@example.com'), invited);
  assert.deepEqual(await fx.run(ada, 'team members'), invited);
  assert.deepEqual(await fx.run(bob, 'team'), {
    team: { name: "bob's team", owner: 'bob@example.com', members: 1 },
    role: 'owner',
    invitations: [{ team: "ada's team", owner: 'ada@example.com', invited_at: T1 }],
  });
  assert.equal(
    await fx.text(bob, 'team'),
    "team:      bob's team\nowner:     bob@example.com\nmembers:   1\nyour role: owner\n" +
      `invited to ada's team at ${T1}: team accept ada@example.com\n`,
  );
  assert.equal(
    await fx.text(ada, 'team members'),
    'EMAIL            ROLE     SINCE\n' +
      `ada@example.com  owner    ${T0}\n` +
      `bob@example.com  invited  ${T1}\n`,
  );
});

test('team accept joins the team; its members then see the account as a member', async () => {
  assert.deepEqual(await fx.run(bob, 'team accept ada@example.com'), {
    team: { name: "ada's team", owner: 'ada@example.com', members: 2 },
    role: 'member',
    invitations: [],
  });
  assert.deepEqual(await fx.run(ada, 'team members'), {
    members: [
      { email: 'ada@example.com', role: 'owner', joined_at: T0 },
      { email: 'bob@example.com', role: 'member', joined_at: T2 },
    ],
  });
  assert.deepEqual(await fx.run(bob, 'team members'), await fx.run(ada, 'team members'));
});

test('failures: one refusal whether or not an email has an account, or where it is', async () => {
  const cases: [who: User, line: string, message: string][] = [
    [ada, 'team add nobody@example.com', CANNOT_ADD('nobody@example.com')],
    // bob is in ada's team: carol cannot invite him, and learns no more than of nobody.
    [carol, 'team add bob@example.com', CANNOT_ADD('bob@example.com')],
    // ada owns a team with a member.
    [carol, 'team add ada@example.com', CANNOT_ADD('ada@example.com')],
    [ada, 'team add bob@example.com', `bob@example.com is already a member of team "ada's team"`],
    [
      ada,
      'team remove nobody@example.com',
      `"nobody@example.com" is not a member of team "ada's team"`,
    ],
    [
      ada,
      'team remove carol@example.com',
      `"carol@example.com" is not a member of team "ada's team"`,
    ],
    [
      ada,
      'team remove ada@example.com',
      `ada@example.com owns team "ada's team" and cannot leave it`,
    ],
    [bob, 'team add carol@example.com', `only the owner of team "ada's team" can add members`],
    [bob, 'team remove ada@example.com', `only the owner of team "ada's team" can remove members`],
    [
      ada,
      'team leave',
      `you own team "ada's team" and cannot leave it: remove its members instead`,
    ],
    [carol, 'team accept ada@example.com', 'no invitation from "ada@example.com": see team'],
    [carol, 'team accept nobody@example.com', 'no invitation from "nobody@example.com": see team'],
    [carol, 'team decline ada@example.com', 'no invitation from "ada@example.com": see team'],
    [ada, 'team add', 'missing argument <email>'],
    [ada, 'team accept', 'missing argument <owner-email>'],
  ];
  for (const [who, line, message] of cases) {
    assert.deepEqual(await fx.fail(who, line), { status: 422, message, body: undefined }, line);
  }
});

test('an invitation taken while in another team is refused until the account leaves it', async () => {
  // carol invites dan; dan joins ada's team first (invited and accepted), then tries carol's.
  await fx.run(carol, 'team add dan@example.com');
  await fx.run(ada, 'team add dan@example.com');
  await fx.run(dan, 'team accept ada@example.com');
  assert.deepEqual(await fx.fail(dan, 'team accept carol@example.com'), {
    status: 422,
    message: `you are a member of team "ada's team": run team leave first`,
    body: undefined,
  });
  await fx.run(dan, 'team leave');
  assert.deepEqual(
    ((await fx.run(dan, 'team accept carol@example.com')) as { role: string }).role,
    'member',
  );
  await fx.run(dan, 'team leave');
});

test('team decline refuses one invitation or all; team remove withdraws one', async () => {
  await fx.run(ada, 'team add carol@example.com');
  await fx.run(dan, 'team add carol@example.com');
  const held = (await fx.run(carol, 'team decline dan@example.com')) as {
    invitations: { owner: string }[];
  };
  assert.deepEqual(
    held.invitations.map((i) => i.owner),
    ['ada@example.com'],
  );
  assert.deepEqual(await fx.run(carol, 'team decline'), { invitations: [] });
  assert.equal(await fx.text(carol, 'team decline'), 'no invitations\n');
  await fx.run(ada, 'team add carol@example.com');
  const afterRemove = (await fx.run(ada, 'team remove carol@example.com')) as {
    members: { email: string }[];
  };
  assert.ok(!afterRemove.members.some((m) => m.email === 'carol@example.com'));
  assert.deepEqual(((await fx.run(carol, 'team')) as { invitations: unknown[] }).invitations, []);
});

test("team remove sends a member back to its own team, never touching its VMs' secrets", async () => {
  fx.addVm(bob, 'bobs-vm');
  fx.addVm(ada, 'adas-vm');
  const secretOf = (name: string) => fx.store.getVmByName(name)!.reflectionSecret;
  const bobsSecret = secretOf('bobs-vm');
  const adasSecret = secretOf('adas-vm');
  assert.deepEqual(await fx.run(ada, 'team remove bob@example.com'), ADA_ALONE);
  assert.deepEqual(await fx.run(bob, 'team'), {
    team: { name: "bob's team", owner: 'bob@example.com', members: 1 },
    role: 'owner',
    invitations: [],
  });
  assert.equal(secretOf('bobs-vm'), bobsSecret, "the removed member's VM keeps its secret");
  assert.notEqual(secretOf('adas-vm'), adasSecret, "the team's own VMs get new secrets");
});

test('team leave: a member leaves and is alone in its own team again', async () => {
  await fx.run(ada, 'team add bob@example.com');
  await fx.run(bob, 'team accept ada@example.com');
  assert.deepEqual(await fx.run(bob, 'team leave'), { team: null });
  assert.deepEqual(await fx.run(bob, 'team'), {
    team: { name: "bob's team", owner: 'bob@example.com', members: 1 },
    role: 'owner',
    invitations: [],
  });
  assert.deepEqual(await fx.run(ada, 'team members'), ADA_ALONE);
});

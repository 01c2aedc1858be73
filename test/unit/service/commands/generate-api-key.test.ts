import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { isWellFormedSvc1, splitSvc0 } from '../../../../src/token/format.js';
import { parsePublicKey } from '../../../../src/token/keys.js';
import { verifySvc0, type VerifiedToken } from '../../../../src/token/verify.js';
import { openCommandFixture, T0_SECONDS, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  fx.addVm(ada, 'web');
});
after(() => fx.cleanup());

interface ApiKey {
  label: string;
  token: string;
  namespace: string;
  fingerprint: string;
  expires_at: string | null;
}

const DAY = 86_400;

/** Resolves the svc1 through the store and verifies its svc0 against the REGISTERED key. */
function resolveAndVerify(apiKey: ApiKey, namespace = apiKey.namespace): VerifiedToken {
  const record = fx.store.findSvc1(apiKey.token);
  assert.ok(record !== undefined, 'the svc1 is stored');
  assert.equal(record.fingerprint, apiKey.fingerprint);
  assert.equal(record.namespace, apiKey.namespace);
  return verifySvc0(record.svc0, {
    namespace,
    nowSeconds: T0_SECONDS,
    findKey: (fp) => {
      const key = fx.store.findKeyByFingerprint(fp);
      return key === undefined ? undefined : parsePublicKey(key.publicKey);
    },
  });
}

const payloadOf = (apiKey: ApiKey) =>
  splitSvc0(fx.store.findSvc1(apiKey.token)!.svc0).payload.toString('utf8');

test('defaults: a 30-day token with the default cmds, signed by a fresh registered key', async () => {
  const apiKey = (await fx.run(ada, 'ssh-key generate-api-key')) as ApiKey;
  assert.ok(isWellFormedSvc1(apiKey.token), apiKey.token);
  assert.deepEqual(apiKey, {
    label: 'api-key-2025-03-01',
    token: apiKey.token,
    namespace: 'v0@localhost',
    fingerprint: apiKey.fingerprint,
    expires_at: '2025-03-31T12:00:00Z',
  });
  const exp = T0_SECONDS + 30 * DAY;
  assert.equal(payloadOf(apiKey), `{"exp":${exp}}`);
  const verified = resolveAndVerify(apiKey);
  assert.deepEqual(verified.permissions, { exp });
  assert.equal(verified.fingerprint, apiKey.fingerprint);

  const key = fx.store.findKeyByFingerprint(apiKey.fingerprint);
  assert.equal(key?.accountId, ada.account.id);
  assert.equal(key?.name, 'api-key-2025-03-01');
  assert.equal(key?.keyType, 'ssh-ed25519');
  assert.equal(key?.publicKey, `${parsePublicKey(key!.publicKey).toOpenSsh()}`);
  assert.match(
    key!.publicKey,
    /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]+ api-key-2025-03-01$/,
  );

  // The next default label is made unique; the key is a different one.
  const second = (await fx.run(ada, 'ssh-key generate-api-key --exp=30d')) as ApiKey;
  assert.equal(second.label, 'api-key-2025-03-01-2');
  assert.notEqual(second.fingerprint, apiKey.fingerprint);
  assert.notEqual(second.token, apiKey.token);
});

test('--label, repeatable comma-separated --cmds, and every --exp unit', async () => {
  const apiKey = (await fx.run(
    ada,
    "ssh-key generate-api-key --label ci --cmds 'ls,share show' --cmds ' whoami ,ls' --exp 7d",
  )) as ApiKey;
  assert.equal(apiKey.label, 'ci');
  const exp = T0_SECONDS + 7 * DAY;
  assert.equal(payloadOf(apiKey), `{"exp":${exp},"cmds":["ls","share show","whoami"]}`);
  assert.deepEqual(resolveAndVerify(apiKey).permissions, {
    exp,
    cmds: ['ls', 'share show', 'whoami'],
  });

  const units: [exp: string, seconds: number][] = [
    ['1h', 3600],
    ['48h', 48 * 3600],
    ['2d', 2 * DAY],
    ['3w', 21 * DAY],
    ['1y', 365 * DAY],
  ];
  for (const [text, seconds] of units) {
    const made = (await fx.run(
      ada,
      `ssh-key generate-api-key --label exp-${text} --exp ${text}`,
    )) as ApiKey;
    assert.equal(
      made.expires_at,
      new Date((T0_SECONDS + seconds) * 1000).toISOString().replace('.000Z', 'Z'),
    );
    assert.equal(payloadOf(made), `{"exp":${T0_SECONDS + seconds}}`);
  }
});

test('--cmds takes ssh and ssh <vm> (SPEC §1.3), not ssh with more words', async () => {
  const apiKey = (await fx.run(
    ada,
    "ssh-key generate-api-key --label ssh-only --cmds 'ssh web,ssh' --exp 1h",
  )) as ApiKey;
  assert.equal(payloadOf(apiKey), `{"exp":${T0_SECONDS + 3600},"cmds":["ssh web","ssh"]}`);
  assert.equal(
    (await fx.fail(ada, "ssh-key generate-api-key --cmds 'ssh web ls'")).message,
    'unknown command in --cmds: "ssh web ls"',
  );
});

test('--exp never: no exp field, expires_at null', async () => {
  const apiKey = (await fx.run(
    ada,
    'ssh-key generate-api-key --label forever --exp never --cmds team',
  )) as ApiKey;
  assert.equal(apiKey.expires_at, null);
  assert.equal(payloadOf(apiKey), '{"cmds":["team"]}');
  assert.equal(fx.store.findSvc1(apiKey.token)?.exp, null);
});

test('--vm makes a VM token: namespace v0@<vm>.<domain>, invalid for the command endpoint', async () => {
  const apiKey = (await fx.run(ada, 'ssh-key generate-api-key --label webtok --vm web')) as ApiKey;
  assert.equal(apiKey.namespace, 'v0@web.localhost');
  resolveAndVerify(apiKey);
  assert.throws(() => resolveAndVerify(apiKey, 'v0@localhost'), { message: 'invalid token' });
});

test('failures leave no key behind', async () => {
  const keysBefore = fx.store.listKeys(ada.account.id).length;
  const expError = (text: string) =>
    `invalid --exp ${JSON.stringify(text)}: use a duration such as 30s, 15m, 1h, 7d, 2w or 1y, or never`;
  const cases: [line: string, message: string][] = [
    ['ssh-key generate-api-key --exp 0d', expError('0d')],
    ['ssh-key generate-api-key --exp 1500ms', expError('1500ms')],
    ['ssh-key generate-api-key --exp 30', expError('30')],
    ['ssh-key generate-api-key --exp Never', expError('Never')],
    ['ssh-key generate-api-key --exp 1.5d', expError('1.5d')],
    [
      'ssh-key generate-api-key --exp 76y',
      '--exp "76y" ends after 2100-01-01, the latest a token can expire',
    ],
    [
      'ssh-key generate-api-key --exp 99999999999999999999y',
      '--exp "99999999999999999999y" ends after 2100-01-01, the latest a token can expire',
    ],
    ['ssh-key generate-api-key --cmds lss', 'unknown command in --cmds: "lss"'],
    ['ssh-key generate-api-key --cmds ssh-key', 'unknown command in --cmds: "ssh-key"'],
    [
      "ssh-key generate-api-key --cmds 'ssh-key  list'",
      'unknown command in --cmds: "ssh-key  list"',
    ],
    ["ssh-key generate-api-key --cmds 'ls,,whoami'", 'empty entry in --cmds'],
    ['ssh-key generate-api-key --cmds ""', 'empty entry in --cmds'],
    ['ssh-key generate-api-key --label default', 'ssh key "default" already exists'],
    [
      'ssh-key generate-api-key --label SHA256:x',
      'invalid key name "SHA256:x": use 1 to 64 printable characters, not starting with "SHA256:"',
    ],
    ['ssh-key generate-api-key --vm ghost', 'vm "ghost" not found'],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(ada, line), { status: 422, message, body: undefined }, line);
  }
  assert.equal(fx.store.listKeys(ada.account.id).length, keysBefore);
});

test('the latest accepted --exp ends by 2100-01-01', async () => {
  // 4102444800 - 1740830400 = 2361614400 s = 27333.5 days.
  const apiKey = (await fx.run(
    ada,
    'ssh-key generate-api-key --label latest --exp 27333d',
  )) as ApiKey;
  assert.equal(payloadOf(apiKey), `{"exp":${T0_SECONDS + 27333 * DAY}}`);
  assert.equal((await fx.fail(ada, 'ssh-key generate-api-key --exp 27334d')).status, 422);
});

test('removing the key revokes the token: its svc1 and its key lookup are gone', async () => {
  const apiKey = (await fx.run(ada, 'ssh-key generate-api-key --label revoke-me')) as ApiKey;
  resolveAndVerify(apiKey);
  assert.deepEqual(await fx.run(ada, 'ssh-key remove revoke-me'), {
    name: 'revoke-me',
    fingerprint: apiKey.fingerprint,
    status: 'removed',
  });
  assert.equal(fx.store.findSvc1(apiKey.token), undefined);
  assert.equal(fx.store.findKeyByFingerprint(apiKey.fingerprint), undefined);
});

test('text form puts the token first', async () => {
  const text = await fx.text(ada, 'ssh-key generate-api-key --label texted --exp never');
  const key = fx.store.listKeys(ada.account.id).find((k) => k.name === 'texted')!;
  const handle = /^token: +(svc1\.\S+)\n/.exec(text)?.[1];
  assert.ok(handle !== undefined && fx.store.findSvc1(handle)?.fingerprint === key.fingerprint);
  assert.equal(
    text,
    `token:       ${handle}\n` +
      'label:       texted\n' +
      'namespace:   v0@localhost\n' +
      `fingerprint: ${key.fingerprint}\n` +
      'expires:     never\n',
  );
});

test('a token-limited caller grants at most its own commands', async () => {
  const narrow: User = {
    ...ada,
    principal: { ...ada.principal, cmds: ['ssh-key generate-api-key', 'ls', 'ssh web'] },
  };
  // No --cmds: exactly the caller's commands, never the (wider) defaults.
  const own = (await fx.run(narrow, 'ssh-key generate-api-key --label narrow-1')) as ApiKey;
  assert.deepEqual(resolveAndVerify(own).permissions.cmds, [
    'ssh-key generate-api-key',
    'ls',
    'ssh web',
  ]);
  const subset = (await fx.run(
    narrow,
    "ssh-key generate-api-key --label narrow-2 --cmds 'ls,ssh web'",
  )) as ApiKey;
  assert.deepEqual(resolveAndVerify(subset).permissions.cmds, ['ls', 'ssh web']);
  for (const [wider, entry] of [
    ['rm', 'rm'],
    ["'ls,whoami'", 'whoami'],
    ['ssh', 'ssh'],
    ["'ssh api'", 'ssh api'],
  ] as const) {
    assert.deepEqual(
      await fx.fail(narrow, `ssh-key generate-api-key --label wider --cmds ${wider}`),
      {
        status: 422,
        message: `cannot grant "${entry}": the token of this request does not allow it`,
        body: undefined,
      },
      wider,
    );
  }
  assert.equal(fx.store.listKeys(ada.account.id).filter((k) => k.name === 'wider').length, 0);
});

test('--exp takes the durations of exectl mint: 1m, 30s', async () => {
  for (const [exp, seconds] of [
    ['1m', 60],
    ['30s', 30],
  ] as const) {
    const apiKey = (await fx.run(
      ada,
      `ssh-key generate-api-key --label exp-${exp} --exp ${exp}`,
    )) as ApiKey;
    assert.equal(Date.parse(apiKey.expires_at!) / 1000 - T0_SECONDS, seconds, exp);
  }
});

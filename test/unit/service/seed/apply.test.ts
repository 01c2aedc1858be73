// applySeed on a real SQLite file with the real VM machinery (process runtime): what the
// first application creates, that a second changes nothing, how a changed seed updates, and
// each refusal naming the seed entry.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { ServiceEndpoints } from '../../../../src/service/deps.js';
import { applySeed, parseSeed, type SeedTarget } from '../../../../src/service/seed/index.js';
import { openStore, type Store } from '../../../../src/service/store/index.js';
import { reflectionUrlOf } from '../../../../src/service/reflection/urls.js';
import { startVmMachines, type RunningVmMachines } from '../../../../src/service/vm/index.js';
import { parsePublicKey } from '../../../../src/token/keys.js';
import { generateKey, type GeneratedKey } from '../../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../../helpers/tmp.js';
import { testServiceConfig } from '../../../helpers/config.js';

let dir: TempDir;
let ada: GeneratedKey;
let ci: GeneratedKey;
let bob: GeneratedKey;

/** A store and VM machinery on their own data folder. */
async function openTarget(
  name: string,
): Promise<SeedTarget & { machines: RunningVmMachines; close(): Promise<void> }> {
  const dataDir = dir.join(name);
  await mkdir(dataDir);
  const config = testServiceConfig({ dataDir });
  const store = openStore(`${dataDir}/exectl.db`);
  // Nothing listens here: the VMs of these tests never call their reflection URL.
  const endpoints: ServiceEndpoints = {
    http: 'http://127.0.0.1:1',
    ssh: null,
    reflection: 'http://127.0.0.1:1',
  };
  const machines = await startVmMachines({
    config,
    store,
    endpoints,
    reflectionUrl: (vm) => reflectionUrlOf(endpoints.reflection, vm.reflectionSecret),
  });
  return {
    store,
    machines,
    endpoints,
    log: () => {},
    allowPrivateTargets: false,
    close: async () => {
      await machines.shutdown();
      store.close();
    },
  };
}

before(async () => {
  dir = await createTempDir('seed-apply');
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
  ci = await generateKey(dir.path, 'ecdsa-256', { name: 'ci', comment: 'ci@runner' });
  bob = await generateKey(dir.path, 'ed25519', { name: 'bob', comment: 'bob@box' });
});
after(() => dir.remove());

const fingerprint = (key: GeneratedKey) => parsePublicKey(key.publicKeyLine).fingerprint;

/** The seed of these tests, with `change` applied to its first account. */
function seedText(change: (ada: Record<string, unknown>) => void = () => {}): string {
  const first: Record<string, unknown> = {
    email: 'ada@example.com',
    keys: [ada.publicKeyLine, { key: ci.publicKeyLine, name: 'ci' }],
    integrations: [
      {
        name: 'llm',
        type: 'llm',
        target: 'https://llm.example.com',
        headers: ['Authorization: Bearer sk-test'],
        comment: 'models',
        attach: ['tag:ai'],
      },
    ],
    vms: [
      {
        name: 'web',
        tags: ['ai', 'prod'],
        comment: 'the site',
        default_port: 3000,
        visibility: 'public',
        env: { MODE: 'dev' },
        setup_script: 'echo seeded > "$HOME/hello"',
      },
    ],
    team_members: ['bob@example.com'],
  };
  change(first);
  return JSON.stringify({
    accounts: [first, { email: 'bob@example.com', keys: [bob.publicKeyLine] }],
  });
}

const apply = (target: SeedTarget, text: string) =>
  applySeed(parseSeed(text), target, new AbortController().signal);

/** Everything a seed can touch, as plain data (ids and times included: they must not move). */
function snapshot(store: Store): unknown {
  return store.listAccounts().map((account) => ({
    account,
    keys: store.listKeys(account.id),
    integrations: store.listIntegrations(account.id),
    vms: store.listVmsOwnedBy(account.id),
    team: store.getTeamOfAccount(account.id),
    members: store.listTeamMembers(store.getTeamOfAccount(account.id)!.team.id),
  }));
}

describe('applying a seed', () => {
  let target: Awaited<ReturnType<typeof openTarget>>;
  before(async () => {
    target = await openTarget('main');
  });
  after(() => target.close());

  test('the first application creates everything, VM machine and setup script included', async () => {
    const changes = await apply(target, seedText());
    assert.deepEqual(changes, [
      'created account ada@example.com with 2 ssh key(s)',
      'created account bob@example.com with 1 ssh key(s)',
      'created integration "llm" of ada@example.com',
      'created vm "web" of ada@example.com',
      'added bob@example.com to team "ada\'s team"',
    ]);
    const { store, machines } = target;
    const adaAccount = store.findAccountByEmail('ada@example.com')!;
    assert.deepEqual(
      store.listKeys(adaAccount.id).map((k) => [k.name, k.fingerprint]),
      [
        ['ada@laptop', fingerprint(ada)],
        ['ci', fingerprint(ci)],
      ],
    );
    const llm = store.getIntegration(adaAccount.id, 'llm')!;
    assert.deepEqual(
      [llm.type, llm.target, llm.headers, llm.comment, llm.attachments],
      ['llm', 'https://llm.example.com', ['Authorization: Bearer sk-test'], 'models', ['tag:ai']],
    );
    const web = store.getVmByName('web')!;
    assert.deepEqual(
      {
        owner: web.accountId,
        status: web.status,
        tags: web.tags,
        comment: web.comment,
        port: web.defaultPort,
        visibility: web.visibility,
        env: web.env,
      },
      {
        owner: adaAccount.id,
        status: 'running',
        tags: ['ai', 'prod'],
        comment: 'the site',
        port: 3000,
        visibility: 'public',
        env: { MODE: 'dev' },
      },
    );
    let output = '';
    const result = await machines.exec(web, 'cat "$HOME/hello"; echo "$MODE"', {
      signal: new AbortController().signal,
      onOutput: (chunk) => (output += chunk.toString('utf8')),
    });
    assert.deepEqual([result.exitCode, output], [0, 'seeded\ndev\n']);
    assert.deepEqual(
      store
        .listTeamMembers(store.getTeamOfAccount(adaAccount.id)!.team.id)
        .map((m) => [m.email, m.role]),
      [
        ['ada@example.com', 'owner'],
        ['bob@example.com', 'member'],
      ],
    );
  });

  test('applying it again changes nothing at all', async () => {
    const before = snapshot(target.store);
    assert.deepEqual(await apply(target, seedText()), []);
    assert.deepEqual(snapshot(target.store), before);
  });

  test('a changed seed updates what it names and deletes nothing it leaves out', async () => {
    const { store } = target;
    const adaId = store.findAccountByEmail('ada@example.com')!.id;
    store.createVm({ accountId: adaId, name: 'extra', emoji: '🦊', status: 'running' });
    const changes = await apply(
      target,
      seedText((a) => {
        a.keys = [{ key: ada.publicKeyLine, name: 'main' }]; // ci left out: kept
        a.integrations = [
          { name: 'llm', type: 'llm', comment: 'all models', attach: ['auto:all'] },
        ];
        a.vms = [{ name: 'web', tags: ['prod'], env: { MODE: 'prod' }, setup_script: 'exit 1' }];
      }),
    );
    assert.deepEqual(changes, [
      `renamed ssh key ${fingerprint(ada)} of ada@example.com to "main"`,
      'updated integration "llm" of ada@example.com',
      'updated vm "web" of ada@example.com (tags, env)',
    ]);
    assert.deepEqual(
      store.listKeys(adaId).map((k) => k.name),
      ['main', 'ci'],
    );
    const llm = store.getIntegration(adaId, 'llm')!;
    assert.deepEqual(
      [llm.comment, llm.target, llm.headers, llm.attachments],
      ['all models', 'https://llm.example.com', ['Authorization: Bearer sk-test'], ['auto:all']],
    );
    const web = store.getVmByName('web')!;
    assert.deepEqual(
      [web.tags, web.comment, web.defaultPort, web.env],
      [['prod'], 'the site', 3000, { MODE: 'prod' }],
    );
    assert.ok(store.getVmByName('extra') !== undefined);
  });
});

describe('headers an export left without values', () => {
  test('a warning per header the integration lacks; none once it has it', async () => {
    const target = await openTarget('no-secrets');
    const warnings: [string, string | undefined][] = [];
    target.log = (line, level) => warnings.push([line, level]);
    try {
      const withoutValues = seedText((a) => {
        a.integrations = [
          {
            name: 'llm',
            type: 'llm',
            target: 'https://llm.example.com',
            headers_without_values: ['Authorization', 'X-Org'],
            attach: ['tag:ai'],
          },
        ];
        a.vms = [];
      });
      await apply(target, withoutValues);
      const readd =
        "add it again as ada@example.com with exectl run integrations remove llm, then exectl run integrations add llm --name llm --target https://llm.example.com --header 'Authorization: VALUE' --attach tag:ai";
      assert.deepEqual(warnings, [
        [
          `integration "llm" of ada@example.com: header "Authorization" has no value in this file (exported without --with-secrets): ${readd}`,
          'warn',
        ],
        [
          `integration "llm" of ada@example.com: header "X-Org" has no value in this file (exported without --with-secrets): ${readd.replace('Authorization', 'X-Org')}`,
          'warn',
        ],
      ]);
      // The header added again (by any spelling of its name): the same file says nothing of it.
      const adaId = target.store.findAccountByEmail('ada@example.com')!.id;
      const llm = target.store.getIntegration(adaId, 'llm')!;
      target.store.updateIntegration(llm.id, { headers: ['authorization: Bearer sk-new'] });
      warnings.length = 0;
      await apply(target, withoutValues);
      assert.deepEqual(
        warnings.map(([line]) => line.slice(0, 50)),
        ['integration "llm" of ada@example.com: header "X-Or'],
      );
      // The kept header's value is a secret: the command to add them again names it VALUE too.
      assert.match(warnings[0]![0], /--header 'authorization: VALUE' --header 'X-Org: VALUE'/);
      assert.ok(!warnings[0]![0].includes('sk-new'));
    } finally {
      await target.close();
    }
  });
});

describe('refusals name the seed entry', () => {
  let target: Awaited<ReturnType<typeof openTarget>>;
  before(async () => {
    target = await openTarget('refusals');
    await apply(
      target,
      JSON.stringify({
        accounts: [{ email: 'ada@example.com', keys: [ada.publicKeyLine], vms: [{ name: 'web' }] }],
      }),
    );
  });
  after(() => target.close());

  const refused = async (accounts: unknown[], message: string) => {
    await assert.rejects(
      apply(target, JSON.stringify({ accounts })),
      (err: Error & { code?: string }) => {
        assert.deepEqual([err.code, err.message], ['cannot_start', message]);
        return true;
      },
    );
  };

  test('a key of another account', () =>
    refused(
      [{ email: 'eve@example.com', keys: [ada.publicKeyLine] }],
      `seed accounts[0]: ssh key ${fingerprint(ada)} is registered to another account`,
    ));

  test("a key's tag never changes: another tag, or one for a key without a tag", async () => {
    await apply(
      target,
      JSON.stringify({
        accounts: [{ email: 'ada@example.com', keys: [{ key: ci.publicKeyLine, tag: 'ci' }] }],
      }),
    );
    assert.equal(target.store.findKeyByFingerprint(fingerprint(ci))?.tag, 'ci');
    await refused(
      [{ email: 'ada@example.com', keys: [{ key: ci.publicKeyLine, tag: 'prod' }] }],
      `seed accounts[0]: ssh key ${fingerprint(ci)} has tag "ci", not "prod": a key's tag never changes`,
    );
    await refused(
      [{ email: 'ada@example.com', keys: [{ key: ada.publicKeyLine, tag: 'ci' }] }],
      `seed accounts[0]: ssh key ${fingerprint(ada)} has no tag, not "ci": a key's tag never changes`,
    );
    // A key named without its tag keeps it.
    await apply(
      target,
      JSON.stringify({ accounts: [{ email: 'ada@example.com', keys: [ci.publicKeyLine] }] }),
    );
    assert.equal(target.store.findKeyByFingerprint(fingerprint(ci))?.tag, 'ci');
  });

  test('a VM of another account', () =>
    refused(
      [{ email: 'eve@example.com', vms: [{ name: 'web', comment: 'mine' }] }],
      'seed accounts[0].vms[0]: vm "web" belongs to another account',
    ));

  test('an integration of another type, or one without the target it needs', async () => {
    await refused(
      [{ email: 'ada@example.com', integrations: [{ name: 'reflection', type: 'github' }] }],
      'seed accounts[0].integrations[0]: integration "reflection" exists with type reflection, not github',
    );
    await refused(
      [{ email: 'ada@example.com', integrations: [{ name: 'gh', type: 'github' }] }],
      'seed accounts[0].integrations[0]: integration "gh" needs a target to be created',
    );
  });

  test("an integration whose target is one of exectl's own listeners", () =>
    refused(
      [
        {
          email: 'ada@example.com',
          integrations: [{ name: 'loop', type: 'http-proxy', target: 'http://localhost:1/x' }],
        },
      ],
      'seed accounts[0].integrations[0]: invalid target "http://localhost:1": it is one of exectl\'s own listeners',
    ));

  test('an integration whose target is private, unless private targets are allowed', async () => {
    const accounts = [
      {
        email: 'ada@example.com',
        integrations: [{ name: 'meta', type: 'http-proxy', target: 'http://169.254.169.254/x' }],
      },
    ];
    await refused(
      accounts,
      'seed accounts[0].integrations[0]: invalid target "http://169.254.169.254": it reaches a loopback, link-local, unspecified, multicast or broadcast address, or this host\'s own; exectl serve --allow-private-targets allows that',
    );
    const adaAccount = target.store.findAccountByEmail('ada@example.com')!;
    assert.equal(target.store.getIntegration(adaAccount.id, 'meta'), undefined);
    const allowing = { ...target, allowPrivateTargets: true };
    assert.deepEqual(await apply(allowing, JSON.stringify({ accounts })), [
      'created integration "meta" of ada@example.com',
    ]);
  });

  test('a team member without an account', () =>
    refused(
      [{ email: 'ada@example.com', team_members: ['zed@example.com'] }],
      'seed accounts[0].team_members[0]: no account for zed@example.com',
    ));

  test('a failing setup script: no VM is kept, so the next start tries again', async () => {
    await refused(
      [
        {
          email: 'ada@example.com',
          vms: [{ name: 'broken', setup_script: 'echo no >&2; exit 3' }],
        },
      ],
      'seed accounts[0].vms[0]: setup script failed with exit code 3: no',
    );
    assert.equal(target.store.getVmByName('broken'), undefined);
  });
});

// SPEC §3 `ssh-key generate-api-key --tag T` through the real /exec endpoint: the svc1 the
// command answers is used as it is, so the key's scope comes from the store, as for any client.
// Issue 14: a `--tag ci` key creates VMs tagged `ci`, lists only those, gets "not found" for any
// other VM, cannot `tag`; it still cannot widen its own cmds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;
const OWNER_CMDS = ['new', 'ls', 'stat', 'rm', 'tag', 'ssh-key list', 'ssh-key generate-api-key'];
const CI_CMDS = ['new', 'ls', 'stat', 'rm', 'tag', 'ssh-key generate-api-key'];

interface Answer {
  status: number;
  body: unknown;
}

async function exec(svc: TestService, token: string, line: string): Promise<Answer> {
  const res = await fetch(`${svc.url}/exec`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: line,
  });
  return { status: res.status, body: JSON.parse(await res.text()) as unknown };
}

const names = (answer: Answer) =>
  (answer.body as { vms: { vm_name: string; tags: string[] }[] }).vms.map((v) => [
    v.vm_name,
    v.tags,
  ]);

describe('a tag-scoped API key over HTTP (SPEC §3)', () => {
  let svc: TestService;
  let owner: string;
  let ci: string;
  before(async () => {
    svc = await startTestService();
    owner = await svc.token(`{"exp":${FAR},"cmds":${JSON.stringify(OWNER_CMDS)}}`);
    assert.equal((await exec(svc, owner, 'new --name plain')).status, 200);
    assert.equal((await exec(svc, owner, 'new --name prod --tag prod')).status, 200);
    assert.equal((await exec(svc, owner, 'new --name owned-ci --tag ci')).status, 200);
    const made = await exec(
      svc,
      owner,
      `ssh-key generate-api-key --label ci --tag ci --cmds '${CI_CMDS.join(',')}'`,
    );
    assert.equal(made.status, 200, JSON.stringify(made.body));
    ci = (made.body as { token: string }).token;
  });
  after(() => svc.stop());

  test('ssh-key list shows the key with "tag": "ci", and null for the owner\'s own key', async () => {
    const list = await exec(svc, owner, 'ssh-key list');
    assert.equal(list.status, 200);
    const keys = (list.body as { ssh_keys: Record<string, unknown>[] }).ssh_keys;
    assert.deepEqual(
      keys.map((k) => [k.name, k.tag]),
      [
        ['default', null],
        ['ci', 'ci'],
      ],
    );
  });

  test('it creates VMs tagged ci, and lists only the VMs tagged ci', async () => {
    const made = await exec(svc, ci, 'new --name made-by-ci');
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.deepEqual((made.body as { tags: string[] }).tags, ['ci']);
    assert.deepEqual(names(await exec(svc, ci, 'ls')), [
      ['made-by-ci', ['ci']],
      ['owned-ci', ['ci']],
    ]);
    // The owner's key is not scoped: it sees all four.
    assert.equal(names(await exec(svc, owner, 'ls')).length, 4);
  });

  test('any other VM is "not found", exactly as a VM that does not exist', async () => {
    for (const vm of ['plain', 'prod', 'no-such-vm']) {
      assert.deepEqual(await exec(svc, ci, `stat ${vm}`), {
        status: 422,
        body: { error: `vm "${vm}" not found` },
      });
      assert.deepEqual(await exec(svc, ci, `rm ${vm}`), {
        status: 422,
        body: { deleted: [], failed: [{ vm_name: vm, error: `vm "${vm}" not found` }] },
      });
    }
    assert.deepEqual(names(await exec(svc, owner, 'ls plain')), [['plain', []]]);
  });

  test('it cannot tag, not even its own VMs; the tags stay', async () => {
    const refusal = {
      status: 403,
      body: {
        error:
          'this key is limited to vms tagged "ci" and cannot change tags: use a key without --tag',
      },
    };
    assert.deepEqual(await exec(svc, ci, 'tag made-by-ci extra'), refusal);
    assert.deepEqual(await exec(svc, ci, 'tag -d made-by-ci ci'), refusal);
    assert.deepEqual(await exec(svc, ci, 'tag plain ci'), refusal);
    assert.deepEqual(names(await exec(svc, owner, "ls '*ci*'")), [
      ['made-by-ci', ['ci']],
      ['owned-ci', ['ci']],
    ]);
  });

  test('it cannot widen its own cmds, nor its tag; the keys it makes keep the scope', async () => {
    assert.deepEqual(await exec(svc, ci, "ssh-key generate-api-key --cmds 'ls,whoami'"), {
      status: 422,
      body: { error: 'cannot grant "whoami": the token of this request does not allow it' },
    });
    assert.deepEqual(await exec(svc, ci, 'ssh-key generate-api-key --tag prod'), {
      status: 403,
      body: {
        error:
          'this key is limited to vms tagged "ci" and cannot make a key for tag "prod": use a key without --tag',
      },
    });
    const child = await exec(svc, ci, "ssh-key generate-api-key --label ci-child --cmds 'ls'");
    assert.equal(child.status, 200, JSON.stringify(child.body));
    const childToken = (child.body as { token: string }).token;
    assert.deepEqual(names(await exec(svc, childToken, 'ls')), [
      ['made-by-ci', ['ci']],
      ['owned-ci', ['ci']],
    ]);
    assert.deepEqual(await exec(svc, childToken, 'stat owned-ci'), {
      status: 403,
      body: { error: 'command not allowed: stat' },
    });
  });
});

// Issue 25: the red team's `--tag ci` key removed the owner's key (locking the owner out), added
// it back tagged ci, ran `team add`, and listed every key and integration.
describe('a tag-scoped API key cannot take over its account (issue 25)', () => {
  let svc: TestService;
  let owner: string;
  let ci: string;
  before(async () => {
    svc = await startTestService();
    await svc.addAccount('mallory@example.com');
    const granted = ['ssh-key list', 'ssh-key remove', 'ssh-key add', 'team add'];
    const cmds = [...granted, 'integrations list', 'whoami', 'team members'];
    const all = [...cmds, 'ssh-key generate-api-key', 'integrations add'];
    owner = await svc.token(`{"exp":${FAR},"cmds":${JSON.stringify(all)}}`);
    const added = await exec(
      svc,
      owner,
      "integrations add reflection --name owner-only --comment 'not for ci'",
    );
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const made = await exec(
      svc,
      owner,
      `ssh-key generate-api-key --label ci --tag ci --cmds '${cmds.join(',')}'`,
    );
    assert.equal(made.status, 200, JSON.stringify(made.body));
    ci = (made.body as { token: string }).token;
  });
  after(() => svc.stop());

  test("it cannot remove the owner's key, nor add one, nor change the team", async () => {
    assert.deepEqual(await exec(svc, ci, 'ssh-key remove default'), {
      status: 422,
      body: { error: 'ssh key "default" not found' },
    });
    const ownerLine = svc.owner.key.publicKeyLine.trim();
    assert.deepEqual(await exec(svc, ci, `ssh-key add --name back ${ownerLine}`), {
      status: 403,
      body: {
        error:
          'this key is limited to vms tagged "ci" and cannot add keys: use a key without --tag',
      },
    });
    assert.deepEqual(await exec(svc, ci, 'team add mallory@example.com'), {
      status: 403,
      body: {
        error:
          'this key is limited to vms tagged "ci" and cannot change the team: use a key without --tag',
      },
    });
    // The owner still gets in with its key, unscoped, and alone in its team.
    const whoami = await exec(svc, owner, 'whoami');
    assert.equal(whoami.status, 200);
    assert.deepEqual(
      (whoami.body as { ssh_keys: { name: string }[] }).ssh_keys.map((k) => k.name),
      ['default', 'ci'],
    );
    const members = await exec(svc, owner, 'team members');
    assert.deepEqual(
      (members.body as { members: { email: string }[] }).members.map((m) => m.email),
      ['owner@example.com'],
    );
  });

  test('it lists only its own key, and no integration not attached to tag:ci', async () => {
    for (const line of ['ssh-key list', 'whoami']) {
      const answer = await exec(svc, ci, line);
      assert.equal(answer.status, 200);
      assert.deepEqual(
        (answer.body as { ssh_keys: { name: string }[] }).ssh_keys.map((k) => k.name),
        ['ci'],
        line,
      );
    }
    assert.deepEqual(await exec(svc, ci, 'integrations list'), { status: 200, body: [] });
  });
});

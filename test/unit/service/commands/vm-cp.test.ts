// `cp <vm> [<new-name>]` with the REAL VM machinery (process runtime: the disk is a folder,
// copied as it is). Machine VMs (a disk image, shifted owners) are in test/integration/vm.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { emojiFor } from '../../../../src/service/rules/emoji.js';
import { ADJECTIVES, NOUNS } from '../../../../src/service/rules/random-name.js';
import type { VmRecord } from '../../../../src/service/store/index.js';
import { openCommandFixture, type CommandFixture, type User } from './fixture.js';

let fx: CommandFixture;
let ada: User;
let bob: User;

before(async () => {
  fx = await openCommandFixture();
  ada = fx.addUser('ada@example.com');
  bob = fx.addUser('bob@example.com');
  await fx.run(
    ada,
    "new --name web --tag prod --comment 'the site' --env GREETING=hello --setup-script 'echo v1 > \"$HOME/site\"'",
  );
  await fx.run(ada, 'share port web 3000');
});
after(() => fx.cleanup());

async function inVm(name: string, command: string): Promise<string> {
  const vm: VmRecord = fx.store.getVmByName(name)!;
  const chunks: Buffer[] = [];
  await fx.machines.exec(vm, command, {
    signal: new AbortController().signal,
    onOutput: (chunk) => chunks.push(chunk),
  });
  return Buffer.concat(chunks).toString('utf8');
}

test('cp: a new VM with the disk, tags, comment, port and env; the two disks are apart', async () => {
  assert.deepEqual(await fx.run(ada, 'cp web web-copy'), {
    vm_name: 'web-copy',
    emoji: emojiFor('web-copy'),
    status: 'running',
    tags: ['prod'],
    default_port: 3000,
    https_url: 'http://web-copy.localhost:7070',
    ssh_dest: 'vm+web-copy@localhost',
    ssh_host: 'localhost',
    ssh_port: 7022,
    ssh_user: 'vm+web-copy',
    region: 'local',
    region_display: 'Local',
    image: null,
  });
  const [from, to] = ['web', 'web-copy'].map((n) => fx.store.getVmByName(n)!);
  assert.deepEqual(
    { comment: to!.comment, env: to!.env, visibility: to!.visibility, setup: to!.setup },
    {
      comment: 'the site',
      env: { GREETING: 'hello' },
      visibility: 'private',
      setup: { status: 'none', lastLine: null },
    },
  );
  assert.notEqual(to!.reflectionSecret, from!.reflectionSecret);
  assert.equal(await inVm('web-copy', 'cat "$HOME/site"; echo "$GREETING"'), 'v1\nhello\n');
  await inVm('web-copy', 'echo v2 > "$HOME/site"; echo new > "$HOME/only-copy"');
  assert.equal(await inVm('web', 'cat "$HOME/site"; ls "$HOME"'), 'v1\nexectl-setup.log\nsite\n');
});

test('cp without a new name picks a free adjective-noun name; the text form is new’s', async () => {
  const { vm_name: name } = (await fx.run(ada, 'cp web')) as { vm_name: string };
  const [adjective, noun, ...rest] = name.split('-');
  assert.ok(ADJECTIVES.includes(adjective!) && NOUNS.includes(noun!) && rest.length === 0, name);
  assert.match(await fx.text(ada, 'cp web web-text'), /^vm: {5}\S+ web-text\nstatus: running\n/);
});

test('cp refuses bad input with one line and makes nothing', async () => {
  await fx.run(bob, 'new --name bobs');
  await fx.run(bob, 'share add bobs ada@example.com');
  const count = () => fx.store.listVmsVisibleTo(ada.account.id).length;
  const before = count();
  const cases: [line: string, message: string][] = [
    ['cp ghost', 'vm "ghost" not found'],
    ['cp web web', 'vm name "web" is not available: choose another'],
    ['cp web bobs', 'vm name "bobs" is not available: choose another'],
    ['cp bobs mine', 'only the owner of vm "bobs" can copy it'],
    [
      'cp web Web2',
      'invalid vm name "Web2": use 2 to 63 lowercase letters, digits or dashes, starting with a letter and not ending with a dash',
    ],
    ['cp', 'missing argument <vm>'],
    ['cp web a-b c', 'unexpected argument "c"'],
  ];
  for (const [line, message] of cases) {
    assert.deepEqual(await fx.fail(ada, line), { status: 422, message, body: undefined }, line);
  }
  assert.equal(count(), before);
});

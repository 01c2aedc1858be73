// `exectl serve export` and `exectl serve import` (SPEC §7): a data folder's state as a
// `--seed` file, imported into an empty folder, gives the same answers to `ls`, `ssh-key
// list`, `share show`, `team members` and `integrations list`; secrets only on request; both
// refused while a server runs on the folder.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { after, before, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl, withUmask } from './harness.js';
import {
  TEST_FLAGS,
  curlExec,
  execJson,
  recipeToken,
  startServe,
  stopAll,
  type ServeProcess,
} from './serve-server.js';

let dir: TempDir;
let ada: GeneratedKey;
let ci: GeneratedKey;
let bob: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-export');
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
  ci = await generateKey(dir.path, 'ecdsa-256', { name: 'ci', comment: 'ci@runner' });
  bob = await generateKey(dir.path, 'ed25519', { name: 'bob', comment: 'bob@box' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

const serve = (args: string[]) => exectl(['serve', ...args], { home: dir.path });
const serveOn = (data: string, extra: string[] = []) =>
  startServe(['--data', data, ...TEST_FLAGS, ...extra], { home: dir.path });

/**
 * Times, ids and the listener's port, which a new folder and a new server cannot keep:
 * everything else must come back the same.
 */
function comparable(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/^(http:\/\/[\w.-]+):\d+$/, '$1:PORT');
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !/(_at|^created|^user_id|^team_id|^id)$/.test(k))
      .map(([k, v]) => [k, comparable(v)]),
  );
}

/** What the five commands of SPEC §7 answer, for ada and for bob. */
async function observe(server: ServeProcess): Promise<unknown> {
  const ask = async (key: GeneratedKey, line: string, cmd: string) =>
    comparable(await execJson(server.url, key, line, cmd));
  return {
    ada: {
      ls: await ask(ada, 'ls -l --json', 'ls'),
      keys: await ask(ada, 'ssh-key list --json', 'ssh-key list'),
      shares: await ask(ada, 'share show --json', 'share show'),
      team: await ask(ada, 'team members --json', 'team members'),
      integrations: await ask(ada, 'integrations list --json', 'integrations list'),
    },
    bob: {
      ls: await ask(bob, 'ls -l --json', 'ls'),
      keys: await ask(bob, 'ssh-key list --json', 'ssh-key list'),
      team: await ask(bob, 'team members --json', 'team members'),
      integrations: await ask(bob, 'integrations list --json', 'integrations list'),
    },
  };
}

test('export then import into an empty folder gives the same state; secrets only when asked', async () => {
  const source = dir.join('source');
  const seedPath = dir.join('accounts.json');
  writeFileSync(
    seedPath,
    JSON.stringify({
      accounts: [
        {
          email: 'ada@example.com',
          keys: [ada.publicKeyLine, { key: ci.publicKeyLine, name: 'ci' }],
          // `resize` needs the bwrap runtime; a seed sets limits under any runtime.
          vms: [{ name: 'big', limits: { cpus: 1.5, memory_bytes: 512 * 2 ** 20 } }],
        },
        { email: 'bob@example.com', keys: [bob.publicKeyLine] },
      ],
    }),
  );
  const server = await serveOn(source, ['--seed', seedPath]);
  const asAda = (line: string, cmd: string) => execJson(server.url, ada, line, cmd);
  await asAda(
    `new --name web --tag ai --comment 'the site' --env MODE=dev --setup-script 'echo hi > "$HOME/hello"'`,
    'new',
  );
  await asAda('new --name db', 'new');
  await asAda('share add web bob@example.com', 'share add');
  await asAda('share set-public db', 'share set-public');
  await asAda('share port web 3000', 'share port');
  await asAda('team add bob@example.com', 'team add');
  await execJson(server.url, bob, 'team accept ada@example.com', 'team accept');
  await asAda(
    `integrations add llm --name llm --target https://llm.example.com --header 'Authorization: Bearer sk-test' --attach tag:ai`,
    'integrations add',
  );
  await asAda(
    'integrations add reflection --name basic --fields email,tags --attach vm:db',
    'integrations add',
  );
  await execJson(server.url, bob, 'new --name bobs', 'new');
  // A tag-scoped API key: its tag must come back with it (SPEC §3, `ssh-key list`'s `tag`).
  await asAda('ssh-key generate-api-key --label ai-bot --tag ai', 'ssh-key generate-api-key');
  const before = await observe(server);
  const adaKeys = (before as { ada: { keys: { ssh_keys: { name: string; tag: unknown }[] } } }).ada
    .keys.ssh_keys;
  assert.deepEqual(
    adaKeys.map((k) => [k.name, k.tag]),
    [
      ['ada@laptop', null],
      ['ci', null],
      ['ai-bot', 'ai'],
    ],
  );

  const whileRunning = await serve(['export', '--data', source]);
  assert.equal(whileRunning.code, 2);
  assert.match(
    whileRunning.stderr,
    /^exectl: data folder .* is in use by pid \d+ — stop that server first/,
  );
  assert.equal((await server.stop()).code, 0);

  const plain = await serve(['export', '--data', source]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok(!plain.stdout.includes('sk-test'), 'no secret without --with-secrets');
  const full = dir.join('full.json');
  const exported = await serve(['export', '--data', source, '--with-secrets', '--out', full]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(exported.stderr, `exported 2 account(s) of ${source} to ${full} (with secrets)\n`);
  assert.equal(statSync(full).mode & 0o777, 0o600);
  const document = JSON.parse(readFileSync(full, 'utf8')) as {
    accounts: { keys: { name: string }[]; vms: { name: string; limits?: unknown }[] }[];
  };
  const botKey = document.accounts[0]!.keys.find((k) => k.name === 'ai-bot');
  assert.deepEqual(Object.keys(botKey ?? {}), ['key', 'name', 'tag']);
  assert.equal((botKey as { tag?: string }).tag, 'ai');
  const vmOfAda = (name: string) => document.accounts[0]!.vms.find((vm) => vm.name === name);
  assert.deepEqual(vmOfAda('web'), {
    name: 'web',
    tags: ['ai'],
    comment: 'the site',
    default_port: 3000,
    visibility: 'private',
    env: { MODE: 'dev' },
    setup_script: 'echo hi > "$HOME/hello"',
    shares: ['bob@example.com'],
  });
  assert.deepEqual(vmOfAda('big')?.limits, {
    cpus: 1.5,
    memory_bytes: 512 * 2 ** 20,
  });
  assert.ok(readFileSync(full, 'utf8').includes('Authorization: Bearer sk-test'));

  const copy = dir.join('copy');
  const imported = await serve(['import', full, '--data', copy, '--runtime', 'process']);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(
    imported.stdout,
    new RegExp(`^imported ${full} into ${copy}: \\d+ change\\(s\\)\\n`),
  );
  assert.ok(imported.stdout.includes('  created vm "web" of ada@example.com\n'), imported.stdout);

  const again = await serveOn(copy);
  assert.deepEqual(await observe(again), before);
  // The setup script ran again in the new VM: its disk is new, not copied.
  const hello = await curlExec(again.url, await recipeToken(ada, ['ssh web']), 'ssh web cat hello');
  assert.deepEqual(hello, { status: 200, body: 'hi\n' });
  const importWhileRunning = await serve(['import', full, '--data', copy]);
  assert.equal(importWhileRunning.code, 2);
  assert.match(importWhileRunning.stderr, /^exectl: data folder .* is in use by pid \d+/);
  assert.equal((await again.stop()).code, 0);

  // Importing the same file again changes nothing.
  const twice = await serve(['import', full, '--data', copy, '--runtime', 'process']);
  assert.equal(twice.stdout, `imported ${full} into ${copy}: nothing to change\n`);
});

test('an export without secrets imports integrations without their headers', async () => {
  const data = dir.join('plain-source');
  const server = await serveOn(data, [
    '--owner',
    'ada@example.com',
    '--authorized-key',
    ada.pubPath,
  ]);
  await execJson(
    server.url,
    ada,
    `integrations add llm --name llm --target https://llm.example.com --header 'X-Key: k1' --attach tag:ai`,
    'integrations add',
  );
  assert.equal((await server.stop()).code, 0);
  const plain = await serve(['export', '--data', data]);
  const llm = (
    JSON.parse(plain.stdout) as { accounts: { integrations: Record<string, unknown>[] }[] }
  ).accounts[0]!.integrations.find((i) => i.name === 'llm');
  // The header's name stays, its value does not: the import can say what is missing.
  assert.deepEqual(llm, {
    name: 'llm',
    type: 'llm',
    target: 'https://llm.example.com',
    headers_without_values: ['X-Key'],
    comment: '',
    attach: ['tag:ai'],
  });
  assert.ok(!plain.stdout.includes('k1'), 'no header value without --with-secrets');
  const file = dir.join('plain-export.json');
  writeFileSync(file, plain.stdout);
  const warning =
    'integration "llm" of ada@example.com: header "X-Key" has no value in this file (exported ' +
    'without --with-secrets): add it again as ada@example.com with exectl run integrations ' +
    'remove llm, then exectl run integrations add llm --name llm --target ' +
    "https://llm.example.com --header 'X-Key: VALUE' --attach tag:ai";

  // Imported: it says so on stderr, once per header, and the import still succeeds.
  const copy = dir.join('plain-copy');
  const imported = await serve(['import', file, '--data', copy, '--runtime', 'process']);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(imported.stderr, `exectl: import: ${warning}\n`);

  // As a --seed at start, the same line before the banner; again at each start, as long as
  // the header is missing.
  const seeded = await serveOn(dir.join('plain-seeded'), ['--seed', file]);
  assert.ok(
    seeded.stderr().startsWith(`exectl: seed: ${warning}\nexectl: seed ${file}: `),
    seeded.stderr(),
  );
  assert.equal((await seeded.stop()).code, 0);
});

test('--out over an existing file open to others leaves it readable by its user only', async () => {
  const data = dir.join('out-mode');
  const added = await serve(['accounts', 'add', 'ada@example.com', '--data', data]);
  assert.equal(added.code, 0, added.stderr);
  const out = dir.join('old-export.json');
  writeFileSync(out, 'an older export\n', { mode: 0o644 });
  chmodSync(out, 0o644);
  const exported = await serve(['export', '--data', data, '--with-secrets', '--out', out]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal((statSync(out).mode & 0o777).toString(8), '600');
  assert.deepEqual(
    (JSON.parse(readFileSync(out, 'utf8')) as { accounts: { email: string }[] }).accounts.map(
      (a) => a.email,
    ),
    ['ada@example.com'],
  );
});

test('--out never follows a symlink nor writes into another user’s file; a new file is 0600', async () => {
  const data = dir.join('out-links');
  const added = await serve(['accounts', 'add', 'ada@example.com', '--data', data]);
  assert.equal(added.code, 0, added.stderr);
  const hint = 'give --out a new file, or one of yours, in a folder you can write to';
  // A symlink planted where the export goes: to a file, and to a name not made yet.
  const victim = dir.join('victim.txt');
  writeFileSync(victim, 'the victim’s\n', { mode: 0o644 });
  const cases: [link: string, target: string][] = [
    [dir.join('planted-file.json'), victim],
    [dir.join('planted-new.json'), dir.join('would-be-made.json')],
  ];
  for (const [link, target] of cases) {
    symlinkSync(target, link);
    const refused = await serve(['export', '--data', data, '--with-secrets', '--out', link]);
    assertOneLineError(
      refused,
      2,
      `cannot write --out ${link}: it is a symbolic link, which is never followed — ${hint}`,
    );
    assert.equal(readlinkSync(link), target);
  }
  assert.equal(readFileSync(victim, 'utf8'), 'the victim’s\n');
  assert.equal(existsSync(dir.join('would-be-made.json')), false);

  // A file another user made there first: its owner would read the export.
  const theirs = dir.join('theirs.json');
  writeFileSync(theirs, 'theirs\n', { mode: 0o666 });
  chmodSync(theirs, 0o666);
  chownSync(theirs, 65534, 65534);
  assertOneLineError(
    await serve(['export', '--data', data, '--with-secrets', '--out', theirs]),
    2,
    `cannot write --out ${theirs}: it belongs to another user — ${hint}`,
  );
  assert.equal(readFileSync(theirs, 'utf8'), 'theirs\n');

  // A pipe planted there: opening it would wait for a reader (a hang), or hand the export to
  // whoever reads it.
  const pipe = dir.join('planted-pipe.json');
  execFileSync('mkfifo', ['-m', '666', pipe]);
  chownSync(pipe, 65534, 65534);
  assertOneLineError(
    await serve(['export', '--data', data, '--with-secrets', '--out', pipe]),
    2,
    `cannot write --out ${pipe}: it is a pipe or socket, not a file — ${hint}`,
  );

  const fresh = dir.join('fresh.json');
  const made = await exectl(['serve', 'export', '--data', data, '--out', fresh], {
    home: dir.path,
    wrap: withUmask('000'),
  });
  assert.equal(made.code, 0, made.stderr);
  assert.equal((lstatSync(fresh).mode & 0o777).toString(8), '600');
});

// `exectl serve accounts add|list|remove` while a server runs on the data folder (SPEC §7):
// through the server's admin socket, at once, no restart; only root or the server's user may
// use the socket; a server killed with -9 leaves a stale socket that does not stop the offline
// path. The built CLI against a real `exectl serve`.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateKey, run, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';
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
let bob: GeneratedKey;
const fp: Record<string, string> = {};
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-accounts-live');
  // Others may pass through (not read) the test's folder, as through a home folder: the data
  // folder's own modes are what keep `nobody` out.
  chmodSync(dir.path, 0o711);
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
  bob = await generateKey(dir.path, 'ed25519', { name: 'bob', comment: 'bob@box' });
  for (const [name, key] of Object.entries({ ada, bob })) {
    fp[name] = (await run('ssh-keygen', ['-lf', key.pubPath])).stdout.split(' ')[1]!;
  }
});
after(async () => {
  await stopAll();
  await dir.remove();
});

const USER_ID = /usr_[a-z2-7]{16}/.source;
const AS_NOBODY = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'] as const;

const accounts = (data: string, args: string[], wrap?: readonly string[]) =>
  exectl(['serve', 'accounts', ...args, '--data', data], { home: dir.path, wrap });

/** A server on `data` whose owner ada@example.com signs in with her key. */
const serveForAda = (data: string): Promise<ServeProcess> =>
  startServe(
    ['--data', data, ...TEST_FLAGS, '--owner', 'ada@example.com', '--authorized-key', ada.pubPath],
    { home: dir.path },
  );

/** Sends `request` as it is on the admin socket at `path`; resolves with the answer's text. */
function rawRequest(path: string, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path, allowHalfOpen: true });
    let answer = '';
    socket.on('connect', () => socket.end(request));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    // The server answers at the limit without reading on: the rest of a write may fail.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    socket.on('close', () => resolve(answer));
  });
}

test('with a server running: add, list and remove go through it, and take effect at once', async () => {
  const data = dir.join('live');
  const server = await serveForAda(data);

  const added = await accounts(data, ['add', 'bob@example.com', '--key', bob.pubPath]);
  assert.deepEqual([added.code, added.stderr], [0, ''], 'today: data folder … is in use by pid …');
  assert.match(
    added.stdout,
    new RegExp(`^created account bob@example\\.com \\(${USER_ID}\\), added \\S+ \\(bob@box\\)\\n$`),
  );
  assert.ok(added.stdout.includes(fp.bob!));
  // No restart: the new key signs in at once.
  const whoami = (await execJson(server.url, bob, 'whoami', 'whoami')) as { email: string };
  assert.equal(whoami.email, 'bob@example.com');
  await server.waitForLine(/ via=admin key=- cmd="accounts add" status=200 ms=/);

  const list = await accounts(data, ['list', '--json']);
  assert.deepEqual([list.code, list.stderr], [0, '']);
  const listed = JSON.parse(list.stdout) as {
    accounts: { email: string; ssh_keys: { name: string; fingerprint: string }[] }[];
  };
  assert.deepEqual(
    listed.accounts.map((a) => [a.email, a.ssh_keys]),
    [
      ['ada@example.com', [{ name: 'ada@laptop', fingerprint: fp.ada }]],
      ['bob@example.com', [{ name: 'bob@box', fingerprint: fp.bob }]],
    ],
  );

  // The same one-line errors and exit codes as offline.
  assertOneLineError(
    await accounts(data, ['add', 'carol@example.com', '--key', ada.pubPath]),
    1,
    `ssh key ${fp.ada} is registered to another account`,
  );
  assertOneLineError(
    await accounts(data, ['remove', 'nobody@example.com']),
    1,
    'no account for "nobody@example.com" — see `exectl serve accounts list`',
  );
  await execJson(server.url, ada, 'new --name web', 'new');
  assertOneLineError(
    await accounts(data, ['remove', 'ada@example.com']),
    1,
    'ada@example.com still owns 1 VM(s): web — remove them first, with the server running: exectl run rm web',
  );

  const token = await recipeToken(bob, ['whoami']);
  assert.equal((await curlExec(server.url, token, 'whoami')).status, 200);
  const removed = await accounts(data, ['remove', 'bob@example.com']);
  assert.deepEqual([removed.code, removed.stderr], [0, '']);
  assert.match(
    removed.stdout,
    new RegExp(`^removed account bob@example\\.com \\(${USER_ID}\\)\\n$`),
  );
  // Revoked at once, by the same server.
  assert.equal((await curlExec(server.url, token, 'whoami')).status, 401);
  assert.equal((await server.stop()).code, 0);
});

test('the socket is 0600 in a 0700 folder, removed at stop; strict about what it reads', async () => {
  const data = dir.join('modes');
  const server = await serveForAda(data);
  const socket = join(data, 'admin', 'admin.sock');
  const stat = statSync(socket);
  assert.ok(stat.isSocket());
  assert.equal((stat.mode & 0o777).toString(8), '600');
  assert.equal((statSync(join(data, 'admin')).mode & 0o777).toString(8), '700');

  const hint =
    'send one JSON object: {"op":"list"}, {"op":"add",…}, {"op":"remove",…} or {"op":"mail"}';
  const refusal = (message: string, hintText = hint) =>
    `${JSON.stringify({ error: { code: 'usage', message, hint: hintText } })}\n`;
  assert.equal(await rawRequest(socket, 'list'), refusal('bad admin request: not JSON'));
  assert.equal(
    await rawRequest(socket, '{"op":"list","email":"a@b.c"}'),
    refusal('bad admin request: unknown field "email"'),
  );
  assert.equal(
    await rawRequest(socket, '{"op":"add","email":"x@example.com","keys":["ssh-ed25519 AAAA"]}'),
    refusal('key 1: invalid SSH public key', 'give OpenSSH public keys'),
  );
  const tooBig = await rawRequest(socket, Buffer.alloc(70_000, 0x20));
  assert.equal(tooBig, refusal('admin request over 65536 bytes', 'send fewer keys at once'));

  assert.equal((await server.stop()).code, 0);
  assert.equal(existsSync(socket), false);
});

test("only root or the server's user may use the socket: others get one clear line", async () => {
  const data = dir.join('private');
  const server = await serveForAda(data);
  const refused = `cannot use the admin socket of the server on ${data}: permission denied (EACCES) — run this as the user the server runs as, or as root`;
  assertOneLineError(await accounts(data, ['list'], AS_NOBODY), 8, refused);
  assertOneLineError(
    await accounts(data, ['add', 'eve@example.com', '--key', bob.pubPath], AS_NOBODY),
    8,
    refused,
  );
  // With both folders opened to others, the socket's own 0600 still says no.
  chmodSync(data, 0o711);
  chmodSync(join(data, 'admin'), 0o711);
  try {
    assertOneLineError(await accounts(data, ['remove', 'ada@example.com'], AS_NOBODY), 8, refused);
  } finally {
    chmodSync(join(data, 'admin'), 0o700);
    chmodSync(data, 0o700);
  }
  const list = await accounts(data, ['list']);
  assert.equal(list.stdout.split('\n').filter(Boolean).length, 1, 'nothing was added');
  assert.equal((await server.stop()).code, 0);
});

test('after kill -9 the stale socket does not confuse the client: it works offline', async () => {
  const data = dir.join('killed');
  const first = await serveForAda(data);
  assert.equal((await first.stop('SIGKILL')).signal, 'SIGKILL');
  assert.ok(statSync(join(data, 'admin', 'admin.sock')).isSocket(), 'the socket file stays');

  const added = await accounts(data, ['add', 'bob@example.com', '--key', bob.pubPath]);
  assert.deepEqual([added.code, added.stderr], [0, '']);
  assert.match(added.stdout, /^created account bob@example\.com /);
  const listed = await accounts(data, ['list']);
  assert.deepEqual(
    listed.stdout.split('\n').map((line) => line.split('\t')[0]),
    ['ada@example.com', 'bob@example.com', ''],
  );

  // The next server replaces the stale socket and answers on it.
  const second = await serveForAda(data);
  const removed = await accounts(data, ['remove', 'bob@example.com']);
  assert.deepEqual([removed.code, removed.stderr], [0, '']);
  await second.waitForLine(/ via=admin key=- cmd="accounts remove" status=200 ms=/);
  assert.equal((await second.stop()).code, 0);
});

test('an admin folder planted as a link is not used: the server warns and runs without one', async () => {
  const data = dir.join('planted');
  const elsewhere = dir.join('elsewhere');
  mkdirSync(data, { mode: 0o700 });
  mkdirSync(elsewhere);
  chmodSync(elsewhere, 0o777);
  symlinkSync(elsewhere, join(data, 'admin'));
  const server = await serveForAda(data);
  assert.ok(
    server
      .stderr()
      .includes(
        `no admin socket: ${data}/admin/admin.sock: its folder is a link or another user's, not a folder of this user; \`exectl serve accounts\` works only while the server is stopped`,
      ),
    server.stderr(),
  );
  assert.deepEqual(readdirSync(elsewhere), []);
  assert.equal((statSync(elsewhere).mode & 0o777).toString(8), '777');
  assertOneLineError(
    await accounts(data, ['list']),
    2,
    `data folder ${data} is in use by pid ${server.child.pid} — stop that server first, then run this again`,
  );
  assert.equal((await server.stop()).code, 0);
});

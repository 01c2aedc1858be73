// One server per data folder (SPEC §7): a second `exectl serve`, and the offline `serve
// accounts` commands where the server has no admin socket, are refused while a server holds the
// folder, the first server is left alone, and a server killed with -9 does not block the next.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, assertOneLineError, exectl } from './harness.js';
import {
  TEST_FLAGS,
  curlExec,
  execJson,
  launchServe,
  recipeToken,
  startServe,
  stopAll,
  type LaunchedServe,
} from './serve-server.js';

let dir: TempDir;
let ada: GeneratedKey;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-lock');
  ada = await generateKey(dir.path, 'ed25519', { name: 'ada', comment: 'ada@laptop' });
});
after(async () => {
  await stopAll();
  await dir.remove();
});

/**
 * Starts `exectl serve` that is expected to refuse; resolves when it has ended, its output read.
 * One that is still running after 10 s is killed (its code is then null).
 */
async function refusedServe(data: string): Promise<LaunchedServe & { code: number | null }> {
  const launched = launchServe(serveArgs(data), { home: dir.path });
  const closed = once(launched.child, 'close') as Promise<[number | null]>;
  const timer = setTimeout(() => launched.child.kill('SIGKILL'), 10_000);
  const [code] = await closed;
  clearTimeout(timer);
  return { ...launched, code };
}

const serveArgs = (data: string) => [
  '--data',
  data,
  ...TEST_FLAGS,
  '--owner',
  'ada@example.com',
  '--authorized-key',
  ada.pubPath,
];

test('a second server on the same folder refuses to start; the first is untouched', async () => {
  const data = dir.join('two');
  const first = await startServe(serveArgs(data), { home: dir.path });
  const pid = first.child.pid!;
  await execJson(first.url, ada, 'new --name web', 'new');
  const inWeb = async (line: string) =>
    curlExec(first.url, await recipeToken(ada, ['ssh web']), `ssh web ${line}`);
  assert.deepEqual(await inWeb(`'echo kept > kept'`), { status: 200, body: '' });

  const second = await refusedServe(data);
  assert.deepEqual(
    { code: second.code, stdout: second.stdout(), stderr: second.stderr() },
    {
      code: 2,
      stdout: '',
      stderr: `exectl: data folder ${data} is in use by pid ${pid} — stop that server or use another --data\n`,
    },
  );

  // The first goes on: its VM and that VM's disk, and the pid file naming it.
  const whoami = (await execJson(first.url, ada, 'whoami', 'whoami')) as { email: string };
  assert.equal(whoami.email, 'ada@example.com');
  assert.deepEqual(await inWeb('cat kept'), { status: 200, body: 'kept\n' });
  assert.equal(readFileSync(`${data}/exectl.pid`, 'utf8'), `${pid}\n`);
  assert.equal((await first.stop()).code, 0);

  // Stopped cleanly: the folder is free again.
  const third = await startServe(serveArgs(data), { home: dir.path });
  assert.equal((await third.stop()).code, 0);
});

test('a server without an admin socket still refuses accounts commands, which work after', async () => {
  // A path too long for a Unix socket (108 bytes): the server runs without one, and says so.
  const data = dir.join(`offline-${'x'.repeat(100)}`);
  const server = await startServe(serveArgs(data), { home: dir.path });
  assert.ok(
    server
      .stderr()
      .includes(
        "no admin socket: the data folder's path is too long for a Unix socket; `exectl serve accounts` works only while the server is stopped",
      ),
    server.stderr(),
  );
  const refused = `data folder ${data} is in use by pid ${server.child.pid} — stop that server first, then run this again`;
  const accounts = (args: string[]) =>
    exectl(['serve', 'accounts', ...args, '--data', data], { home: dir.path });

  assertOneLineError(await accounts(['add', 'bob@example.com']), 2, refused);
  assertOneLineError(await accounts(['list']), 2, refused);
  assertOneLineError(await accounts(['remove', 'ada@example.com']), 2, refused);
  assert.equal((await server.stop()).code, 0);

  const list = await accounts(['list', '--json']);
  assert.equal(list.code, 0, list.stderr);
  const emails = (JSON.parse(list.stdout) as { accounts: { email: string }[] }).accounts;
  assert.deepEqual(
    emails.map((a) => a.email),
    ['ada@example.com'],
    'the refused add changed nothing',
  );
});

test('a server killed with -9 leaves a stale pid file that does not block the next one', async () => {
  const data = dir.join('killed');
  const first = await startServe(serveArgs(data), { home: dir.path });
  assert.equal((await first.stop('SIGKILL')).signal, 'SIGKILL');

  const added = await exectl(['serve', 'accounts', 'add', 'bob@example.com', '--data', data], {
    home: dir.path,
  });
  assert.equal(added.code, 0, added.stderr);
  const second = await startServe(serveArgs(data), { home: dir.path });
  const third = await refusedServe(data);
  assert.equal(third.code, 2);
  assert.ok(third.stderr().includes(`in use by pid ${second.child.pid} —`), third.stderr());
  assert.equal((await second.stop()).code, 0);
});

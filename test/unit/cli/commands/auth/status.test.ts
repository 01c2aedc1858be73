// `exectl auth status` in-process against a real server: which key signs, from where, and
// whether the server knows it; exit 0 when a key works, 3 otherwise.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServer, type RunningServer } from '../../../../../src/library/start-server.js';
import { runCli } from '../../../../helpers/cli-run.js';
import { generateKey } from '../../../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../../../helpers/tmp.js';

let server: RunningServer;
let dir: TempDir;
let env: Record<string, string>;
before(async () => {
  server = await startServer();
  dir = await createTempDir();
  env = { XDG_CONFIG_HOME: dir.path, XDG_CACHE_HOME: dir.path };
});
after(async () => {
  await server.stop();
  await dir.remove();
});

test('a registered key: it signs, the server names its account, exit 0', async () => {
  const key = server.ownerKey;
  const run = await runCli(
    ['auth', 'status', '--url', server.url, '--key', key.privateKeyPath],
    env,
  );
  assert.deepEqual(run, {
    code: 0,
    stdout:
      `url:     ${server.url}\nprofile: none\nkeys, in the order exectl tries them:\n` +
      `  * ${key.fingerprint}  file ${key.privateKeyPath}  known: ${server.owner}, key "owner"\n` +
      `signs:   key ${key.fingerprint} from file ${key.privateKeyPath} (marked *)\n`,
    stderr: '',
  });
});

test('a key the server does not know: listed as unknown, exit 3', async () => {
  const stranger = await generateKey(dir.path, 'ed25519', { name: 'stranger' });
  const run = await runCli(['auth', 'status', '--url', server.url, '--key', stranger.path], env);
  assert.equal(run.code, 3);
  const fingerprint = /^ {2}\* (SHA256:\S+) {2}file /m.exec(run.stdout)?.[1];
  assert.ok(fingerprint, run.stdout);
  assert.deepEqual(run, {
    code: 3,
    stdout:
      `url:     ${server.url}\nprofile: none\nkeys, in the order exectl tries them:\n` +
      `  * ${fingerprint}  file ${stranger.path}  not known to the server\n` +
      `signs:   key ${fingerprint} from file ${stranger.path} (marked *)\n`,
    stderr: `exectl: the key that signs (${fingerprint}) is not known to ${server.url} — pick a known key with --key, or register this one (ssh-key add, or \`exectl serve accounts add\` on the server)\n`,
  });
});

test('a key file that cannot be read: named with its cause, nothing signs, exit 3', async () => {
  const run = await runCli(['auth', 'status', '--url', server.url], {
    ...env,
    EXECTL_KEY: '/nonexistent/k',
  });
  assert.deepEqual(run, {
    code: 3,
    stdout:
      `url:     ${server.url}\nprofile: none\nkeys, in the order exectl tries them:\n` +
      '    (fingerprint unknown)  file /nonexistent/k  not checked: cannot read key file /nonexistent/k (ENOENT)\n' +
      'signs:   nothing (cannot read key file /nonexistent/k (ENOENT))\n',
    stderr:
      'exectl: no key can sign — create one with `ssh-keygen -t ed25519`, or pass --key PATH\n',
  });
});

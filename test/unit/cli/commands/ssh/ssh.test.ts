// `exectl ssh` in-process against a real server: the VM command's output streams to stdout and
// its exit code becomes exectl's; an unknown VM is one line and exit 1.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServer, type RunningServer } from '../../../../../src/library/start-server.js';
import { runCli } from '../../../../helpers/cli-run.js';
import { createTempDir, type TempDir } from '../../../../helpers/tmp.js';

let server: RunningServer;
let dir: TempDir;
let ssh: (...words: string[]) => ReturnType<typeof runCli>;
before(async () => {
  server = await startServer();
  dir = await createTempDir();
  const env = { XDG_CONFIG_HOME: dir.path, XDG_CACHE_HOME: dir.path };
  const key = server.ownerKey.privateKeyPath;
  ssh = (...words) => runCli(['ssh', '--url', server.url, '--key', key, ...words], env);
  const made = await runCli(
    ['run', '--url', server.url, '--key', key, 'new', '--name', 'web'],
    env,
  );
  assert.equal(made.code, 0, made.stderr);
});
after(async () => {
  await server.stop();
  await dir.remove();
});

test("the command's output on stdout, its exit code as exectl's", async () => {
  assert.deepEqual(await ssh('web', 'echo', 'hello'), { code: 0, stdout: 'hello\n', stderr: '' });
  assert.deepEqual(await ssh('web', 'false'), { code: 1, stdout: '', stderr: '' });
});

test('an unknown VM: one line naming it and the way to list yours, exit 1', async () => {
  assert.deepEqual(await ssh('nope', 'true'), {
    code: 1,
    stdout: '',
    stderr: 'exectl: vm "nope" not found — run `exectl run ls` to see yours\n',
  });
});

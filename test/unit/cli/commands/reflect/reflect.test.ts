// `exectl reflect` in-process, as a program inside a VM runs it: EXECTL_REFLECTION_URL of a real
// VM of a real server, its index and one path, and the one-line error outside a VM.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServer, type RunningServer } from '../../../../../src/library/start-server.js';
import { runCli } from '../../../../helpers/cli-run.js';
import { createTempDir, type TempDir } from '../../../../helpers/tmp.js';

let server: RunningServer;
let dir: TempDir;
let insideVm: Record<string, string>;
before(async () => {
  server = await startServer();
  dir = await createTempDir();
  const env = { XDG_CONFIG_HOME: dir.path, XDG_CACHE_HOME: dir.path };
  const cli = ['--url', server.url, '--key', server.ownerKey.privateKeyPath];
  const made = await runCli(['run', ...cli, 'new', '--name', 'web', '--tag', 'blue'], env);
  assert.equal(made.code, 0, made.stderr);
  const url = await runCli(['ssh', ...cli, 'web', 'printenv', 'EXECTL_REFLECTION_URL'], env);
  assert.equal(url.code, 0, url.stderr);
  insideVm = { ...env, EXECTL_REFLECTION_URL: url.stdout.trim() };
});
after(async () => {
  await server.stop();
  await dir.remove();
});

test('the index names the VM and lists the paths it may read', async () => {
  const run = await runCli(['reflect'], insideVm);
  assert.equal(run.code, 0, run.stderr);
  const index = JSON.parse(run.stdout) as { name: string; paths: { path: string }[] };
  assert.equal(index.name, 'web');
  assert.deepEqual(
    index.paths.map((p) => p.path),
    ['/email', '/integrations', '/tags', '/comment', '/default_port'],
  );
});

test('a path answers its field', async () => {
  const run = await runCli(['reflect', 'tags'], insideVm);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { tags: ['blue'] });
});

test('outside a VM: one line saying so, exit 2', async () => {
  assert.deepEqual(await runCli(['reflect'], { XDG_CONFIG_HOME: dir.path }), {
    code: 2,
    stdout: '',
    stderr: 'exectl: not inside an exectl VM — EXECTL_REFLECTION_URL is not set\n',
  });
});

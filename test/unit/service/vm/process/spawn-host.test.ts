// The one spawn helper of vm/: what a run-to-completion tool hands back, the error that names
// the tool and its last line, and that a child gets exactly the env, cwd and fds it is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { HostToolError, runHost, spawnHost } from '../../../../../src/service/vm/process/index.js';

const ENV = { PATH: '/usr/bin:/bin' };

test('runHost resolves with stdout and stderr joined', async () => {
  const out = await runHost('/bin/sh', ['-c', 'echo one; echo two >&2'], {
    env: ENV,
    stdout: 'pipe',
  });
  assert.equal(out, 'one\ntwo\n');
});

test('runHost with stdout ignored keeps only stderr', async () => {
  const out = await runHost('/bin/sh', ['-c', 'echo one; echo two >&2'], {
    env: ENV,
    stdout: 'ignore',
  });
  assert.equal(out, 'two\n');
});

test('runHost names the tool, its exit code and its last line', async () => {
  const failing = runHost('/bin/sh', ['-c', 'echo first >&2; echo last >&2; exit 3'], {
    env: ENV,
    stdout: 'pipe',
  });
  await assert.rejects(failing, (err: unknown) => {
    assert.ok(err instanceof HostToolError);
    assert.equal(err.message, '/bin/sh ended with exit code 3: last');
    assert.equal(err.code, 3);
    assert.equal(err.output, 'first\nlast\n');
    return true;
  });
});

test('runHost accepts the exit codes it is told are fine', async () => {
  const out = await runHost('/bin/sh', ['-c', 'exit 1'], {
    env: ENV,
    stdout: 'pipe',
    okCodes: [0, 1],
  });
  assert.equal(out, '');
});

test('runHost rejects with the spawn error when the tool is missing', async () => {
  await assert.rejects(runHost('/nonexistent/tool', [], { env: ENV, stdout: 'pipe' }), {
    code: 'ENOENT',
  });
});

test('spawnHost gives the child exactly its env, cwd, session and extra fds', async () => {
  const child = spawnHost(
    '/bin/sh',
    ['-c', 'printf "%s|%s|%s" "$(pwd)" "$(env | sort | tr "\\n" " ")" "$(ps -o sid= -p $$)" >&3'],
    { env: ENV, cwd: '/', detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe'] },
  );
  let text = '';
  (child.stdio[3] as Readable).on('data', (c: Buffer) => (text += c.toString()));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  const [cwd, env, sid] = text.split('|');
  assert.equal(cwd, '/');
  assert.match(env!, /^(PATH=\/usr\/bin:\/bin |PWD=\/ |SHLVL=\d+ |_=\S+ )+$/);
  assert.ok(env!.includes('PATH=/usr/bin:/bin '));
  assert.equal(Number(sid), child.pid, 'the child leads a session of its own');
});

// A server killed with SIGKILL cannot shut its VMs down: the sandboxes must die with it (bwrap
// --die-with-parent), so no VM process outlives its server and the next start begins afresh.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { hostPidsWith, onlyHostSleeper, uniqueMarker } from './fixture.js';

let dir: TempDir;
let server: ChildProcess | undefined;

before(async () => {
  dir = await createTempDir('vm-crash');
});
after(async () => {
  // Only reached with the server alive when an assertion failed before the kill.
  server?.kill('SIGKILL');
  await dir.remove();
});

test('the VMs of a server killed with SIGKILL die with it', async () => {
  const marker = uniqueMarker();
  // The marker reaches the script through the env, so that only the VM's sleep has it in its
  // command line.
  const script = `
    import { runtimeFor } from ${JSON.stringify(resolve('test/integration/vm/fixture.ts'))};
    const runtime = await runtimeFor('bwrap');
    const vm = { name: 'orphan', diskDir: ${JSON.stringify(dir.join('vms', '1'))}, env: {} };
    await runtime.create(vm);
    await runtime.exec(vm, 'setsid sleep ' + process.env.MARKER + ' > /dev/null 2>&1 &');
    console.log('ready');
    setInterval(() => {}, 1000);`;
  server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { PATH: '/usr/bin:/bin', MARKER: marker },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(server, 'exit');
  const [line] = (await once(server.stdout!, 'data')) as [Buffer];
  assert.equal(line.toString(), 'ready\n');
  await onlyHostSleeper(marker);

  server.kill('SIGKILL');
  await exited;
  server = undefined;
  // The kernel delivers the parent-death signal asynchronously: poll for up to 10 s.
  const end = Date.now() + 10_000;
  while ((await hostPidsWith(`sleep ${marker}`)).length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(await hostPidsWith(`sleep ${marker}`), []);
});

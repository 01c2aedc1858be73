// A VM's life in both runtimes: disk persistence, background processes, restart, remove,
// server restart and shutdown, and the setup script.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ExectlError } from '../../../src/errors.js';
import type { RuntimeKind } from '../../../src/service/vm/index.js';
import {
  fileOnHost,
  hostPidsWith,
  onlyHostSleeper,
  openVmFixture,
  uniqueMarker,
  type VmFixture,
} from './fixture.js';

for (const kind of ['bwrap', 'process'] satisfies RuntimeKind[]) {
  describe(`${kind} runtime: lifecycle`, () => {
    let fx: VmFixture;

    before(async () => {
      fx = await openVmFixture(kind);
    });
    after(() => fx.close());

    test('files persist across commands, restarts and a server restart', async () => {
      const vm = await fx.create('keeper');
      await fx.run(vm, 'mkdir -p notes && echo kept > notes/a.txt');
      assert.equal((await fx.run(vm, 'cat notes/a.txt')).output, 'kept\n');
      await fx.runtime.restart(vm);
      assert.equal((await fx.run(vm, 'cat ~/notes/a.txt')).output, 'kept\n');
      await fx.restartServer();
      assert.equal((await fx.run(vm, 'cat ~/notes/a.txt')).output, 'kept\n');
      // The disk is in the folder the caller named.
      assert.equal((await fileOnHost(fx, vm, 'notes/a.txt')).text, 'kept\n');
    });

    test('background processes live until restart', async () => {
      const vm = await fx.create('worker');
      const [detached, nohup] = [uniqueMarker(), uniqueMarker()];
      await fx.run(vm, `setsid sleep ${detached} > /dev/null 2>&1 & nohup sleep ${nohup} &`);
      await fx.run(vm, 'true');
      await onlyHostSleeper(detached);
      await onlyHostSleeper(nohup);
      await fx.runtime.restart(vm);
      assert.deepEqual(await hostPidsWith(`sleep ${detached}`), []);
      assert.deepEqual(await hostPidsWith(`sleep ${nohup}`), []);
      assert.equal((await fx.run(vm, 'echo back')).output, 'back\n');
    });

    test('remove kills the VM and deletes its disk; other VMs are untouched', async () => {
      const doomed = await fx.create('doomed');
      const neighbour = await fx.create('neighbour');
      const [mine, theirs] = [uniqueMarker(), uniqueMarker()];
      await fx.run(doomed, `echo data > file; setsid sleep ${mine} > /dev/null 2>&1 &`);
      await fx.run(neighbour, `setsid sleep ${theirs} > /dev/null 2>&1 &`);
      await fx.runtime.remove(doomed);
      assert.equal(existsSync(doomed.diskDir), false);
      assert.deepEqual(await hostPidsWith(`sleep ${mine}`), []);
      await onlyHostSleeper(theirs);
      await assert.rejects(fx.run(doomed, 'true'), /does not exist/);
      await fx.runtime.remove(neighbour);
      assert.deepEqual(await hostPidsWith(`sleep ${theirs}`), []);
    });

    test('shutdown kills every VM’s processes; later commands are refused', async () => {
      const vm = await fx.create('last');
      const marker = uniqueMarker();
      await fx.run(vm, `setsid sleep ${marker} > /dev/null 2>&1 &`);
      await fx.runtime.shutdown();
      assert.deepEqual(await hostPidsWith(`sleep ${marker}`), []);
      await assert.rejects(fx.run(vm, 'true'), /shut down/);
      await fx.restartServer();
      assert.equal((await fx.run(vm, 'echo up')).output, 'up\n');
    });
  });

  describe(`${kind} runtime: create and the setup script`, () => {
    let fx: VmFixture;

    before(async () => {
      fx = await openVmFixture(kind);
    });
    after(() => fx.close());

    test('the setup script runs once, inside, with the VM env and the call env', async () => {
      const vm = fx.spec('set-up', { ROLE: 'web' });
      await fx.runtime.create(vm, {
        setupScript: 'echo "$ROLE $EXTRA" >> setup.log',
        env: { EXTRA: 'call' },
      });
      await fx.run(vm, 'true');
      await fx.runtime.restart(vm);
      await fx.restartServer();
      assert.equal((await fx.run(vm, 'cat setup.log')).output, 'web call\n');
    });

    test('a failing setup script is a 422 with its output tail, and leaves nothing', async () => {
      const vm = fx.spec('broken');
      const marker = uniqueMarker();
      const failure = await fx.runtime
        .create(vm, {
          setupScript: `setsid sleep ${marker} > /dev/null 2>&1 & seq 1 5000; echo 'apt: no such package' >&2; exit 3`,
        })
        .then(
          () => assert.fail('create succeeded'),
          (err: unknown) => err,
        );
      assert.ok(failure instanceof ExectlError);
      assert.equal(failure.code, 'command_failed');
      assert.equal(failure.status, 422);
      // One short sentence: the exit code and the script's last line of output.
      assert.equal(failure.message, 'setup script failed with exit code 3: apt: no such package');
      assert.equal(existsSync(vm.diskDir), false);
      assert.deepEqual(await hostPidsWith(`sleep ${marker}`), []);
    });

    test('an aborted setup script throws the signal’s reason and leaves nothing', async () => {
      const vm = fx.spec('slow');
      const marker = uniqueMarker();
      const reason = new Error('deadline passed');
      const controller = new AbortController();
      setTimeout(() => controller.abort(reason), 1000);
      await assert.rejects(
        fx.runtime.create(vm, { setupScript: `sleep ${marker}`, signal: controller.signal }),
        (err) => err === reason,
      );
      assert.equal(existsSync(vm.diskDir), false);
      assert.deepEqual(await hostPidsWith(`sleep ${marker}`), []);
    });

    test('creating over an existing disk fails and keeps that disk', async () => {
      const vm = await fx.create('taken');
      await fx.run(vm, 'echo precious > keep');
      await assert.rejects(fx.runtime.create(vm), { code: 'EEXIST' });
      assert.equal((await fx.run(vm, 'cat keep')).output, 'precious\n');
    });
  });
}

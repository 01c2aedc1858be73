// startVmMachines: stored VM records on a real SQLite store, run by a real runtime.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { ServiceEndpoints } from '../../../src/service/deps.js';
import { openStore, type Store, type VmRecord } from '../../../src/service/store/index.js';
import { reflectionUrlOf } from '../../../src/service/reflection/urls.js';
import { startVmMachines, type RunningVmMachines } from '../../../src/service/vm/index.js';
import type { RuntimeKind } from '../../../src/service/vm/index.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { testServiceConfig } from '../../helpers/config.js';

for (const kind of ['bwrap', 'process'] satisfies RuntimeKind[]) {
  describe(`startVmMachines with --runtime ${kind}`, () => {
    let dir: TempDir;
    let store: Store;
    let machines: RunningVmMachines;
    let accountId: number;
    // Filled in after the start, as the composition root does once the listener is up.
    const endpoints: ServiceEndpoints = { http: '', ssh: null, reflection: '' };
    const deadline = () => AbortSignal.timeout(20_000);

    before(async () => {
      dir = await createTempDir(`vm-machines-${kind}`);
      await mkdir(dir.join('data'));
      store = openStore(dir.join('data', 'exectl.db'));
      accountId = store.createAccount('ada@example.com').id;
      const config = testServiceConfig({ dataDir: dir.join('data'), runtime: kind });
      machines = await startVmMachines({
        config,
        store,
        endpoints,
        reflectionUrl: (vm) => reflectionUrlOf(endpoints.reflection, vm.reflectionSecret),
      });
      endpoints.reflection = 'http://127.0.0.1:7071';
    });
    after(async () => {
      await machines.shutdown();
      store.close();
      await dir.remove();
    });

    const newRecord = (name: string, setupScript: string | null): VmRecord =>
      store.createVm({
        accountId,
        name,
        emoji: '🦦',
        status: 'creating',
        env: { ROLE: 'db' },
        setupScript,
      });

    const run = async (vm: VmRecord, command: string) => {
      const chunks: Buffer[] = [];
      const result = await machines.exec(vm, command, {
        signal: deadline(),
        onOutput: (chunk) => chunks.push(chunk),
      });
      return { ...result, output: Buffer.concat(chunks).toString('utf8') };
    };

    test('reports the runtime it chose', () => {
      const root = process.getuid?.() === 0;
      assert.deepEqual(
        [machines.runtime.kind, machines.runtime.mode.kind],
        [kind, kind === 'bwrap' && root ? 'machine' : 'user'],
      );
    });

    test('a VM lives in <data>/vms/<id>, with its env and its reflection URL', async () => {
      const vm = newRecord('stored', 'echo "$ROLE $EXECTL_REFLECTION_URL" > setup.txt');
      await machines.create(vm, deadline());
      const disk = join(dir.path, 'data', 'vms', String(vm.id));
      const url = `http://127.0.0.1:7071/vm/${vm.reflectionSecret}`;
      assert.equal(existsSync(disk), true);
      assert.equal((await run(vm, 'cat setup.txt')).output, `db ${url}\n`);
      assert.equal(store.getVm(vm.id)?.status, 'running');

      const ran = await run(vm, 'echo "$ROLE $EXECTL_REFLECTION_URL"; exit 3');
      assert.deepEqual(ran, { exitCode: 3, aborted: false, output: `db ${url}\n` });

      // The record is read at each call: a rename or new env shows at the next command.
      const renamed = store.renameVm(vm.id, 'renamed');
      await machines.restart(renamed);
      assert.equal((await run(renamed, 'cat setup.txt')).output, `db ${url}\n`);

      await machines.remove(renamed);
      assert.equal(existsSync(disk), false);
    });

    test('a failing setup script is a 422 and leaves no disk', async () => {
      const vm = newRecord('broken', 'echo cannot; exit 9');
      await assert.rejects(machines.create(vm, deadline()), {
        code: 'command_failed',
        message: 'setup script failed with exit code 9: cannot',
      });
      assert.equal(existsSync(join(dir.path, 'data', 'vms', String(vm.id))), false);
      assert.equal(store.getVm(vm.id)?.status, 'creating');
    });

    test('while restart or rm runs, the VM refuses new sessions, commands and connections', async () => {
      const vm = newRecord('closing', null);
      await machines.create(vm, deadline());
      const output = new PassThrough();
      const sessionNow = (name: string) =>
        machines.session(store.getVm(vm.id)!, {
          program: { kind: 'exec', command: `echo ${name}; sleep 30` },
          signal: deadline(),
          input: Readable.from([]),
          output,
          errors: new PassThrough(),
        }).exited;
      const restarting = machines.restart(vm);
      await assert.rejects(sessionNow('restart'), {
        code: 'command_failed',
        message: 'vm "closing" is restarting',
      });
      await restarting;
      // Over once it is done.
      const after = sessionNow('after');
      assert.equal(String(await once(output, 'data')), 'after\n');
      const removing = machines.remove(vm);
      const refused = { code: 'command_failed', message: 'vm "closing" is being removed' };
      await assert.rejects(sessionNow('rm'), refused);
      // Nor a command or a connection (which would boot the VM again under the removal).
      await assert.rejects(run(vm, 'true'), refused);
      await assert.rejects(machines.connect(vm, 8000), refused);
      await removing;
      // The one opened before rm was hung up by it.
      assert.equal((await after).aborted, true);
    });
  });
}

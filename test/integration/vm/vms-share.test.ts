// All machine VMs together leave the host a reserve (SPEC §7): their cgroups nest in one parent
// whose pids limit holds however many VMs fork as much as their own limits allow. For real, as
// root: a parent of this test's own (the server's `exectl` parent is shared with every VM on the
// machine) with a small limit, three VMs each allowed 4096 processes, a fork bomb in each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { V1Cgroups, V2Cgroups, type CgroupHost } from '../../../src/service/vm/cgroups/index.js';
import { createRuntime, detectSandboxMode } from '../../../src/service/vm/index.js';
import type { VmRuntime, VmSpec } from '../../../src/service/vm/index.js';
import { removeTree } from '../../../src/service/vm/cgroups/files.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { newRunDir } from './fixture.js';

const PARENT_PIDS = 300;
const VMS = 3;
/** What each VM's fork bomb tries to hold: together far past the parent's limit. */
const FORKS_EACH = 1500;

/** The folders of a parent cgroup beside the server's own `exectl` one, named for this test. */
function privateParent(host: CgroupHost, name: string): { host: CgroupHost; dirs: string[] } {
  const beside = (dir: string) => join(dir, '..', name);
  if (host instanceof V1Cgroups) {
    const parents = Object.fromEntries(
      Object.entries(host.parents).map(([c, dir]) => [c, beside(dir)]),
    ) as V1Cgroups['parents'];
    const swap = existsSync(join(host.parents.memory, 'memory.memsw.limit_in_bytes'));
    return { host: new V1Cgroups(parents, swap), dirs: [...new Set(Object.values(parents))] };
  }
  const parent = beside((host as V2Cgroups).parent);
  return {
    host: new V2Cgroups(parent, existsSync(join(parent, '..', 'memory.swap.max'))),
    dirs: [parent],
  };
}

describe('machine VMs: fork bombs in several VMs stay within the parent’s share', () => {
  let runtime: VmRuntime | undefined;
  let dir: TempDir;
  let parent: { host: CgroupHost; dirs: string[] } | undefined;
  const vms: VmSpec[] = [];
  let skip: string | false = false;

  before(async () => {
    dir = await createTempDir('vms-share');
    const found = await detectSandboxMode({ runDir: newRunDir(), inbound: () => [] });
    if ('problem' in found || found.mode.kind !== 'machine' || found.mode.cgroups === null) {
      skip = 'needs root and cgroups (machine VMs with limits)';
      return;
    }
    parent = privateParent(found.mode.cgroups, `exectl-share-${randomBytes(4).toString('hex')}`);
    if (parent.host instanceof V2Cgroups) {
      await mkdir(parent.dirs[0]!, { recursive: true });
      await writeFile(join(parent.dirs[0]!, 'cgroup.subtree_control'), '+memory +pids +cpu');
    }
    await parent.host.limitAll({ pids: PARENT_PIDS, memoryBytes: 8 * 2 ** 30 });
    runtime = createRuntime('bwrap', { ...found.mode, cgroups: parent.host });
    for (let i = 1; i <= VMS; i++) {
      const vm = { name: `bomb${i}`, diskDir: dir.join('vms', String(i)), env: {} };
      await runtime.create(vm);
      vms.push(vm);
    }
  });
  after(async () => {
    if (runtime !== undefined) {
      for (const vm of vms) await runtime.remove(vm).catch(() => {});
      await runtime.shutdown();
    }
    for (const folder of parent?.dirs ?? []) await removeTree(folder);
    await dir.remove();
  });

  test('the parent’s pid count never passes its limit, and the host still starts processes', async (t) => {
    if (skip !== false) return t.skip(skip);
    const pidsFile = join(
      parent!.host instanceof V1Cgroups ? parent!.host.parents.pids : parent!.dirs[0]!,
      'pids.current',
    );
    // Every VM boots, and every bomb is armed, before any forks: a VM booted once the parent is
    // full could not start its own launcher (a loaded run saw bomb2's fail with "Cannot fork").
    for (const vm of vms) assert.equal((await runtime!.exec(vm, 'true', {})).exitCode, 0);
    const bomb =
      `setsid sh -c 'sleep 10; i=0; while [ $i -lt ${FORKS_EACH} ]; do sleep 600 & i=$((i+1)); done; wait'` +
      ' > /dev/null 2>&1 &';
    for (const vm of vms) {
      const ran = await runtime!.exec(vm, bomb, {});
      assert.equal(ran.exitCode, 0);
    }
    // Poll until the bombs have pressed against the limit (a loaded host forks slowly).
    let most = 0;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const now = Number((await readFile(pidsFile, 'utf8')).trim());
      most = Math.max(most, now);
      if (now >= PARENT_PIDS - 5) break;
      await sleep(100);
    }
    assert.ok(most >= PARENT_PIDS - 5, `the bombs reached ${most} of ${PARENT_PIDS} pids`);
    for (let i = 0; i < 20; i++) {
      const now = Number((await readFile(pidsFile, 'utf8')).trim());
      assert.ok(now <= PARENT_PIDS, `${now} pids in the VMs’ parent, limit ${PARENT_PIDS}`);
      await sleep(50);
    }
    // Each VM alone is allowed 4096: it is the parent that held all three.
    const own = await runtime!.stat(vms[0]!);
    assert.equal(own.limits.pids, 4096);
    // The host (this test's process) still forks.
    assert.equal(execFileSync('/bin/echo', ['host ok']).toString(), 'host ok\n');
  });
});

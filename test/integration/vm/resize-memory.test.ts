// `resize --memory` below what a running VM holds (SPEC §4): never 500. The kernel cannot
// reclaim memory a process holds when there is no swap, so the cut is refused with a 422 naming
// what the VM uses, and every limit stays as it was. As root, as CI runs the tests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { detectCgroups } from '../../../src/service/vm/cgroups/index.js';
import { FAR } from '../proxy/fixture.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const CMDS = JSON.stringify(['new', 'ssh', 'stat', 'resize', 'rm']);
const MiB = 2 ** 20;

describe('resize --memory below what the VM uses', () => {
  let svc: TestService;
  let token: string;
  const exec = async (line: string) => {
    const res = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: line,
    });
    return { status: res.status, text: await res.text() };
  };
  const stat = async () => {
    const answer = await exec('stat web');
    assert.equal(answer.status, 200, answer.text);
    return JSON.parse(answer.text) as {
      status: string;
      booted_at: string;
      limits: Record<string, number>;
      usage: Record<string, number>;
    };
  };

  // The memory and CPU limits the kernel holds for the VM's cgroup, whichever its version.
  const kernelLimits = async () => {
    const host = await detectCgroups();
    assert.ok(!('problem' in host), 'these tests run with cgroups');
    const base = Number(await readFile(svc.dir.join('data', 'vms', '1', 'id-range'), 'utf8'));
    const files = [
      ...['memory.limit_in_bytes', 'memory.memsw.limit_in_bytes', 'memory.max', 'memory.swap.max'],
      ...['cpu.cfs_quota_us', 'cpu.max'],
    ];
    const found: Record<string, string> = {};
    for (const dir of host.procsFiles(`vm-${base.toString(16)}`).map((f) => dirname(f))) {
      for (const file of files) {
        const text = await readFile(join(dir, file), 'utf8').catch(() => undefined);
        if (text !== undefined) found[file] = text.trim();
      }
    }
    assert.ok(Object.keys(found).length >= 2, JSON.stringify(found));
    return found;
  };

  before(async () => {
    svc = await startTestService({ runtime: 'bwrap', commandDeadlineMs: 20_000 });
    token = await svc.token(`{"exp":${FAR},"cmds":${CMDS}}`);
    assert.equal((await exec('new --name web')).status, 200);
  });
  after(async () => {
    // rm gives the VM's host-wide id range back; stopping the service alone would not.
    await exec('rm web');
    await svc.stop();
  });

  test('a VM holding ~300 MiB: resize --memory 128M is a 422 naming its use; limits unchanged', async () => {
    // 300 MiB written (so really held), kept for at most 10 minutes; the VM goes with the test.
    const held = await exec(
      `ssh web "setsid python3 -c 'import time; b = bytes([120]) * (300 << 20); time.sleep(600)' > /dev/null 2>&1 &"`,
    );
    assert.equal(held.status, 200, held.text);
    let usage = 0;
    for (let i = 0; i < 600 && usage < 290 * MiB; i++) {
      usage = (await stat()).usage.memory_bytes ?? 0;
      if (usage < 290 * MiB) await sleep(100);
    }
    assert.ok(usage >= 290 * MiB, `the VM uses ${usage} bytes`);
    const before = await stat();
    const kernelBefore = await kernelLimits();

    const answer = await exec('resize web --memory 128M --cpu 1');
    assert.equal(answer.status, 422, answer.text);
    const { error } = JSON.parse(answer.text) as { error: string };
    const used = Number(/^vm "web" uses (\d+)M of memory now: /.exec(error)?.[1]);
    assert.ok(used >= 290 && used < 2048, error);
    assert.equal(
      error,
      `vm "web" uses ${used}M of memory now: resize to more than that, or free memory inside first`,
    );

    const after = await stat();
    assert.deepEqual(after.limits, before.limits);
    assert.deepEqual(await kernelLimits(), kernelBefore);
    assert.deepEqual([after.status, after.booted_at], ['running', before.booted_at]);
    // Above what it uses, the same resize applies.
    const grown = await exec('resize web --memory 1G --cpu 1');
    assert.equal(grown.status, 200, grown.text);
    assert.deepEqual(
      [(await stat()).limits.memory_bytes, (await stat()).limits.cpus],
      [1024 * MiB, 1],
    );
    // In the kernel too, with no swap beyond the limit (v1: memory+swap the same; v2: none).
    const kernel = await kernelLimits();
    const memory = kernel['memory.limit_in_bytes'] ?? kernel['memory.max'];
    assert.equal(memory, String(1024 * MiB));
    if ('memory.memsw.limit_in_bytes' in kernel) {
      assert.equal(kernel['memory.memsw.limit_in_bytes'], memory);
    }
    if ('memory.swap.max' in kernel) assert.equal(kernel['memory.swap.max'], '0');
  });
});

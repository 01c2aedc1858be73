// SPEC §7: `resize` has operator ceilings (`--max-vm-memory`, `--max-vm-cpus`, `--max-vm-disk`,
// defaulting to the host's size), applied to `resize`, to a new VM's defaults and to a seed's
// limits. Through the real service (process runtime: it cannot resize, so a value within the
// ceilings reaches the runtime and gets its refusal instead).
import assert from 'node:assert/strict';
import { totalmem } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { humanBytes } from '../../../src/service/rules/limit-values.js';
import { FAR } from '../proxy/fixture.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startServer } from '../../../src/library/start-server.js';

const G = 2 ** 30;
const M = 2 ** 20;
const WITHIN = 'resize needs the bwrap runtime with the server running as root';

describe('VM ceilings', () => {
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
  const refusal = (message: string) => ({
    status: 422,
    text: `${JSON.stringify({ error: message })}\n`,
  });

  before(async () => {
    svc = await startTestService({
      vmCeilings: { cpus: 1.5, memoryBytes: 1 * G, diskBytes: 5 * G },
    });
    token = await svc.token(`{"exp":${FAR},"cmds":["new","resize"]}`);
    assert.equal((await exec('new --name web')).status, 200);
  });
  after(() => svc.stop());

  test('a new VM gets the defaults lowered to the ceilings (2 CPUs, 2 GiB, 10 GiB above them)', () => {
    assert.deepEqual(svc.service.store.getVmByName('web')?.limits, {
      cpus: 1.5,
      memoryBytes: 1 * G,
      pids: 4096,
      diskBytes: 5 * G,
    });
  });

  // [flags, the answer's error]
  const CASES: readonly [string, string][] = [
    ['--cpu 64', "--cpu 64 is above this server's ceiling of 1.5 CPUs (--max-vm-cpus)"],
    ['--cpu 1.51', "--cpu 1.51 is above this server's ceiling of 1.5 CPUs (--max-vm-cpus)"],
    ['--cpu 1.5', WITHIN],
    ['--cpu 0.5', WITHIN],
    ['--memory 100T', "--memory 100T is above this server's ceiling of 1G (--max-vm-memory)"],
    ['--memory 1025M', "--memory 1025M is above this server's ceiling of 1G (--max-vm-memory)"],
    ['--memory 1G', WITHIN],
    ['--memory 512M', WITHIN],
    ['--disk 6G', "--disk 6G is above this server's ceiling of 5G (--max-vm-disk)"],
    ['--disk 5G', WITHIN],
    ['--cpu 1 --memory 2G', "--memory 2G is above this server's ceiling of 1G (--max-vm-memory)"],
  ];
  for (const [flags, error] of CASES) {
    test(`resize web ${flags}: ${error === WITHIN ? 'within the ceilings' : 'refused'}`, async () => {
      assert.deepEqual(await exec(`resize web ${flags}`), refusal(error));
      // Nothing changed.
      assert.equal(svc.service.store.getVmByName('web')?.limits.cpus, 1.5);
    });
  }
});

test('without --max-vm-*, the ceilings are the host’s: 100T of memory is refused', async () => {
  const svc = await startTestService();
  try {
    const token = await svc.token(`{"exp":${FAR},"cmds":["new","resize"]}`);
    const exec = (line: string) =>
      fetch(`${svc.url}/exec`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: line,
      }).then(async (res) => [res.status, await res.text()]);
    assert.equal((await exec('new --name web'))[0], 200);
    assert.deepEqual(await exec('resize web --memory 100T'), [
      422,
      `${JSON.stringify({ error: `--memory 100T is above this server's ceiling of ${humanBytes(totalmem())} (--max-vm-memory)` })}\n`,
    ]);
  } finally {
    await svc.stop();
  }
});

test('a seed VM with limits above a ceiling is refused, naming the entry and the ceiling', async () => {
  const seed = {
    accounts: [
      {
        email: 'a@example.com',
        keys: [],
        vms: [{ name: 'big', limits: { memory_bytes: 4 * G, disk_bytes: 128 * M } }],
      },
    ],
  };
  await assert.rejects(startServer({ seed, maxVmMemory: '2G' }), {
    message:
      "seed accounts[0].vms[0]: --memory 4G is above this server's ceiling of 2G (--max-vm-memory)",
  });
});

test('startServer refuses a ceiling that is not a size', async () => {
  await assert.rejects(startServer({ maxVmDisk: 'lots' }), {
    message: 'startServer option maxVmDisk: expected a size such as 8G, at least 64M',
  });
});

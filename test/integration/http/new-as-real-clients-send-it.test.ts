// `new` as clients of the real service send it (SPEC §3): a positional name, `--flag=value`
// forms, comma lists, the sizes of a provisioning provider (`--memory=4GB --disk=20GB`),
// `--no-email`; `--prompt` refused in one sentence naming why. Real curl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestService } from '../../helpers/service.js';
import { curlExec } from '../../helpers/curl-exec.js';

const FAR = 4_000_000_000;
const GIB = 2 ** 30;
const svc = useTestService();

async function token(): Promise<string> {
  return svc.token(`{"exp":${FAR},"cmds":["new","ls"]}`);
}

interface Listed {
  vm_name: string;
  tags: string[];
  cpus: number;
  memory_bytes: number;
  disk_bytes: number;
}

async function listed(t: string, name: string): Promise<Listed> {
  const ls = await curlExec(svc.url, t, `ls -l ${name}`);
  assert.equal(ls.status, 200, JSON.stringify(ls.body));
  const [vm] = (ls.body as { vms: Listed[] }).vms;
  assert.ok(vm !== undefined, `${name} is listed`);
  return vm;
}

test('new <name>: the positional name is the VM name', async () => {
  const t = await token();
  const made = await curlExec(svc.url, t, 'new web');
  assert.equal(made.status, 200, JSON.stringify(made.body));
  assert.equal((made.body as { vm_name: string }).vm_name, 'web');
  const same = await curlExec(svc.url, t, 'new --name=web2 web2');
  assert.equal(same.status, 200, JSON.stringify(same.body));
  assert.deepEqual(await curlExec(svc.url, t, 'new --name=a b'), {
    status: 422,
    body: { error: 'two names given, "b" and --name "a": give one' },
  });
});

test('new --name=x --cpu=2 --memory=4GB --disk=20GB --no-email --tag=a,b: every flag taken', async () => {
  const t = await token();
  const made = await curlExec(
    svc.url,
    t,
    'new --name=prov --cpu=2 --memory=4GB --disk=20GB --no-email --tag=prod,staging --tag=ci',
  );
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const vm = await listed(t, 'prov');
  assert.deepEqual(
    { tags: [...vm.tags].sort(), cpus: vm.cpus, memory: vm.memory_bytes, disk: vm.disk_bytes },
    { tags: ['ci', 'prod', 'staging'], cpus: 2, memory: 4 * GIB, disk: 20 * GIB },
  );
});

test('SIZE as the real service writes it: a bare number is GB, M and MB are MiB', async () => {
  const t = await token();
  assert.equal((await curlExec(svc.url, t, 'new bare --memory=1 --disk 12')).status, 200);
  const bare = await listed(t, 'bare');
  assert.deepEqual([bare.memory_bytes, bare.disk_bytes], [GIB, 12 * GIB]);
  assert.equal((await curlExec(svc.url, t, 'new mega --memory=512MB --disk=11G')).status, 200);
  const mega = await listed(t, 'mega');
  assert.deepEqual([mega.memory_bytes, mega.disk_bytes], [512 * 2 ** 20, 11 * GIB]);
  assert.deepEqual(await curlExec(svc.url, t, 'new --memory=lots'), {
    status: 422,
    body: { error: 'invalid --memory "lots": expected a size such as 512M or 4G' },
  });
});

test('new --prompt: 422 naming that no coding agent runs here, and no VM made', async () => {
  const t = await token();
  assert.deepEqual(await curlExec(svc.url, t, "new agentvm --prompt='build me a web app'"), {
    status: 422,
    body: { error: '--prompt is not taken: no coding agent runs in this emulator' },
  });
  assert.equal(svc.service.store.getVmByName('agentvm'), undefined);
});

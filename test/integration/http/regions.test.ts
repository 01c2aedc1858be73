// Regions as the real service's clients read them (SPEC §3): every VM's JSON carries `region`,
// `region_display` and `image`; `set-region <code>` takes the real service's codes, answers
// `{"region","region_display"}` and is recorded for VMs made afterwards only. Real curl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestService } from '../../helpers/service.js';
import { curlExec } from '../../helpers/curl-exec.js';

const FAR = 4_000_000_000;
const svc = useTestService();

interface Placed {
  vm_name: string;
  region: string;
  region_display: string;
  image: string | null;
}

const placement = (vm: Placed) => [vm.vm_name, vm.region, vm.region_display, vm.image];

test('VMs are made in the account region; set-region moves only the next ones', async () => {
  const t = await svc.token(`{"exp":${FAR},"cmds":["new","ls","set-region","whoami"]}`);
  const before = await curlExec(svc.url, t, 'new --name=here');
  assert.equal(before.status, 200, JSON.stringify(before.body));
  assert.deepEqual(placement(before.body as Placed), ['here', 'local', 'Local', null]);

  assert.deepEqual(await curlExec(svc.url, t, 'set-region FRA'), {
    status: 200,
    body: { region: 'fra', region_display: 'Frankfurt, Germany' },
  });
  const after = await curlExec(svc.url, t, 'new --name=there');
  assert.deepEqual(placement(after.body as Placed), ['there', 'fra', 'Frankfurt, Germany', null]);

  const ls = await curlExec(svc.url, t, 'ls');
  assert.deepEqual((ls.body as { vms: Placed[] }).vms.map(placement), [
    ['here', 'local', 'Local', null],
    ['there', 'fra', 'Frankfurt, Germany', null],
  ]);
  const me = (await curlExec(svc.url, t, 'whoami')).body as Record<string, unknown>;
  assert.deepEqual([me.region, me.region_display], ['fra', 'Frankfurt, Germany']);
});

test('an unknown region code: 422 listing the codes, and nothing recorded', async () => {
  const t = await svc.token(`{"exp":${FAR},"cmds":["set-region","whoami"]}`);
  const before = (await curlExec(svc.url, t, 'whoami')).body as Record<string, unknown>;
  assert.deepEqual(await curlExec(svc.url, t, 'set-region mars'), {
    status: 422,
    body: {
      error:
        'region "mars" is not available; choose from: local, pdx, lax, nyc, dal, fra, tyo, syd, sgp, lon',
    },
  });
  const after = (await curlExec(svc.url, t, 'whoami')).body as Record<string, unknown>;
  assert.equal(after.region, before.region);
});

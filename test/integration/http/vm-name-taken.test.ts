// VM names are global (each is an address, <vm>.<domain>), so a name can be taken by another
// account. Issue 25: `vm "x" already exists` told a caller that someone else has a VM called x.
// Taken by the caller or by anyone else, new, cp and rename now answer the same words.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../../helpers/service.js';

const FAR = 4_000_000_000;
let svc: TestService;
let ada: string;

async function exec(token: string, line: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${svc.url}/exec`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: line,
  });
  return { status: res.status, body: JSON.parse(await res.text()) as unknown };
}

before(async () => {
  svc = await startTestService();
  const bobKey = await svc.addAccount('bob@example.com');
  const cmds = JSON.stringify({ exp: FAR, cmds: ['new', 'cp', 'rename', 'ls'] });
  ada = await svc.token(cmds);
  const bob = await svc.token(cmds, bobKey);
  for (const [token, name] of [
    [ada, 'adas-vm'],
    [ada, 'adas-other'],
    [bob, 'bobs-vm'],
  ] as const) {
    const made = await exec(token, `new --name ${name}`);
    assert.equal(made.status, 200, JSON.stringify(made.body));
  }
  // cp copies a VM once it is made: wait (bounded) until ada's is no longer `creating`.
  for (let i = 0; i < 200; i += 1) {
    if (svc.service.store.getVmByName('adas-vm')?.status !== 'creating') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
after(() => svc.stop());

for (const [command, line] of [
  ['new', 'new --name NAME'],
  ['cp', 'cp adas-vm NAME'],
  ['rename', 'rename adas-other NAME'],
] as const) {
  test(`${command}: a name taken by another account reads as one taken by the caller`, async () => {
    const answers = [];
    for (const name of ['bobs-vm', 'adas-vm']) {
      const answer = await exec(ada, line.replace('NAME', name));
      assert.deepEqual(answer, {
        status: 422,
        body: { error: `vm name "${name}" is not available: choose another` },
      });
      answers.push(JSON.stringify(answer).replace(name, 'X'));
    }
    assert.equal(answers[0], answers[1]);
  });
}

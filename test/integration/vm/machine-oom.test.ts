// A machine VM under memory pressure loses what takes the memory, never its init: a real
// machine's kernel never kills pid 1. Every process of the VM but its init (each command, what
// the init starts) gives itself a higher OOM score than the init's (sandbox/bwrap-args.ts).
// Through the real service, as root, as CI runs the tests.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FAR } from '../proxy/fixture.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const CMDS_JSON = JSON.stringify(['new', 'ssh', 'stat', 'resize']);

describe('machine VMs under memory pressure (as root)', () => {
  let svc: TestService;
  let token: string;

  const exec = async (line: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: line,
    });
    return { status: res.status, text: await res.text() };
  };
  const ok = async (line: string): Promise<string> => {
    const answer = await exec(line);
    assert.equal(answer.status, 200, `${line}: ${answer.text}`);
    return answer.text;
  };
  const stat = async () => JSON.parse(await ok('stat web')) as Record<string, unknown>;

  before(async () => {
    svc = await startTestService({ runtime: 'bwrap', commandDeadlineMs: 120_000 });
    token = await svc.token(`{"exp":${FAR},"cmds":${CMDS_JSON}}`);
    await ok('new --name web');
    await ok('resize web --memory 128M');
  });
  after(() => svc.stop());

  test('the init keeps the server’s OOM score; what it starts, and each command, score higher', async () => {
    // /proc/1/task/1/children: the init's own children (its sleep, rc.local's session).
    const out = await ok(
      "ssh web 'cat /proc/1/oom_score_adj /proc/self/oom_score_adj; for c in $(cat /proc/1/task/1/children); do cat /proc/$c/oom_score_adj; done'",
    );
    const server = (await readFile('/proc/self/oom_score_adj', 'utf8')).trim();
    const [init, command, ...children] = out.trim().split('\n');
    assert.deepEqual([init, command], [server, '500']);
    assert.ok(children.length >= 1, out);
    for (const child of children) assert.equal(child, '500', out);
  });

  test('6,000 background sleeps under a 128M limit: the VM stays running, booted_at unchanged', async () => {
    const before = await stat();
    assert.equal(before['status'], 'running');
    assert.equal(typeof before['booted_at'], 'string');
    // The storm's own shell may be the one the OOM killer takes, or the pid limit may stop it:
    // how the command ends is not the point. The VM is.
    await exec("ssh web 'for i in $(seq 1 6000); do sleep 15 & done'");
    const after = await stat();
    assert.deepEqual(
      [after['status'], after['booted_at']],
      ['running', before['booted_at']],
      JSON.stringify(after),
    );
    // While the sleeps (15 s each) fill the VM's memory, a new command may be what the kernel
    // kills; once they are gone, one runs in the same machine, never a new boot.
    const deadline = Date.now() + 90_000;
    let alive = await exec('ssh web echo alive');
    while (alive.status !== 200 && Date.now() < deadline) {
      await sleep(500);
      alive = await exec('ssh web echo alive');
    }
    assert.deepEqual([alive.status, alive.text], [200, 'alive\n']);
    const last = await stat();
    assert.deepEqual([last['status'], last['booted_at']], ['running', before['booted_at']]);
  });
});

// Machine VMs through the real service, as root (SPEC §3 stat/resize/pause/resume, §4 "its own
// machine", §6 the proxy into the VM's network): network, limits, life cycle, bad input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { curl, FAR, freePort } from '../proxy/fixture.js';
import type { GeneratedKey } from '../../helpers/keys.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { hostProcess, uniqueMarker } from './fixture.js';

const CMDS = ['new', 'ssh', 'stat', 'resize', 'pause', 'resume', 'share port', 'share set-public'];
const CMDS_JSON = JSON.stringify([...CMDS, 'ssh-key add', 'share add', 'rm']);

interface Answer {
  status: number;
  text: string;
  ms: number;
}

describe('machine VMs through the service (as root)', () => {
  let svc: TestService;
  let other: GeneratedKey;
  const tokens = new Map<GeneratedKey | undefined, string>();

  const exec = async (line: string, key?: GeneratedKey): Promise<Answer> => {
    let token = tokens.get(key);
    if (token === undefined) {
      token = await svc.token(`{"exp":${FAR},"cmds":${CMDS_JSON}}`, key);
      tokens.set(key, token);
    }
    const started = performance.now();
    const res = await fetch(`${svc.url}/exec`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: line,
    });
    return { status: res.status, text: await res.text(), ms: performance.now() - started };
  };
  const ok = async (line: string, key?: GeneratedKey): Promise<string> => {
    const answer = await exec(line, key);
    assert.equal(answer.status, 200, `${line}: ${answer.text}`);
    return answer.text;
  };
  const refused = async (line: string, message: string, key?: GeneratedKey) => {
    const answer = await exec(line, key);
    assert.deepEqual(
      [answer.status, answer.text],
      [422, `${JSON.stringify({ error: message })}\n`],
    );
  };

  before(async () => {
    svc = await startTestService({ runtime: 'bwrap', commandDeadlineMs: 15_000 });
    other = await svc.addAccount('other@example.com');
    assert.equal(svc.service.runtime.kind, 'bwrap');
    assert.deepEqual(svc.service.runtime.warnings, []);
    await ok('new --name alpha');
    await ok('new --name beta');
  });
  after(() => svc.stop());

  test('inside: exactly the server’s HTTP and reflection listeners, at their host addresses', async () => {
    const out = await ok(
      `ssh alpha curl -s -o /dev/null -w '%{http_code} ' -X POST ${svc.url}/exec; curl -s "$EXECTL_REFLECTION_URL/" | head -c 9`,
    );
    // (The service's lexer took the quotes: curl's status and the JSON touch.)
    assert.equal(out, '401{\n  "name');
  });

  test('exectl reflect works inside: the client is on PATH in every VM', async () => {
    const reflected = JSON.parse(await ok('ssh alpha exectl reflect')) as { name: string };
    assert.equal(reflected.name, 'alpha');
    assert.equal(await ok('ssh alpha exectl reflect /tags'), '{\n  "tags": []\n}\n');
  });

  test('outbound: the Debian mirror the host uses answers', async () => {
    const sources = await readFile('/etc/apt/sources.list.d/debian.sources', 'utf8').catch(
      () => '',
    );
    const mirror = /^URIs:\s*(\S+)/m.exec(sources)?.[1] ?? 'http://deb.debian.org/debian';
    const out = await ok(`ssh alpha curl -s -o /dev/null -m 20 -w '%{http_code}' ${mirror}/`);
    assert.match(out, /^[23]\d\d$/);
  });

  test('port 8000 is free in every VM: two VMs and a host process all listen, the proxy picks right', async () => {
    const host = createServer((_, res) => res.end('host\n'));
    await new Promise<void>((resolve) => host.listen(8000, '127.0.0.1', resolve));
    try {
      // Each server is polled inside its VM until it answers (30 s at most), not slept for.
      for (const vm of ['alpha', 'beta']) {
        await ok(`share set-public ${vm}`);
        await ok(
          `ssh ${vm} mkdir -p site && echo ${vm} > site/index.html && (setsid python3 -m http.server 8000 -b 127.0.0.1 -d site > /dev/null 2>&1 &) && for i in $(seq 1 300); do curl -s -o /dev/null http://127.0.0.1:8000/ && break; sleep 0.1; done`,
        );
      }
      const port = new URL(svc.url).port;
      for (const vm of ['alpha', 'beta']) {
        const answer = await curl(`http://${vm}.localhost:${port}/`);
        assert.deepEqual([answer.status, answer.body], [200, `${vm}\n`]);
      }
    } finally {
      await new Promise((resolve) => host.close(resolve));
    }
  });

  test('share port on a port only the host uses answers 502, never the host’s service', async () => {
    const hostOnly: Server = createServer((_, res) => res.end('host secret\n'));
    const port = await freePort();
    await new Promise<void>((resolve) => hostOnly.listen(port, '127.0.0.1', resolve));
    try {
      await ok(`share port beta ${port}`);
      const answer = await curl(`http://beta.localhost:${new URL(svc.url).port}/`);
      assert.equal(answer.status, 502);
      assert.ok(!answer.body.includes('host secret'));
    } finally {
      await ok('share port beta 8000');
      await new Promise((resolve) => hostOnly.close(resolve));
    }
  });

  test('stat reports limits and live usage', async () => {
    const stat = JSON.parse(await ok('stat alpha')) as Record<string, any>;
    assert.deepEqual(Object.keys(stat), [
      'vm_name',
      'status',
      'image',
      'image_digest',
      'created_at',
      'booted_at',
      'limits',
      'usage',
      'setup',
    ]);
    assert.deepEqual(stat.limits, {
      cpus: 2,
      memory_bytes: 2 * 1024 ** 3,
      pids: 4096,
      disk_bytes: 10 * 1024 ** 3,
    });
    for (const field of ['memory_bytes', 'pids', 'disk_bytes', 'cpu_seconds']) {
      assert.ok(stat.usage[field] > 0, `${field}: ${stat.usage[field]}`);
    }
    assert.equal(stat.status, 'running');
    assert.match(stat.booted_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(stat.setup, { status: 'none', last_line: null });
  });

  test('pause freezes the VM: ssh is refused, the proxy answers 503; resume brings it back', async () => {
    const marker = uniqueMarker();
    await ok(
      `ssh alpha "setsid sh -c 'i=0; while :; do i=$((i+1)); echo $i > /tmp/count; sleep 0.05; done; : ${marker}' > /dev/null 2>&1 &"`,
    );
    // The loop's own shell (argv `sh -c 'i=0; …'`), not one still forking it: it lives on.
    const pid = await hostProcess(
      marker,
      (argv) => argv[0] === 'sh' && argv[2]?.startsWith('i=0;') === true,
    );
    const count = async () => Number(await readFile(`/proc/${pid}/root/tmp/count`, 'utf8'));
    await sleep(200);
    assert.deepEqual(JSON.parse(await ok('pause alpha')), { vm_name: 'alpha', status: 'paused' });
    const frozen = await count();
    await sleep(400);
    assert.equal(await count(), frozen);
    await refused('ssh alpha true', 'vm "alpha" is paused');
    const proxied = await curl(`http://alpha.localhost:${new URL(svc.url).port}/`);
    assert.equal(proxied.status, 503);
    assert.equal(JSON.parse(await ok('stat alpha')).status, 'paused');
    assert.deepEqual(JSON.parse(await ok('resume alpha')), { vm_name: 'alpha', status: 'running' });
    await sleep(400);
    assert.ok((await count()) > frozen);
  });

  test('bad input to resize, pause and resume is a one-line 422 and changes nothing', async () => {
    const before = JSON.parse(await ok('stat beta')).limits;
    await refused('resize nope --cpu 1', 'vm "nope" not found');
    await refused(
      'resize beta --memory 12Q',
      'invalid --memory "12Q": expected a size such as 512M or 4G',
    );
    await refused(
      'resize beta --cpu lots',
      'invalid --cpu "lots": expected a number of CPUs such as 1 or 0.5',
    );
    await refused('resize beta --disk 1M', '--disk "1M" is too small: at least 64M');
    await ok('ssh beta head -c 80000000 /dev/urandom > fill');
    const shrink = await exec('resize beta --disk 64M');
    assert.equal(shrink.status, 422);
    assert.match(
      shrink.text,
      /^\{"error":"the disk of vm \\"beta\\" cannot be smaller than \d+M"\}\n$/,
    );
    await refused('pause beta', 'vm "beta" not found', other);
    await ok('share add beta other@example.com');
    await refused('resize beta --cpu 1', 'only the owner of vm "beta" can resize it', other);
    await refused('pause beta', 'only the owner of vm "beta" can pause it', other);
    assert.deepEqual(JSON.parse(await ok('stat beta')).limits, before);
  });

  test('one VM’s fork bomb, memory hog and full disk leave the server and other accounts working', async () => {
    await ok('new --name gamma');
    // Half of this 2-core machine, as a VM host never gives one VM every core.
    await ok('resize gamma --cpu 1 --memory 256M --disk 200M');
    // 600 MiB written at once: more than twice the VM's limit.
    const hog = await exec(`ssh gamma python3 -c "b = b'x' * (600 * 2 ** 20)"`);
    assert.equal(hog.status, 422, hog.text);
    const full = await exec('ssh gamma dd if=/dev/zero of=big bs=1M count=300 2>&1 | head -n 1');
    assert.equal(full.text, "dd: error writing 'big': No space left on device\n");
    assert.equal(full.status, 200); // head is the pipeline's last command: it succeeds
    const bomb = exec(`ssh gamma "b() { b | b; }; b"`);
    await sleep(1000);
    // Meanwhile another account creates a VM, runs a command in it and adds a key.
    const made = await exec('new --name delta', other);
    const ran = await exec('ssh delta echo fine', other);
    const { publicKeyLine } = await import('../../helpers/keys.js').then(({ generateKey }) =>
      generateKey(svc.dir.path, 'ed25519', { name: 'id_extra' }),
    );
    const added = await exec(`ssh-key add --name extra '${publicKeyLine}'`, other);
    for (const [what, answer] of Object.entries({ made, ran, added })) {
      assert.equal(answer.status, 200, `${what}: ${answer.text}`);
      assert.ok(answer.ms < 10_000, `${what} took ${answer.ms} ms`);
    }
    assert.equal(ran.text, 'fine\n');
    // The bomb fails on its own (no process or memory left: 422) or at the deadline (504).
    const ended = await bomb;
    assert.ok([422, 504].includes(ended.status), `${ended.status} ${ended.text}`);
    const stat = JSON.parse(await ok('stat gamma'));
    assert.deepEqual(
      [stat.limits.memory_bytes, stat.limits.disk_bytes],
      [256 * 2 ** 20, 200 * 2 ** 20],
    );
  });
});

// The life of machine VMs through the real service, as root (SPEC §4): a stored status that
// stays true across server restarts, /etc/rc.local at each boot, setup scripts that outlive
// `new`'s answer, and `cp`. The server is stopped and started again on the same data folder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createService, type RunningService } from '../../../src/service/index.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import { generateKey, mintWithShellRecipe, type GeneratedKey } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { curl, FAR } from '../proxy/fixture.js';
import { hostSleeper, uniqueMarker } from './fixture.js';

const CMDS = ['new', 'ssh', 'stat', 'ls', 'cp', 'restart', 'rm', 'share set-public'];

interface Answer {
  status: number;
  text: string;
}

describe('machine VMs live on (as root)', () => {
  let dir: TempDir;
  let key: GeneratedKey;
  let token: string;
  let service: RunningService | undefined;
  let logs: string[] = [];

  const start = async () => {
    logs = [];
    service = await createService({
      listen: { host: '127.0.0.1', port: 0 },
      sshListen: null,
      reflectionListen: { host: '127.0.0.1', port: 0 },
      dataDir: dir.join('data'),
      domain: 'localhost',
      tls: null,
      runtime: 'bwrap',
      rateLimit: null,
      log: (line) => logs.push(line),
      commandDeadlineMs: 30_000,
    });
  };
  const restartServer = async () => {
    await service?.close();
    service = undefined;
    await start();
  };
  const exec = async (line: string): Promise<Answer> => {
    const res = await fetch(`${service!.endpoints.http}/exec`, {
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
  const json = async (line: string) => JSON.parse(await ok(line)) as Record<string, any>;
  const statusOf = async (vm: string) => (await json(`stat ${vm}`)).status as string;
  const listed = async (vm: string) =>
    ((await json(`ls ${vm}`)).vms as { status: string }[]).map((v) => v.status);
  /** Polls (bounded) until `probe` holds; fails with what it saw last. */
  const eventually = async <T>(probe: () => Promise<T>, wanted: (v: T) => boolean, ms: number) => {
    const end = Date.now() + ms;
    let seen = await probe();
    while (!wanted(seen) && Date.now() < end) {
      await sleep(250);
      seen = await probe();
    }
    assert.ok(wanted(seen), `still ${JSON.stringify(seen)}`);
    return seen;
  };
  const proxied = (vm: string) =>
    curl(`http://${vm}.localhost:${new URL(service!.endpoints.http).port}/`);

  before(async () => {
    dir = await createTempDir('vm-life');
    await mkdir(dir.join('data'));
    key = await generateKey(dir.path, 'ed25519', { name: 'owner' });
    await start();
    assert.equal(service!.runtime.kind, 'bwrap');
    const pub = parsePublicKey(key.publicKeyLine);
    service!.store.createAccount('owner@example.com', [
      {
        fingerprint: pub.fingerprint,
        name: 'default',
        publicKey: pub.toOpenSsh(),
        keyType: pub.type,
      },
    ]);
    token = await mintWithShellRecipe(
      key,
      `{"exp":${FAR},"cmds":${JSON.stringify(CMDS)}}`,
      'v0@localhost',
    );
  });
  after(async () => {
    await service?.close();
    await dir.remove();
  });

  test('a server started from /etc/rc.local answers through the proxy after a server restart and after restart <vm>', async () => {
    await ok('new --name boots');
    await ok('share set-public boots');
    const rcLocal = [
      '#!/bin/sh',
      'mkdir -p /srv/site && hostname > /srv/site/index.html',
      'echo "rc.local ran"',
      'exec python3 -m http.server 8000 -b 127.0.0.1 -d /srv/site',
    ].join('\n');
    await ok(
      `ssh boots "printf '%s\\n' '${rcLocal.replaceAll('\n', "' '")}' > /etc/rc.local && chmod +x /etc/rc.local"`,
    );
    // Not running yet: nothing listens until the next boot.
    assert.equal((await proxied('boots')).status, 502);

    await restartServer();
    const answer = await eventually(
      () => proxied('boots'),
      (r) => r.status === 200,
      30_000,
    );
    assert.equal(answer.body, 'boots\n');
    assert.equal(await ok('ssh boots cat /var/log/rc.local.log | head -n 1'), 'rc.local ran\n');

    assert.deepEqual(JSON.parse(await ok('restart boots')), {
      vm_name: 'boots',
      status: 'restarted',
    });
    const again = await eventually(
      () => proxied('boots'),
      (r) => r.status === 200,
      30_000,
    );
    assert.equal(again.body, 'boots\n');
    assert.equal(await statusOf('boots'), 'running');
  });

  test('ls and stat say stopped for a VM whose init is gone, and for one whose boot failed', async () => {
    await ok('new --name brittle');
    const marker = uniqueMarker();
    await ok(`ssh brittle "setsid sleep ${marker} > /dev/null 2>&1 &"`);
    const sleeper = await hostSleeper(marker);
    const status = await readFile(`/proc/${sleeper}/status`, 'utf8');
    const init = Number(/^PPid:\s+(\d+)$/m.exec(status)![1]);
    process.kill(init, 'SIGKILL');
    assert.deepEqual(
      await eventually(
        () => listed('brittle'),
        (s) => s[0] === 'stopped',
        10_000,
      ),
      ['stopped'],
    );
    assert.equal(await statusOf('brittle'), 'stopped');
    // Used again, it boots again.
    assert.equal(await ok('ssh brittle echo back'), 'back\n');
    assert.deepEqual(await listed('brittle'), ['running']);

    // Its disk image broken while the server is away: the boot at start fails.
    const id = service!.store.getVmByName('brittle')!.id;
    await service!.close();
    service = undefined;
    const image = await open(dir.join('data', 'vms', String(id), 'disk.img'), 'r+');
    await image.write(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
    await image.close();
    await start();
    await eventually(
      async () => logs.some((l) => l.includes('vm "brittle" did not boot at start, it is stopped')),
      (seen) => seen,
      30_000,
    );
    assert.deepEqual(await listed('brittle'), ['stopped']);
    const stat = await json('stat brittle');
    assert.deepEqual([stat.status, stat.booted_at], ['stopped', null]);
    await ok('rm brittle');
  });

  test('a 40 s setup script: new answers before the 30 s deadline with creating, stat later says running, the log holds the output', async () => {
    const started = Date.now();
    const made = await json("new --name slowly --setup-script 'echo begun; sleep 40; echo ended'");
    // The server waits 25 s by design; the rest is slack for a loaded machine.
    assert.ok(Date.now() - started < 29_000, `new took ${Date.now() - started} ms`);
    assert.equal(made.status, 'creating');
    assert.deepEqual((await json('stat slowly')).setup, { status: 'running', last_line: null });
    await eventually(
      () => statusOf('slowly'),
      (s) => s !== 'creating',
      60_000,
    );
    const stat = await json('stat slowly');
    assert.deepEqual([stat.status, stat.setup], ['running', { status: 'done', last_line: null }]);
    assert.equal(await ok('ssh slowly cat /var/log/exectl-setup.log'), 'begun\nended\n');
  });

  test('a failing setup script: 422 with its last line, the VM failed with it in stat', async () => {
    const failed = await exec(
      "new --name flawed --setup-script 'echo fetching; echo E: no such package >&2; exit 100'",
    );
    assert.deepEqual(
      [failed.status, JSON.parse(failed.text)],
      [422, { error: 'setup script of vm "flawed" failed: E: no such package' }],
    );
    const stat = await json('stat flawed');
    assert.deepEqual(
      [stat.status, stat.setup],
      ['failed', { status: 'failed', last_line: 'E: no such package' }],
    );
    assert.deepEqual(await listed('flawed'), ['failed']);
    // It is kept for its owner to look into.
    assert.equal(
      await ok('ssh flawed cat /var/log/exectl-setup.log'),
      'fetching\nE: no such package\n',
    );
  });

  test('cp: the copy has the source’s files under its own ids; the two disks are apart', async () => {
    await ok('new --name origin');
    await ok(
      'ssh origin "echo v1 > site; touch owned; chown 1000:1000 owned; setsid sleep 1000000 > /dev/null 2>&1 &"',
    );
    const made = await json('cp origin replica');
    assert.deepEqual([made.vm_name, made.status], ['replica', 'running']);
    assert.equal(await ok('ssh replica cat site; stat -c %u:%g owned'), 'v1\n1000:1000\n');
    await ok('ssh replica "echo v2 > site; echo mine > only-here"');
    assert.equal(
      // Its background process went on through the copy.
      await ok(
        `ssh origin "cat site; test -e only-here || echo absent; pgrep -cxf 'sleep 1000000'"`,
      ),
      'v1\nabsent\n1\n',
    );

    // On the host: the same owner inside, each in its own VM's range.
    const hostOwner = async (vm: string) => {
      const marker = uniqueMarker();
      await ok(`ssh ${vm} "setsid sleep ${marker} > /dev/null 2>&1 &"`);
      const pid = await hostSleeper(marker);
      const [root, owned] = await Promise.all(
        ['/root', '/root/owned'].map((p) => stat(`/proc/${pid}/root${p}`)),
      );
      return { base: root!.uid, uid: owned!.uid, gid: owned!.gid };
    };
    const [from, to] = [await hostOwner('origin'), await hostOwner('replica')];
    assert.notEqual(from.base, to.base);
    assert.deepEqual([from.uid - from.base, from.gid - from.base], [1000, 1000]);
    assert.deepEqual([to.uid - to.base, to.gid - to.base], [1000, 1000]);

    for (const [line, message] of [
      ['cp ghost', 'vm "ghost" not found'],
      ['cp origin replica', 'vm name "replica" is not available: choose another'],
    ] as const) {
      assert.deepEqual(await exec(line), {
        status: 422,
        text: `${JSON.stringify({ error: message })}\n`,
      });
    }
  });
});

// What a bwrap VM can and cannot see of the host (SPEC §4). Run as root here on purpose: the
// VM's root must still be nobody on the host.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { VmSpec } from '../../../src/service/vm/index.js';
import {
  allCapabilities,
  fileOnHost,
  openVmFixture,
  uniqueMarker,
  type VmFixture,
} from './fixture.js';
import { runScriptAs } from '../../helpers/script.js';

// Searches everything the VM can see except the host's read-only system folders and /proc.
const findEverywhere = (name: string) =>
  `find / -path /proc -prune -o -path /usr -prune -o -path /etc -prune -o -name '${name}' -print`;

describe('bwrap runtime: isolation', () => {
  let fx: VmFixture;
  let vm: VmSpec;
  let sibling: VmSpec;
  let hostTmpFile: string;
  let server: Server;

  before(async () => {
    fx = await openVmFixture('bwrap');
    vm = await fx.create('isolated');
    sibling = await fx.create('sibling');
    hostTmpFile = join(tmpdir(), `exectl-host-secret-${uniqueMarker()}`);
    await writeFile(hostTmpFile, 'host secret\n');
    server = createServer((_, res) => res.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await rm(hostTmpFile, { force: true });
    await new Promise((resolve) => server.close(resolve));
    await fx.close();
  });

  test('the host’s /tmp, another VM’s disk and the data folder are invisible', async () => {
    const marker = `exectl-marker-${uniqueMarker()}`;
    await fx.run(sibling, `echo theirs > ${marker}`);
    await mkdir(fx.dataDir, { recursive: true });
    await writeFile(join(fx.dataDir, marker), 'data\n');
    await writeFile(join(tmpdir(), marker), 'host tmp\n');
    try {
      const ran = await fx.run(
        vm,
        `${findEverywhere(marker)}; cat ${hostTmpFile} ${sibling.diskDir}/${marker}; ` +
          'ls /var/lib/exectl; ls -A /home | wc -l',
      );
      const lines = ran.output.trim().split('\n');
      // The VM's /home and /var are its own: none of the host's users, nor the host's
      // /var/lib/exectl (id ranges, base systems).
      assert.deepEqual(lines, [
        `cat: ${hostTmpFile}: No such file or directory`,
        `cat: ${sibling.diskDir}/${marker}: No such file or directory`,
        `ls: cannot access '/var/lib/exectl': No such file or directory`,
        '0',
      ]);
    } finally {
      await rm(join(tmpdir(), marker), { force: true });
    }
  });

  test('no host path of its disk is visible inside: its root is an overlay of a loop device', async () => {
    const mountinfo = (await fx.run(vm, 'cat /proc/self/mountinfo')).output;
    assert.ok(!mountinfo.includes(fx.dataDir), mountinfo);
    assert.ok(!mountinfo.includes(fx.dir.path), mountinfo);
    const mountOf = (path: string) => mountinfo.split('\n').find((l) => l.split(' ')[4] === path);
    assert.match(mountOf('/') ?? '', / \/ \/ [^-]+ - overlay exectl-root /);
    assert.match(mountOf('/usr') ?? '', / \/ \/usr [^-]+ - overlay exectl-usr /);
    assert.equal(mountOf('/root'), undefined, 'the home is part of the root file system');
  });

  test('the VM’s /etc/shadow is its own (every password locked); its writes never reach the host', async () => {
    const probe = `exectl-probe-${uniqueMarker()}`;
    const ran = await fx.run(
      vm,
      `cut -d: -f2 /etc/shadow | sort -u; stat -c '%U:%G %a' /etc/shadow; ` +
        `touch /usr/${probe} /etc/${probe} /${probe} && echo written; ls /etc/ssl/private 2>&1`,
    );
    assert.equal(
      ran.output,
      [
        '*',
        'root:shadow 640',
        'written',
        "ls: cannot access '/etc/ssl/private': No such file or directory",
        '',
      ].join('\n'),
    );
    // The host's folders are the VM's read-only lower layer: unchanged.
    for (const path of [`/usr/${probe}`, `/etc/${probe}`, `/${probe}`]) {
      assert.equal(existsSync(path), false, path);
    }
    // And what the VM wrote stays the VM's: its sibling sees the host's system as it is.
    assert.equal((await fx.run(sibling, `ls /usr/${probe} 2>/dev/null; echo $?`)).output, '2\n');
  });

  test('inside it is root with every capability of its own user namespace, and no host group', async () => {
    const ran = await fx.run(vm, 'id -u; grep -E "^(CapEff|CapBnd|Groups):" /proc/self/status');
    const all = await allCapabilities();
    assert.equal(ran.output, `0\nGroups:\t \nCapEff:\t${all}\nCapBnd:\t${all}\n`);
  });

  test('those capabilities reach nothing of the host: no remount, no host device, no sysctl', async () => {
    const ran = await fx.run(
      vm,
      [
        'mount -o remount,rw /usr 2>/dev/null; echo remount $?',
        'mount -t ext4 /dev/vda /mnt 2>/dev/null; echo mount $?',
        '(echo x > /proc/sys/kernel/hostname) 2>/dev/null; echo sysctl $?',
        'ls /dev | tr "\\n" " "',
      ].join('; '),
    );
    assert.equal(
      ran.output,
      'remount 32\nmount 32\nsysctl 2\ncore fd full null ptmx pts random shm stderr stdin stdout tty urandom zero ',
    );
  });

  test('a server in the shadow group does not pass that group on to its VMs', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('needs root to start a server with a group');
    // A whole server process (the runtime) started with supplementary group 42 (shadow).
    const script = `
      import { runtimeFor } from ${JSON.stringify(resolve('test/integration/vm/fixture.ts'))};
      const runtime = await runtimeFor('bwrap');
      const vm = { name: 'grouped', diskDir: ${JSON.stringify(fx.dir.join('grouped'))}, env: {} };
      await runtime.create(vm);
      await runtime.exec(vm, 'grep Groups /proc/self/status', {
        onOutput: (chunk) => process.stdout.write(chunk),
      });
      await runtime.remove(vm);
      await runtime.shutdown();`;
    const stdout = await runScriptAs(['--groups=42'], script);
    assert.equal(stdout, 'Groups:\t \n');
  });

  test('ids 0–65535 map to a private host range; its files belong to that range on the host', async () => {
    await fx.run(vm, 'echo mine > owned.txt; echo theirs > user.txt; chown 1000:1000 user.txt');
    const root = await fileOnHost(fx, vm, 'owned.txt');
    const user = await fileOnHost(fx, vm, 'user.txt');
    await fx.run(sibling, 'echo sibling > owned.txt');
    const other = await fileOnHost(fx, sibling, 'owned.txt');
    const base = (map: string | null) => Number(map?.trim().split(/\s+/)[1]);
    assert.match(root.idMap ?? '', /^\s+0\s+\d+\s+65536\n$/);
    assert.deepEqual([root.uid, root.gid], [base(root.idMap), base(root.idMap)]);
    assert.deepEqual([user.uid, user.gid], [base(root.idMap) + 1000, base(root.idMap) + 1000]);
    // Another VM has a range of its own, with no id in common, and no real user is in either.
    const [a, b] = [base(root.idMap), base(other.idMap)].sort((x, y) => x - y);
    assert.ok(a! + 65536 <= b!, `${a} and ${b} overlap`);
    const passwd = await readFile('/etc/passwd', 'utf8');
    for (const line of passwd.trim().split('\n')) {
      const id = Number(line.split(':')[2]);
      assert.ok(id < a! || id >= b! + 65536, `host user ${id} is inside a VM range`);
    }
  });

  test('the hostname is the VM name, and a rename shows at the next command', async () => {
    assert.equal((await fx.run(vm, 'hostname')).output, 'isolated\n');
    const marker = uniqueMarker();
    await fx.run(vm, `setsid sleep ${marker} > /dev/null 2>&1 &`);
    const renamed = { ...vm, name: 'renamed' };
    assert.equal(
      (await fx.run(renamed, 'hostname; ps -eo args | grep -c "^sleep"')).output,
      'renamed\n2\n',
    );
    assert.equal((await fx.run(vm, 'hostname')).output, 'isolated\n');
  });

  test('its own pid namespace: only the VM’s processes, pid 1 its init', async () => {
    const ran = await fx.run(sibling, 'ps -eo pid=,args=');
    const lines = ran.output
      .trim()
      .split('\n')
      .map((l) => l.trim());
    assert.match(lines[0]!, /^1 \/bin\/sh -c echo ready; /);
    assert.deepEqual(
      lines.slice(1).map((l) => l.replace(/^\d+ /, '')),
      ['sleep 86400', '/bin/sh -c ps -eo pid=,args=', 'ps -eo pid=,args='],
    );
  });

  test('kill -9 -1 inside ends the VM’s processes but not the VM', async () => {
    const ran = await fx.run(vm, 'kill -9 -1; echo survived');
    assert.equal(ran.output, 'survived\n');
    assert.equal((await fx.run(vm, 'echo alive')).output, 'alive\n');
  });

  test('pid 1 reaps orphaned background processes: no zombie piles up', async () => {
    await fx.run(vm, 'for i in 1 2 3 4 5; do setsid sh -c "exit 0" & done');
    // Reaping follows the orphans' exit asynchronously: poll for up to 5 s; broken reaping
    // never gets there.
    const end = Date.now() + 5000;
    let zombies = '';
    do {
      zombies = (await fx.run(vm, 'ps -eo stat=,args= | grep "^Z" || true')).output;
    } while (zombies !== '' && Date.now() < end);
    assert.equal(zombies, '');
  });

  test('its own /tmp, shared by its processes, gone after a restart', async () => {
    await fx.run(vm, 'echo scratch > /tmp/note');
    assert.equal((await fx.run(vm, 'cat /tmp/note; stat -c %a /tmp')).output, 'scratch\n1777\n');
    assert.equal(
      (await fx.run(sibling, 'cat /tmp/note 2>&1')).output,
      'cat: /tmp/note: No such file or directory\n',
    );
    await fx.runtime.restart(vm);
    assert.equal((await fx.run(vm, 'ls -A /tmp')).output, '');
  });

  test('its own network: the host’s loopback services are out of reach, its own loopback is free', async () => {
    const { port } = server.address() as AddressInfo;
    const ran = await fx.run(
      vm,
      `curl -s -m 5 http://127.0.0.1:${port}/; echo loopback $?; curl -s -m 5 http://10.0.2.2:${port}/; echo gateway $?`,
    );
    // 7: could not connect. The host's server is running (it answers the host itself).
    assert.equal(ran.output, 'loopback 7\ngateway 7\n');
  });
});

// A machine VM's root file system is its own (SPEC §4): copy-on-write over the host's system,
// where root inside installs packages owned by any of its ids, and they survive a restart of
// the VM and of the server. As root, like CI (machine VMs need it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { VmSpec } from '../../../src/service/vm/index.js';
import { fileOnHost, openVmFixture, uniqueMarker, type VmFixture } from './fixture.js';

// A package made inside the VM with dpkg-deb: one file of root's, one of uid/gid 1000's.
const BUILD_PACKAGE = (name: string) =>
  [
    `mkdir -p pkg/DEBIAN pkg/opt/${name} pkg/home/dev`,
    `printf 'Package: ${name}\\nVersion: 1.0\\nArchitecture: all\\nMaintainer: t <t@example.com>\\nDescription: test\\n' > pkg/DEBIAN/control`,
    `echo by-root > pkg/opt/${name}/root.txt`,
    `echo by-dev > pkg/home/dev/${name}.txt`,
    'chown -R 1000:1000 pkg/home/dev',
    `dpkg-deb --build pkg ${name}.deb > /dev/null`,
  ].join(' && ');

describe('a machine VM’s own root file system', () => {
  let fx: VmFixture;
  let vm: VmSpec;

  before(async () => {
    fx = await openVmFixture('bwrap');
    vm = await fx.create('rooted');
  });
  after(() => fx.close());

  test('dpkg -i installs files owned by root and by uid 1000; they survive a server restart', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('machine VMs need the server to run as root');
    const name = `exectl-probe-${uniqueMarker().replace('.', '-')}`;
    const installed = await fx.run(vm, `${BUILD_PACKAGE(name)} && dpkg -i ${name}.deb > /dev/null`);
    assert.equal(installed.exitCode, 0, installed.output);
    const owners = `stat -c '%u:%g %n' /opt/${name}/root.txt /home/dev/${name}.txt; dpkg-query -W -f '\${Status}\\n' ${name}`;
    const expected = [
      `0:0 /opt/${name}/root.txt`,
      `1000:1000 /home/dev/${name}.txt`,
      'install ok installed',
      '',
    ].join('\n');
    assert.equal((await fx.run(vm, owners)).output, expected);
    // On the host, those ids are the VM's own range; the host's /opt and /home are untouched.
    const byDev = await fileOnHost(fx, vm, `../home/dev/${name}.txt`);
    const base = Number(byDev.idMap?.trim().split(/\s+/)[1]);
    assert.deepEqual([byDev.text, byDev.uid, byDev.gid], ['by-dev\n', base + 1000, base + 1000]);
    assert.equal(existsSync(`/opt/${name}`), false);
    await fx.runtime.restart(vm);
    assert.equal((await fx.run(vm, owners)).output, expected);
    await fx.restartServer();
    assert.equal((await fx.run(vm, owners)).output, expected);
  });

  test('the exectl client is on PATH, read-only, and is this very package', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('machine VMs need the server to run as root');
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    const ran = await fx.run(
      vm,
      'command -v exectl; exectl --version; touch /opt/exectl/package/bin/x 2>&1 | sed "s/.*: //"',
    );
    assert.equal(ran.output, `/opt/exectl/bin/exectl\n${version}\nRead-only file system\n`);
  });

  test('apt-get update && apt-get install work through the VM’s own network', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('machine VMs need the server to run as root');
    const mirror = await hostMirror();
    if (!(await answers(mirror))) return t.skip(`the Debian mirror ${mirror} does not answer`);
    const hostHad = existsSync('/usr/bin/hello');
    const ran = await fx.run(
      vm,
      'apt-get update -qq > /dev/null 2>&1 && apt-get install -y -qq hello > /dev/null 2>&1; hello',
      { signal: AbortSignal.timeout(240_000) },
    );
    assert.equal(ran.output, 'Hello, world!\n');
    // The host has not got it: it went into the VM's own /usr.
    assert.equal(existsSync('/usr/bin/hello'), hostHad);
  });
});

// The mirror the host's apt uses (the VM's apt has the same sources).
async function hostMirror(): Promise<string> {
  const sources = await readFile('/etc/apt/sources.list.d/debian.sources', 'utf8').catch(() => '');
  return /^URIs:\s*(\S+)/m.exec(sources)?.[1] ?? 'http://deb.debian.org/debian';
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/`, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    return res.status < 500;
  } catch {
    return false;
  }
}

// The wall around a machine VM's network (SPEC §4 "its own network"), as root: no host service
// answers a VM at any of the host's addresses, nor does another VM, while the outside world
// does. A host service bound to every address (`::`, dual-stack) is probed from inside a VM at
// each address os.networkInterfaces() lists and at the slirp gateway; each probe must fail
// with curl's "could not connect" (7) at once: the host's rule refuses, it does not time out.
// A UDP service on every address gets the same probes as datagrams.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VmSpec } from '../../../src/service/vm/index.js';
import { networkHelperId, RANGE_RECORD } from '../../../src/service/vm/id-ranges.js';
import { loadNetworkWall } from '../../../src/service/vm/network/host-wall.js';
import { openVmFixture, type VmFixture } from './fixture.js';

// Every address of the host but IPv6 link-local ones, which exist only on their own link (no
// VM shares one with the host) and need a zone to be named at all.
const hostAddresses = (): string[] =>
  Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !(a.family === 'IPv6' && /^fe80:/i.test(a.address)))
    .map((a) => (a!.family === 'IPv6' ? `[${a!.address}]` : a!.address));

// A shell line for the VM: one line `<address> <curl's exit code>` per address, after whatever
// answered (an answer prints its body first: the test then fails showing it).
const probes = (addresses: readonly string[], port: number): string =>
  addresses.map((a) => `curl -s -m 10 http://${a}:${port}/; echo "${a} $?"`).join('; ');
const refusedEverywhere = (addresses: readonly string[]): string =>
  addresses.map((a) => `${a} 7\n`).join('');

describe('machine VMs: no host address and no other VM answers a VM (as root)', () => {
  let fx: VmFixture;
  let alpha: VmSpec;
  let beta: VmSpec;
  let host: Server;
  let port: number;
  // A UDP service on every address, answering each datagram.
  let udp: UdpSocket;

  before(async () => {
    fx = await openVmFixture('bwrap');
    alpha = await fx.create('alpha');
    beta = await fx.create('beta');
    host = createServer((_, res) => res.end('host secret\n'));
    await new Promise<void>((resolve) => host.listen(0, '::', resolve));
    port = (host.address() as AddressInfo).port;
    udp = createSocket({ type: 'udp6', ipv6Only: false });
    udp.on('message', (_, from) => udp.send('host secret\n', from.port, from.address));
    await new Promise<void>((resolve) => udp.bind(port, '::', resolve));
  });
  after(async () => {
    udp.close();
    await new Promise((resolve) => host.close(resolve));
    await fx.close();
  });

  test('a host service on every address answers the host itself', async () => {
    for (const address of hostAddresses()) {
      const res = await fetch(`http://${address}:${port}/`);
      assert.equal(await res.text(), 'host secret\n', address);
    }
  });

  test('a host service on 0.0.0.0 and :: answers no VM at any host address, IPv6 included', async () => {
    const addresses = hostAddresses();
    assert.ok(
      addresses.some((a) => !a.startsWith('127.') && a !== '[::1]'),
      'a non-loopback one',
    );
    const ran = await fx.run(alpha, probes(addresses, port));
    assert.equal(ran.output, refusedEverywhere(addresses));
  });

  test('a host UDP service on every address answers no VM datagram either', async () => {
    const addresses = hostAddresses().map((a) => a.replace(/^\[|\]$/g, ''));
    // One datagram to each address on a connected socket, then its answer awaited for 5 s at
    // most: an answer comes in milliseconds when there is a path; none, or a refusal, is right.
    const script = [
      'import socket, sys',
      'for a in sys.argv[2:]:',
      '  s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM)',
      '  s.settimeout(5)',
      '  try:',
      '    s.connect((a, int(sys.argv[1]))); s.send(b"x"); print(a, s.recv(64).decode().strip())',
      '  except socket.timeout: print(a, "silent")',
      '  except OSError: print(a, "refused")',
    ].join('\n');
    const ran = await fx.run(alpha, `python3 -c '${script}' ${port} ${addresses.join(' ')}`);
    const lines = ran.output.trim().split('\n');
    assert.deepEqual(
      lines.map((line) => line.split(' ')[0]),
      addresses,
    );
    for (const line of lines) assert.match(line, / (silent|refused)$/);
  });

  test('nor at the slirp gateway 10.0.2.2 (the host’s loopback once)', async () => {
    const ran = await fx.run(alpha, probes(['10.0.2.2'], port));
    assert.equal(ran.output, refusedEverywhere(['10.0.2.2']));
  });

  test('another VM’s server answers at none of the addresses a VM can name', async () => {
    // Port 8000 inside beta (free in every VM); polled there until it answers (30 s at most).
    const started = await fx.run(
      beta,
      'mkdir -p site && echo beta > site/index.html && (setsid python3 -m http.server 8000 -b 0.0.0.0 -d site > /dev/null 2>&1 &) && for i in $(seq 1 300); do curl -s -o /dev/null http://127.0.0.1:8000/ && break; sleep 0.1; done; curl -s http://10.0.2.100:8000/',
    );
    assert.equal(started.output, 'beta\n');
    const addresses = ['10.0.2.100', '10.0.2.2', ...hostAddresses()];
    const ran = await fx.run(alpha, probes(addresses, 8000));
    assert.equal(ran.output, refusedEverywhere(addresses));
  });

  test('outbound NAT still works: the Debian mirror the host uses answers, by name', async () => {
    const sources = await readFile('/etc/apt/sources.list.d/debian.sources', 'utf8').catch(
      () => '',
    );
    const mirror = /^URIs:\s*(\S+)/m.exec(sources)?.[1] ?? 'http://deb.debian.org/debian';
    const ran = await fx.run(alpha, `curl -s -o /dev/null -m 20 -w '%{http_code}' ${mirror}/`);
    assert.match(ran.output, /^[23]\d\d$/);
  });

  test('slirp4netns runs as the VM’s own network helper id, never host root', async () => {
    const base = Number((await readFile(join(alpha.diskDir, RANGE_RECORD), 'utf8')).trim());
    const helpers = await slirpsAs(networkHelperId(base));
    assert.equal(helpers.length, 1, 'one slirp4netns of alpha’s');
    // Real and saved ids its own; effective the VM's root (it joined the VM's user namespace,
    // where it keeps net_bind_service alone).
    assert.match(helpers[0]!, new RegExp(`^Uid:\\t${networkHelperId(base)}\\t${base}\\t`, 'm'));
    assert.match(helpers[0]!, /^CapEff:\t0000000000000400$/m);
    assert.match(helpers[0]!, /^CapBnd:\t0000000000000400$/m);
  });

  test('the host’s rule is loaded, and loading it again (another server’s start) keeps it', async () => {
    assert.equal(await loadNetworkWall(), undefined);
    const ran = await fx.run(alpha, probes(hostAddresses(), port));
    assert.equal(ran.output, refusedEverywhere(hostAddresses()));
  });
});

// The /proc/<pid>/status texts of the slirp4netns processes whose real id is `uid`.
async function slirpsAs(uid: number): Promise<string[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const statuses = await Promise.all(
    pids.map((pid) => readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')),
  );
  return statuses.filter(
    (s) => /^Name:\tslirp4netns$/m.test(s) && new RegExp(`^Uid:\\t${uid}\\t`, 'm').test(s),
  );
}

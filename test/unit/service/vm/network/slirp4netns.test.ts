// The slirp4netns backend's own rules: what the launcher starts (a tun node of its own where
// the host's is root's alone, as on a minimal Ubuntu 24.04 without udev's rule), and the reason
// a slirp4netns that ended is reported with (the child's words, not only `child failed(1)`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { SlirpLink, tunOpenToAll } from '../../../../../src/service/vm/network/slirp4netns.js';
import { scriptText } from '../../../../../src/service/vm/scripts/load.js';
import { createTempDir, type TempDir } from '../../../../helpers/tmp.js';

const TOOLS = { slirp4netns: '/x/slirp4netns', setpriv: '/x/setpriv', unshare: '/x/unshare' };

describe('what the launcher starts', () => {
  test('a host tun node open to all: setpriv runs slirp4netns at once', () => {
    const argv = new SlirpLink(TOOLS, 2 ** 28, true).launcher.argv;
    assert.equal(argv[0], '/x/setpriv');
    assert.ok(argv.includes('/x/slirp4netns'));
    assert.ok(!argv.includes('/x/unshare'));
  });

  test("a host tun node that is root's alone: slirp4netns runs where /dev/net/tun is its own", () => {
    const argv = new SlirpLink(TOOLS, 2 ** 28, false).launcher.argv;
    assert.deepEqual(argv.slice(0, 10), [
      '/x/unshare',
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      scriptText('private-tun.sh'),
      'private-tun',
      '/x/setpriv',
    ]);
    assert.ok(argv.includes('/x/slirp4netns'));
  });
});

describe('tunOpenToAll', () => {
  let dir: TempDir;
  before(async () => (dir = await createTempDir('tun-node')));
  after(() => dir.remove());

  const cases: Array<[string, () => string, boolean]> = [
    ['a character device every user may read and write (/dev/null)', () => '/dev/null', true],
    ['a regular file', () => makeFile(dir, 'file', 0o666), false],
    ['no node at all', () => join(dir.path, 'missing'), false],
  ];
  for (const [what, path, open] of cases) {
    test(`${what}: ${open}`, () => assert.equal(tunOpenToAll(path()), open));
  }
});

function makeFile(dir: TempDir, name: string, mode: number): string {
  const path = dir.join(name);
  writeFileSync(path, '', { mode });
  return path;
}

describe('a slirp4netns that ends before its network is up', () => {
  let dir: TempDir;
  let server: Server;
  before(async () => {
    dir = await createTempDir('slirp-pipes');
    server = createServer();
    server.listen(dir.join('s.sock'));
    await once(server, 'listening');
  });
  after(async () => {
    server.close();
    await dir.remove();
  });

  // A connected pair: the far end (what slirp4netns writes to) and the server's end.
  async function pair(): Promise<[Socket, Socket]> {
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const far = createConnection(dir.join('s.sock'));
    const [near] = await accepted;
    return [far, near];
  }

  // The words measured on the cgroup-v2 host: the child's reason, its warning, the parent's.
  const SAID =
    'open("/dev/net/tun"): Permission denied\n' +
    'WARNING: Support for seccomp is experimental\n' +
    'child failed(1)\n';

  for (const order of ['stderr first', 'the ready pipe first'] as const) {
    test(`is reported with its reason, its warnings left out (${order})`, async () => {
      const [readyFar, ready] = await pair();
      const [exitFar, exit] = await pair();
      const [errorsFar, errors] = await pair();
      const link = new SlirpLink(TOOLS, 2 ** 28, true);
      const up = link.attach(1, [ready, exit, errors]);
      errorsFar.write(SAID);
      if (order === 'stderr first') {
        errorsFar.end();
        readyFar.end();
      } else {
        readyFar.end();
        errorsFar.end();
      }
      await assert.rejects(up, {
        message:
          'the network of the VM did not start: ' +
          'open("/dev/net/tun"): Permission denied; child failed(1)',
      });
      link.stop();
      exitFar.destroy();
    });
  }
});

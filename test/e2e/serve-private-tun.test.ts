// Machine VMs on a host whose /dev/net/tun only root may open (0600: no udev rule, measured on
// the lent minimal Ubuntu 24.04, cgroup v2). slirp4netns opens it as the VM's network helper
// id, so it was refused, the VM's network never came up, and `--runtime auto` fell back to the
// process runtime. A real `exectl serve` (as root, machine VMs) runs here in a mount namespace
// of its own whose /dev/net/tun is such a node, the host's own left as it is.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { generateKey, type GeneratedKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt } from './harness.js';
import {
  bannerValue,
  curlExec,
  recipeToken,
  startServe,
  stopAll,
  type ServeProcess,
} from './serve-server.js';

const root = process.getuid?.() === 0;
// The server's mount namespace: its own /dev/net, with a tun node of root's alone.
const ROOT_ONLY_TUN = [
  'unshare',
  '--mount',
  '--propagation',
  'private',
  '--',
  'sh',
  '-c',
  'mount -t tmpfs -o mode=0755 tun-test /dev/net && mknod -m 0600 /dev/net/tun c 10 200 && exec "$@"',
  'sh',
];

describe("machine VMs where /dev/net/tun is root's alone (as root)", { skip: !root }, () => {
  let dir: TempDir;
  let key: GeneratedKey;
  let server: ServeProcess;
  let token: string;
  const ok = async (line: string) => {
    const answer = await curlExec(server.url, token, line);
    assert.equal(answer.status, 200, `${line}: ${answer.body}`);
    return answer.body;
  };

  before(async () => {
    assertBuilt();
    dir = await createTempDir('e2e-private-tun');
    const data = dir.join('data');
    await mkdir(data);
    key = await generateKey(dir.path, 'ed25519', { name: 'me' });
    server = await startServe(
      [
        '--data',
        data,
        '--listen',
        '127.0.0.1:0',
        '--ssh-listen',
        'off',
        '--reflection-listen',
        '127.0.0.1:0',
        '--runtime',
        'auto',
        '--owner',
        'me@example.com',
        '--authorized-key',
        key.pubPath,
      ],
      { home: dir.path, wrap: ROOT_ONLY_TUN },
    );
    token = await recipeToken(key, ['new', 'ssh', 'rm']);
  });
  after(async () => {
    await stopAll();
    await dir?.remove();
  });

  test('the server picks machine VMs, and a VM gets its network', async () => {
    assert.match(bannerValue(server.stderr(), 'Runtime'), /^bwrap\b/);
    await ok('new --name tun');
    // slirp4netns made and configured the VM's tap0, with the default route through it.
    const routes = await ok(`ssh tun 'cat /proc/net/route'`);
    assert.match(routes, /^tap0\s+00000000\s/m);
    await ok('rm tun');
  });
});

// Machine VMs on a host whose /dev/net/tun only root may open (0600: no udev rule, measured on
// the lent minimal Ubuntu 24.04, cgroup v2). slirp4netns opens it as the VM's network helper
// id, so it was refused, the VM's network never came up, and `--runtime auto` fell back to the
// process runtime. A real `exectl serve` (as root, machine VMs) runs here in a mount namespace
// of its own whose /dev/net/tun is such a node, the host's own left as it is.
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
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

  test('the server picks machine VMs, a VM gets its network, and rm ends its helper', async () => {
    assert.match(bannerValue(server.stderr(), 'Runtime'), /^bwrap\b/);
    await ok('new --name tun');
    // slirp4netns made and configured the VM's tap0, with the default route through it.
    const routes = await ok(`ssh tun 'cat /proc/net/route'`);
    assert.match(routes, /^tap0\s+00000000\s/m);
    // The VM's cgroup is named after the first host id of its range, which its helper runs as.
    const cgroup = /\/vm-([0-9a-f]+)$/m.exec(await ok(`ssh tun 'cat /proc/self/cgroup'`));
    assert.ok(cgroup !== null, 'the VM is in a cgroup of its own');
    const base = parseInt(cgroup[1]!, 16);
    const helpers = await slirpsAs(base);
    assert.equal(helpers.length, 1, `one slirp4netns as ${base}`);
    await ok('rm tun');
    for (let waited = 0; (await slirpsAs(base)).length > 0; waited += 50) {
      assert.ok(waited < 10_000, `slirp4netns ${helpers.join(' ')} still runs 10 s after rm`);
      await sleep(50);
    }
  });
});

// The running slirp4netns processes whose effective id is `id` (a VM's helper, once in its
// namespaces). Ended ones are left out: one ended with the range's last user (the runtime's
// probe at start) may wait a moment for init to reap it.
async function slirpsAs(id: number): Promise<number[]> {
  const found: number[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const read = (file: string) => readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => '');
    if ((await read('comm')) !== 'slirp4netns\n') continue;
    const status = await read('status');
    if (/^State:\s+[ZX]/m.test(status)) continue;
    if (Number(/^Uid:\s+\d+\s+(\d+)/m.exec(status)?.[1]) === id) found.push(Number(pid));
  }
  return found;
}

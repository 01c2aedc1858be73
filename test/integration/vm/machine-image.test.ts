// `new --image` through the real service, as root (SPEC §4a): an image built here (busybox,
// umoci) in a real registry on loopback (docker-registry), pulled with skopeo, unpacked with
// umoci into the image cache, booted as a machine VM's root file system.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createService, type RunningService } from '../../../src/service/index.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import { generateKey, mintWithShellRecipe, type GeneratedKey } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { curl, FAR } from '../proxy/fixture.js';
import { pushBusyboxImage, startRegistry, type TestRegistry } from './image-registry.js';

const CMDS = ['new', 'ssh', 'stat', 'ls', 'cp', 'restart', 'rm', 'share set-public'];

interface Answer {
  status: number;
  text: string;
}

describe('new --image boots an OCI image (as root)', () => {
  let dir: TempDir;
  let key: GeneratedKey;
  let token: string;
  let service: RunningService;
  let registry: TestRegistry;
  let locked: TestRegistry;

  const exec = async (line: string): Promise<Answer> => {
    const res = await fetch(`${service.endpoints.http}/exec`, {
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
  const failure = async (line: string) => {
    const answer = await exec(line);
    assert.equal(answer.status, 422, `${line}: ${answer.text}`);
    return (JSON.parse(answer.text) as { error: string }).error;
  };
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
    curl(`http://${vm}.localhost:${new URL(service.endpoints.http).port}/`);

  before(async () => {
    dir = await createTempDir('vm-image');
    await mkdir(dir.join('data'));
    registry = await startRegistry(dir.join('registry'));
    locked = await startRegistry(dir.join('locked'), { name: 'alice', password: 's3cret' });
    await pushBusyboxImage(dir.join('site'), registry.host, 'tests/site:1', {
      files: { 'www/index.html': 'hello from the image\n', 'etc/image-marker': 'busybox\n' },
      entrypoint: ['/bin/httpd', '-f', '-p', '8080'],
      cmd: ['-h', '/www'],
      env: ['GREETING=hi there', 'PATH=/bin:/usr/bin'],
      exposedPorts: ['8080/tcp'],
      workingDir: '/www',
    });
    await pushBusyboxImage(
      dir.join('private'),
      locked.host,
      'tests/private:1',
      { files: { 'etc/private-marker': 'yes\n' } },
      'alice:s3cret',
    );
    service = await createService({
      listen: { host: '127.0.0.1', port: 0 },
      sshListen: null,
      reflectionListen: { host: '127.0.0.1', port: 0 },
      dataDir: dir.join('data'),
      domain: 'localhost',
      tls: null,
      runtime: 'bwrap',
      rateLimit: null,
      log: () => {},
      commandDeadlineMs: 30_000,
      registries: { insecure: [registry.host, locked.host] },
    });
  });
  before(async () => {
    key = await generateKey(dir.path, 'ed25519', { name: 'owner' });
    const pub = parsePublicKey(key.publicKeyLine);
    service.store.createAccount('owner@example.com', [
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
    await registry?.stop();
    await locked?.stop();
    await dir.remove();
  });

  test("the VM's root is the image's: its files, its Env, its entrypoint on the exposed port, again after restart", async () => {
    const made = await json(`new --name site --image ${registry.host}/tests/site:1`);
    assert.equal(made.status, 'running');
    assert.equal(await ok('ssh site cat /etc/image-marker'), 'busybox\n');
    // Not the host's system: the host's /etc/debian_version is not there.
    assert.equal(await ok('ssh site "test -e /etc/debian_version || echo absent"'), 'absent\n');
    assert.equal(await ok('ssh site \'echo "$GREETING"\''), 'hi there\n');
    assert.equal(made.default_port, 8080);
    assert.equal(made.image, `${registry.host}/tests/site:1`);
    const stat = await json('stat site');
    assert.equal(stat.image, `${registry.host}/tests/site:1`);
    assert.match(stat.image_digest, /^sha256:[a-f0-9]{64}$/);
    const [listed] = (await json('ls site')).vms as { image: string }[];
    assert.equal(listed!.image, `${registry.host}/tests/site:1`);
    await ok('share set-public site');
    const served = await eventually(
      () => proxied('site'),
      (r) => r.status === 200,
      30_000,
    );
    assert.equal(served.body, 'hello from the image\n');
    await ok('restart site');
    const again = await eventually(
      () => proxied('site'),
      (r) => r.status === 200,
      30_000,
    );
    assert.equal(again.body, 'hello from the image\n');
  });

  test('--command none runs nothing; a custom command runs by /bin/sh -c in the working folder', async () => {
    await ok(`new --name quiet --image ${registry.host}/tests/site:1 --command none`);
    await ok('share set-public quiet');
    assert.equal((await proxied('quiet')).status, 502);
    await ok(
      `new --name custom --image ${registry.host}/tests/site:1 --command 'echo "ran in $(pwd) with $GREETING"; exec sleep 1000'`,
    );
    const log = await eventually(
      () => ok('ssh custom "cat /var/log/exectl-command.log 2>/dev/null"'),
      (text) => text.length > 0,
      30_000,
    );
    assert.equal(log, 'ran in /www with hi there\n');
    // Every VM of the one image shares its one unpacked copy in the cache.
    const cached = (await readdir(dir.join('data', 'images'))).filter((n) =>
      n.startsWith('sha256-'),
    );
    assert.equal(cached.length, 1);
    // What a VM writes lands in its own disk, never in the shared image.
    await ok('ssh quiet "echo changed > /etc/image-marker"');
    assert.equal(await ok('ssh custom cat /etc/image-marker'), 'busybox\n');
  });

  test('--registry-auth pulls from a registry with a password; a wrong one is a 422 and leaves nothing', async () => {
    const wrong = await failure(
      `new --name denied --image ${locked.host}/tests/private:1 --registry-auth alice:wrong`,
    );
    assert.match(
      wrong,
      new RegExp(`^could not pull image "${locked.host}/tests/private:1": .*unauthorized`),
    );
    assert.match((await exec('stat denied')).text, /not found/);
    await ok(
      `new --name private --image ${locked.host}/tests/private:1 --registry-auth alice:s3cret`,
    );
    assert.equal(await ok('ssh private cat /etc/private-marker'), 'yes\n');
  });

  test('an unknown image and a registry that is down are a 422 naming the reference, within 30 s', async () => {
    const unknown = await failure(`new --name nope --image ${registry.host}/tests/missing:1`);
    assert.match(
      unknown,
      new RegExp(`^could not pull image "${registry.host}/tests/missing:1": .*manifest unknown`),
    );
    const started = Date.now();
    const down = await failure('new --name down --image 127.0.0.1:1/tests/site:1');
    assert.match(
      down,
      /^could not pull image "127\.0\.0\.1:1\/tests\/site:1": .*connection refused/,
    );
    assert.ok(Date.now() - started < 30_000);
    for (const vm of ['nope', 'down']) assert.match((await exec(`stat ${vm}`)).text, /not found/);
    const bad = await failure('new --name bad --image "UPPER/case"');
    assert.match(bad, /^--image "UPPER\/case" is not an image reference/);
  });
});

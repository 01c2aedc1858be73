// The bwrap runtime when the server is not root: the VM's root is the server's own user, bwrap
// binds the disk directly and nsenter keeps the server's credentials. This suite runs as root,
// so it starts a whole runtime in a child process under another uid.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chown, mkdir, readFile, readlink } from 'node:fs/promises';
import { allCapabilities } from './fixture.js';
import { resolve } from 'node:path';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { asUser, runScriptAs } from '../../helpers/script.js';

// Any id with no other process: it needs no passwd entry.
const SERVER_UID = 47474;

let dir: TempDir;

before(async () => {
  dir = await createTempDir('vm-unpriv');
  await chown(dir.path, SERVER_UID, SERVER_UID);
  await mkdir(dir.join('run'), { mode: 0o711 });
  await chown(dir.join('run'), SERVER_UID, SERVER_UID);
});
after(() => dir.remove());

test('a non-root server runs isolated VMs as its own user', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('this suite already runs as a non-root user');
  const script = `
    import { stat } from 'node:fs/promises';
    import { createRuntime, detectRuntime } from ${JSON.stringify(resolve('src/service/vm/index.ts'))};
    const print = (chunk) => process.stdout.write(chunk);
    const detected = await detectRuntime('bwrap', { runDir: ${JSON.stringify(dir.join('run'))}, inbound: () => [] });
    console.log(JSON.stringify({ ...detected, mode: { kind: detected.mode.kind } }));
    const runtime = createRuntime('bwrap', detected.mode);
    const vm = { name: 'plain', diskDir: ${JSON.stringify(dir.join('data', 'vms', '1'))}, env: {} };
    await runtime.create(vm, { setupScript: 'echo made > made.txt' });
    await runtime.exec(vm, 'id -u; hostname; cat made.txt; grep -E "^Cap(Eff|Bnd):" /proc/self/status; exectl --version', { onOutput: print });
    console.log((await stat(vm.diskDir + '/made.txt')).uid);
    await runtime.exec(vm, 'mkdir /srv/site 2>/dev/null || echo no-srv; touch /usr/x 2>/dev/null || echo no-usr; chown 1 made.txt 2>/dev/null || echo no-chown; readlink /proc/self/ns/net', { onOutput: print });
    await runtime.exec(vm, 'setsid sleep 86401 > /dev/null 2>&1 &');
    await runtime.exec({ ...vm, name: 'renamed' }, 'hostname; ps -eo args= | grep -c "^sleep 86401"', { onOutput: print });
    console.log(JSON.stringify(await runtime.exec(vm, 'sleep 86402', { signal: AbortSignal.timeout(500) })));
    await runtime.restart(vm);
    await runtime.exec(vm, 'ps -eo args= | grep -c "^sleep 8640[12]"', { onOutput: print });
    await runtime.remove(vm);
    await runtime.shutdown();`;
  const stdout = await runScriptAs(asUser(SERVER_UID), script);
  const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
  assert.equal(
    stdout,
    [
      JSON.stringify({
        kind: 'bwrap',
        mode: { kind: 'user' },
        warnings: [
          "the server is not root, so VMs share the host network: a server in a VM on 0.0.0.0:8000 listens on the host's port 8000",
          'the server is not root, so system folders in VMs are read-only: no /srv, and apt-get cannot install',
          'the server is not root, so each VM has a single id: chown fails, and rsync -a exits 23 (use rsync -rlt)',
          'the server is not root, so VMs have no CPU, memory or process limits (run as root for machine VMs)',
        ],
      }),
      '0',
      'plain',
      'made',
      // Root of its own one-id user namespace: every capability there, none on the host.
      `CapEff:\t${await allCapabilities()}`,
      `CapBnd:\t${await allCapabilities()}`,
      // The client, read-only on PATH: this very package.
      version,
      String(SERVER_UID),
      // What the warnings name: system folders read-only, and no id to chown to.
      'no-srv',
      'no-usr',
      'no-chown',
      // The host's own network namespace: a VM's listener is the host's.
      await readlink('/proc/self/ns/net'),
      'renamed',
      '1',
      '{"exitCode":137,"signal":"SIGKILL","aborted":true}',
      '0',
      '',
    ].join('\n'),
  );
});

test('a server user without a name: the process runtime passes its uid as USER', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root to run as a uid without a name');
  const disk = dir.join('data', 'vms', '2');
  const script = `
    import { runtimeFor } from ${JSON.stringify(resolve('test/integration/vm/fixture.ts'))};
    const runtime = await runtimeFor('process', '');
    const vm = { name: 'plain', diskDir: ${JSON.stringify(disk)}, env: {} };
    await runtime.create(vm);
    await runtime.exec(vm, 'echo "$USER $HOME"; id -u', { onOutput: (c) => process.stdout.write(c) });
    await runtime.remove(vm);`;
  const stdout = await runScriptAs(asUser(SERVER_UID), script);
  assert.equal(stdout, `${SERVER_UID} ${disk}\n${SERVER_UID}\n`);
});

// Every VM an SSH destination by its own address (SPEC §6a "Host names route SSH"): as root,
// each VM is reached at a loopback address of its own on the SSH port, with any user name, by
// the stock OpenSSH client; `ls` names it as ssh_host and ssh_dest. Machine VMs (root server).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createService } from '../../../src/service/index.js';
import { testServiceConfig } from '../../helpers/config.js';
import { run, type GeneratedKey } from '../../helpers/keys.js';
import { startVmDest, type VmDestFixture } from './vm-dest-fixture.js';

let f: VmDestFixture;
let webAddress: string;
before(async () => {
  f = await startVmDest();
  assert.equal(f.svc.service.runtime.kind, 'bwrap');
  const made = await f.lobby('new --name web --json');
  assert.equal(made.code, 0, made.stderr);
  webAddress = (JSON.parse(made.stdout) as { ssh_host: string }).ssh_host;
});
after(() => f?.svc.stop());

/** `ssh -p <port> <user>@<address> command`, the stock client with the fixture's options. */
function sshAt(address: string, user: string, command: string, key?: GeneratedKey, port = f.port) {
  return run('ssh', [...f.common(key), '-p', String(port), '-l', user, address, command]);
}

test('vm address: new and ls give the VM its own address as ssh_host and a bare ssh_dest', async () => {
  assert.match(webAddress, /^127\.(7[7-9]|[89]\d|1[01]\d|12[0-7])\.\d{1,3}\.\d{1,3}$/);
  const listed = await f.lobby('ls web --json');
  const [vm] = (JSON.parse(listed.stdout) as { vms: Record<string, unknown>[] }).vms;
  assert.deepEqual(
    { dest: vm!.ssh_dest, host: vm!.ssh_host, port: vm!.ssh_port, user: vm!.ssh_user },
    { dest: webAddress, host: webAddress, port: f.port, user: 'root' },
  );
});

test('vm address: ssh root@<ssh_host> hostname is a session in the VM, as vm+web is', async () => {
  const byName = await f.ssh('vm+web', 'hostname; id -u');
  const r = await sshAt(webAddress, 'root', 'hostname; id -u');
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, byName.stdout);
  assert.equal(r.stdout, 'web\n0\n');
  assert.equal(r.code, 0);
});

test('vm address: any user name at the address is that VM, even vm+<another>', async () => {
  const made = await f.lobby('new --name other-vm --json');
  assert.equal(made.code, 0, made.stderr);
  for (const user of ['me', 'nobody', 'vm+other-vm', 'exectl']) {
    const r = await sshAt(webAddress, user, 'hostname');
    assert.equal(r.stdout, 'web\n', `${user}: ${r.stderr}`);
  }
  const other = (JSON.parse(made.stdout) as { ssh_host: string }).ssh_host;
  assert.notEqual(other, webAddress);
  assert.equal((await sshAt(other, 'root', 'hostname')).stdout, 'other-vm\n');
});

test('vm address: another account is refused with a line that names no VM; shared, it opens', async () => {
  const stranger = await f.svc.addAccount('stranger@example.com');
  const r = await sshAt(webAddress, 'root', 'true', stranger);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `no vm at ${webAddress}\n`);
  assert.equal(r.code, 1);
  const logged = f.svc.logs.find(
    (l) => l.includes(`cmd="vm@${webAddress}"`) && l.includes(' status=422'),
  );
  assert.match(
    logged ?? '',
    new RegExp(`vm="${webAddress.replaceAll('.', '\\.')}" kind=exec exit=- status=422`),
  );
  assert.equal((await f.lobby('share add web stranger@example.com')).code, 0);
  const opened = await sshAt(webAddress, 'root', 'hostname', stranger);
  assert.equal(opened.stdout, 'web\n', opened.stderr);
});

test('vm address: the lobby keeps its own address, and vm+<name> still works there', async () => {
  const lobby = await f.lobby('whoami --json');
  assert.equal(lobby.code, 0, lobby.stderr);
  assert.equal((await f.ssh('vm+web', 'hostname')).stdout, 'web\n');
});

test('vm address: scp, sftp and rsync -e ssh by the address with no user name trick', async () => {
  const put = await run(
    'bash',
    [
      '-c',
      `head -c 300000 /dev/urandom > "$T/blob" && scp -q -P ${f.port} ${f.common().join(' ')} "$T/blob" root@${webAddress}:/root/blob && ` +
        `rsync -a -e "ssh -p ${f.port} ${f.common().join(' ')}" root@${webAddress}:/root/blob "$T/back" && cmp "$T/blob" "$T/back" && ` +
        `echo "get /root/blob $T/by-sftp" | sftp -q -b - -P ${f.port} ${f.common().join(' ')} root@${webAddress} >/dev/null && ` +
        `cmp "$T/blob" "$T/by-sftp" && echo same`,
    ],
    { env: { ...process.env, T: f.svc.dir.path } },
  );
  assert.equal(put.stdout, 'same\n', put.stderr);
});

test('vm address: a rename keeps the address; restart keeps it; rm closes it', async () => {
  assert.equal((await f.lobby('rename other-vm moved')).code, 0);
  const listed = await f.lobby('ls moved --json');
  const moved = (JSON.parse(listed.stdout) as { vms: { ssh_host: string }[] }).vms[0]!.ssh_host;
  assert.equal((await sshAt(moved, 'root', 'hostname')).code, 0);
  assert.equal((await f.lobby('restart moved')).code, 0);
  const back = await sshAt(moved, 'root', 'echo up');
  assert.equal(back.stdout, 'up\n', back.stderr);
  assert.equal((await f.lobby('rm moved')).code, 0);
  const gone = await sshAt(moved, 'root', 'true');
  assert.equal(gone.code, 255);
  assert.match(gone.stderr, /Connection refused/);
});

test('vm address: a server started again on the same data serves the same address', async () => {
  await f.svc.service.close();
  const again = await createService(
    testServiceConfig({
      dataDir: f.svc.dir.join('data'),
      runtime: 'bwrap',
      sshListen: { host: '127.0.0.1', port: 0 },
    }),
  );
  try {
    const r = await sshAt(webAddress, 'root', 'hostname', undefined, again.endpoints.ssh!.port);
    assert.equal(r.stdout, 'web\n', r.stderr);
  } finally {
    await again.close();
  }
});

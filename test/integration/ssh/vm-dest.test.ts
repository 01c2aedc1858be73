// Every VM an SSH destination (SPEC §6a, issue 23): `ssh vm+web@host` with the stock OpenSSH
// client is a session inside the VM, as sshd gives one: stdin forwarded, stdout and stderr
// apart, the exit status, no 30 s limit, a pty on request. Machine VMs (the server is root).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { startVmMachines } from '../../../src/service/vm/index.js';
import { startSshHarness, type SshHarness } from './harness.js';

let h: SshHarness;
before(async () => {
  h = await startSshHarness({ registry: buildRegistry(), machines: startVmMachines });
  const made = await h.ssh('new --name web --json');
  assert.equal(made.code, 0, made.stderr);
});
after(() => h?.close());

const toVm = (name = 'web') => ['-l', `vm+${name}`];

/** Runs `ssh vm+web@host command` with `input` (bytes) on stdin; stdout kept as bytes. */
function sshBytes(
  command: string,
  input: Buffer,
  extra: string[] = [],
): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  const child = spawn('ssh', h.sshArgs(command, { extra: [...toVm(), ...extra] }), {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.on('error', () => {});
  child.stdin.end(input);
  return once(child, 'close').then(([code]) => ({
    code: code as number | null,
    stdout: Buffer.concat(out),
    stderr,
  }));
}

test('vm dest: stdin reaches the command (the trial: `cat > f` left a 0-byte file)', async () => {
  const r = await h.ssh(`cat > /root/app.py; wc -c < /root/app.py`, {
    extra: toVm(),
    input: 'print("hello")\n',
  });
  assert.equal(r.stderr, '');
  assert.equal(r.stdout.trim(), '15');
  assert.equal(r.code, 0);
});

test('vm dest: 5 MB of stdin round-trips byte-identical', async () => {
  const data = randomBytes(5 * 1024 * 1024);
  const r = await sshBytes('cat', data);
  assert.equal(r.code, 0, r.stderr);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  assert.equal(r.stdout.length, data.length);
  assert.equal(sha(r.stdout), sha(data));
});

test('vm dest: stdout and stderr arrive apart; the exit status is the command status', async () => {
  const r = await h.ssh(`echo out; echo err >&2; exit 7`, { extra: toVm() });
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.code, 7);
});

test('vm dest: a command killed by a signal is reported as that signal', async () => {
  const r = await h.ssh(`kill -TERM $$`, { extra: toVm() });
  // OpenSSH exits 255 on an exit-signal; it says which signal when not quiet.
  assert.equal(r.code, 255);
});

test('vm dest: the session runs as root in the VM, the same machine as `ssh web` on /exec', async () => {
  assert.equal((await h.ssh(`ssh web 'echo same > /tmp/seen'`)).code, 0);
  const r = await h.ssh(`id -u; cat /tmp/seen`, { extra: toVm() });
  assert.equal(r.stdout, '0\nsame\n');
  assert.equal(r.code, 0);
});

test('vm dest: ssh -tt has a pty, with the TERM asked for', async () => {
  const r = await h.ssh(`tty; echo $TERM`, { extra: [...toVm(), '-tt', '-o', 'SetEnv=TERM=vt220'] });
  assert.match(r.stdout, /^\/dev\/pts\/\d+\r\n/);
  assert.equal(r.code, 0);
});

test('vm dest: env passes LANG and LC_*, not other names', async () => {
  const r = await h.ssh(`echo "$LANG|$LC_TIME|$EVIL"`, {
    extra: [...toVm(), '-o', 'SetEnv=LANG=C.UTF-8 LC_TIME=C EVIL=1'],
  });
  assert.equal(r.stdout, 'C.UTF-8|C|\n');
  assert.equal(r.code, 0);
});

test('vm dest: an unknown VM is refused in one line with exit status 1', async () => {
  const r = await h.ssh('true', { extra: toVm('nope') });
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'vm "nope" not found\n');
  assert.equal(r.code, 1);
});

test('vm dest: another account gets the unknown-VM refusal for a VM it may not use', async () => {
  const other = await h.newKey('other');
  h.store.createAccount('other@example.com', [
    {
      name: 'default',
      fingerprint: (await import('../../../src/token/keys.js')).parsePublicKey(other.publicKeyLine)
        .fingerprint,
      publicKey: other.publicKeyLine,
      keyType: 'ssh-ed25519',
    },
  ]);
  const r = await h.ssh('true', { key: other, extra: toVm() });
  assert.equal(r.stderr, 'vm "web" not found\n');
  assert.equal(r.code, 1);
  // Shared with that account, the VM opens.
  const shared = await h.ssh('share add web other@example.com');
  assert.equal(shared.code, 0, shared.stderr);
  const opened = await h.ssh('cat /tmp/seen', { key: other, extra: toVm() });
  assert.equal(opened.stdout, 'same\n', opened.stderr);
  assert.equal(opened.code, 0);
});

test('vm dest: a session is logged like a request: key, VM, kind, exit status', async () => {
  const from = h.logs.length;
  assert.equal((await h.ssh('exit 3', { extra: toVm() })).code, 3);
  const line = h.logs.slice(from).find((l) => l.includes('kind=exec'));
  assert.ok(line, h.logs.slice(from).join('\n'));
  assert.match(line, /via=ssh key=SHA256:\S+ cmd="vm\+web" vm="web" kind=exec exit=3 status=200/);
});

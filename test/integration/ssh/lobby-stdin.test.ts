// The lobby's `ssh <vm> <command>` as an exec request without a pty (`ssh host ssh web 'cat >
// f' < f`, issue 23's trial) runs as an SSH session into the VM would: stdin forwarded, stdout
// and stderr apart, the exit status, no deadline. Real OpenSSH client, real bwrap VMs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { startVmMachines } from '../../../src/service/vm/index.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import type { GeneratedKey } from '../../helpers/keys.js';
import { rssGrowthOver } from '../../helpers/rss.js';
import { startSshHarness, type SshHarness } from './harness.js';

const MB = 1024 * 1024;

let h: SshHarness;
before(async () => {
  h = await startSshHarness({ registry: buildRegistry(), machines: startVmMachines });
  const made = await h.ssh('new --name web --json');
  assert.equal(made.code, 0, made.stderr);
});
after(() => h?.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * `ssh [options] 127.0.0.1 word...` as a shell would run it, with `input` on stdin (undefined:
 * /dev/null). OpenSSH joins the words with spaces into one exec request, as in the trial.
 */
async function ssh(
  words: string[],
  input: Buffer | undefined,
  opts: { key?: GeneratedKey; extra?: string[] } = {},
): Promise<Ran> {
  const args = [...h.sshArgs(undefined, opts), ...words];
  const child = spawn('ssh', args, {
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => out.push(c));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  if (child.stdin !== null) {
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  }
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout: Buffer.concat(out), stderr };
}

test('lobby: the trial `ssh host ssh web cat > f < f` leaves f byte-identical in the VM', async () => {
  const data = randomBytes(200 * 1024);
  const put = await ssh(['ssh', 'web', 'cat > /root/f'], data);
  assert.equal(put.stderr, '');
  assert.equal(put.code, 0);
  const sum = await ssh(['ssh', 'web', 'sha256sum < /root/f'], undefined);
  assert.equal(sum.stdout.toString(), `${sha(data)}  -\n`, sum.stderr);
});

test('lobby: 5 MB of stdin round-trips through cat byte-identical', async () => {
  const data = randomBytes(5 * 1024 * 1024);
  const r = await ssh(['ssh', 'web', 'cat'], data);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.length, data.length);
  assert.equal(sha(r.stdout), sha(data));
});

test('lobby: stdout and stderr arrive apart; exit 7 is the exit status', async () => {
  const r = await ssh(['ssh', 'web', 'cat; echo out; echo err >&2; exit 7'], Buffer.from('in\n'));
  assert.equal(r.stdout.toString(), 'in\nout\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.code, 7);
});

test('lobby: the VM runs the same text as before: the words joined by spaces, for /bin/sh -c', async () => {
  // The lobby lexes its quotes away; the VM's shell reads the joined words. The pty form
  // (ssh -tt) still runs the command the way it always did: both must agree.
  const line = `ssh web echo "a  b" '$HOME' \\$USER ';' id -u`;
  const piped = await ssh([line], Buffer.from(''));
  assert.deepEqual(
    [piped.code, piped.stdout.toString(), piped.stderr],
    [0, 'a b /root root\n0\n', ''],
  );
  const pty = await ssh([line], undefined, { extra: ['-tt'] });
  assert.equal(pty.stdout.toString().replaceAll('\r\n', '\n'), 'a b /root root\n0\n');
});

test('lobby: 100 MB on the stdin of a command that reads late is taken with backpressure, all of it', async () => {
  const baseline = process.memoryUsage().rss;
  const client = spawn('ssh', [...h.sshArgs(undefined), 'ssh', 'web', 'sleep 2; wc -c'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  client.stdout.on('data', (c: Buffer) => (out += c.toString()));
  client.stdin.on('error', () => {});
  const closed = once(client, 'close');
  const chunk = randomBytes(MB);
  const sampling = rssGrowthOver(4_000, baseline);
  for (let i = 0; i < 100; i++) {
    if (!client.stdin.write(chunk)) await once(client.stdin, 'drain');
  }
  client.stdin.end();
  const [code] = (await closed) as [number | null];
  assert.deepEqual([code, out.trim()], [0, String(100 * MB)]);
  const growth = await sampling;
  assert.ok(growth < 100, `the server grew by ${growth.toFixed(0)} MB`);
});

test('lobby: with stdin at /dev/null a command runs as before, reading empty input', async () => {
  assert.equal((await ssh(['ssh', 'web', 'true'], undefined)).code, 0);
  const r = await ssh(['ssh', 'web', 'wc -c'], undefined);
  assert.equal(r.stdout.toString().trim(), '0');
  assert.equal(r.code, 0, r.stderr);
});

test('lobby: a command killed by a signal ends the session with that signal', async () => {
  const r = await ssh(['ssh', 'web', 'kill -TERM $$'], Buffer.from(''));
  // OpenSSH exits 255 on an exit-signal.
  assert.equal(r.code, 255, r.stderr);
});

test('lobby: another account or a tag-scoped key gets the same refusal as before, and nothing runs', async () => {
  const otherKey = await h.newKey('other');
  const other = h.store.createAccount('other@example.com', [keyRecord('other', otherKey)]);
  assert.ok(other.id !== h.owner.account.id);
  const scoped = await h.newKey('scoped');
  h.store.addKey({ ...keyRecord('scoped', scoped), accountId: h.owner.account.id, tag: 'ci' });
  for (const key of [otherKey, scoped]) {
    const piped = await ssh(['ssh', 'web', 'cat > /root/intruder'], randomBytes(64 * 1024), {
      key,
    });
    const plain = await ssh(['ssh', 'web', 'true'], undefined, { key });
    const refusal = { code: 1, stdout: '', stderr: 'error: vm "web" not found\n' };
    assert.deepEqual({ ...piped, stdout: piped.stdout.toString() }, refusal);
    assert.deepEqual({ ...plain, stdout: plain.stdout.toString() }, refusal);
  }
  const seen = await ssh(['ssh', 'web', 'test -e /root/intruder || echo absent'], undefined);
  assert.equal(seen.stdout.toString(), 'absent\n');
});

test('lobby: a piped command has no deadline; with a pty (ssh -tt) it keeps it', async (t) => {
  // The deadline is read at each command: lowered here, so that 3 s outlive it.
  const before = h.deps.config.commandDeadlineMs;
  h.deps.config.commandDeadlineMs = 1000;
  t.after(() => (h.deps.config.commandDeadlineMs = before));
  const piped = await ssh(['ssh', 'web', 'sleep 3; echo done'], Buffer.from(''));
  assert.deepEqual([piped.code, piped.stdout.toString(), piped.stderr], [0, 'done\n', '']);
  const pty = await ssh(['ssh', 'web', 'sleep 3; echo done'], undefined, { extra: ['-tt'] });
  assert.equal(pty.code, 7);
  assert.match(pty.stdout.toString(), /error: command timed out after 1s/);
});

test('lobby: the piped command is logged like a VM session: key, command, VM, kind, exit', async () => {
  const from = h.logs.length;
  assert.equal((await ssh(['ssh', 'web', 'cat >/dev/null; exit 3'], Buffer.from('x'))).code, 3);
  const line = h.logs.slice(from).find((l) => l.includes('cmd="ssh"'));
  assert.ok(line, h.logs.slice(from).join('\n'));
  assert.match(line, /via=ssh key=SHA256:\S+ cmd="ssh" vm="web" kind=exec exit=3 status=422 /);
});

test('lobby: a paused VM refuses the piped command in one line, as before', async () => {
  assert.equal((await h.ssh('pause web')).code, 0);
  try {
    const r = await ssh(['ssh', 'web', 'cat > /root/late'], randomBytes(1024));
    assert.deepEqual(
      [r.code, r.stdout.toString(), r.stderr],
      [1, '', 'error: vm "web" is paused\n'],
    );
  } finally {
    assert.equal((await h.ssh('resume web')).code, 0);
  }
});

function keyRecord(name: string, key: GeneratedKey) {
  const parsed = parsePublicKey(key.publicKeyLine);
  return {
    name,
    fingerprint: parsed.fingerprint,
    publicKey: key.publicKeyLine,
    keyType: parsed.type,
  };
}

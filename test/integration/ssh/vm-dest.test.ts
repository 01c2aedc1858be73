// Every VM an SSH destination (SPEC §6a, issue 23): `ssh vm+web@host` with the stock OpenSSH
// client is a session inside the VM, as sshd gives one: stdin forwarded, stdout and stderr
// apart, the exit status, no 30 s limit, a pty on request. Machine VMs (the server is root).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { run } from '../../helpers/keys.js';
import type { GeneratedKey } from '../../helpers/keys.js';
import { startVmDest, type VmDestFixture } from './vm-dest-fixture.js';

let f: VmDestFixture;
before(async () => {
  f = await startVmDest();
  assert.equal(f.svc.service.runtime.kind, 'bwrap');
  const made = await f.lobby('new --name web --json');
  assert.equal(made.code, 0, made.stderr);
});
after(() => f?.svc.stop());

/** The harness's calls, on the fixture: `user` picks the VM (or the lobby). */
const h = {
  ssh: (
    command: string | undefined,
    opts: { extra?: string[]; input?: string; key?: GeneratedKey } = {},
  ) => {
    const extra = [...(opts.extra ?? [])];
    const at = extra.indexOf('-l');
    const user = at === -1 ? 'me' : extra.splice(at, 2)[1]!;
    return f.ssh(user, command, { ...opts, extra });
  },
  sshArgs: (command: string | undefined, opts: { extra?: string[] } = {}) => {
    const extra = [...(opts.extra ?? [])];
    const at = extra.indexOf('-l');
    const user = at === -1 ? 'me' : extra.splice(at, 2)[1]!;
    return f.sshArgs(user, command, extra);
  },
  get logs() {
    return f.svc.logs;
  },
};

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
  const r = await h.ssh(`tty; echo $TERM`, {
    extra: [...toVm(), '-tt', '-o', 'SetEnv=TERM=vt220'],
  });
  assert.match(r.stdout, /^\/dev\/pts\/\d+\r\nvt220\r\n$/);
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
  const other = await f.svc.addAccount('other@example.com');
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

test('vm dest: a paused VM refuses new sessions in one line; rm ends an open session', async () => {
  const made = await h.ssh('new --name doomed --json');
  assert.equal(made.code, 0, made.stderr);
  assert.equal((await h.ssh('pause doomed')).code, 0);
  const paused = await h.ssh('true', { extra: toVm('doomed') });
  assert.equal(paused.stderr, 'vm "doomed" is paused\n');
  assert.equal(paused.code, 1);
  assert.equal((await h.ssh('resume doomed')).code, 0);
  const child = spawn('ssh', h.sshArgs('echo started; sleep 600', { extra: toVm('doomed') }), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closed = once(child, 'close');
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const rm = await h.ssh('rm doomed');
  assert.equal(rm.code, 0, rm.stderr);
  const [code] = await closed;
  assert.notEqual(code, 0);
});

test('vm dest: -L reaches a server inside the VM, never a port of the host', async () => {
  const { createServer } = await import('node:net');
  const listenOn = async (handler: (s: Socket) => void) => {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as { port: number }).port };
  };
  // A host-only server: the VM's server later listens on the same port number inside.
  const hostOnly = await listenOn((s) => s.end('HTTP/1.0 200 OK\r\n\r\nhost-only\n'));
  const free = await listenOn(() => {});
  const local = free.port;
  await new Promise((resolve) => free.server.close(resolve));
  const fwd = spawn(
    'ssh',
    h.sshArgs(undefined, {
      extra: [
        ...toVm(),
        '-N',
        '-o',
        'ExitOnForwardFailure=yes',
        '-L',
        `${local}:localhost:${hostOnly.port}`,
      ],
    }),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const fwdClosed = once(fwd, 'close');
  const get = () =>
    fetch(`http://127.0.0.1:${local}/marker`).then(
      (res) => res.text(),
      () => 'failed',
    );
  try {
    // Bounded polls: the forwarding listens once ssh signed in; nothing listens in the VM yet.
    let before = 'failed';
    for (let i = 0; i < 200; i++) {
      before = await get();
      if (before !== 'failed' || (await isListening(local))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.notEqual(before, 'host-only\n');
    const server = spawn(
      'ssh',
      h.sshArgs(
        `mkdir -p /srv/m && echo inside-vm > /srv/m/marker && exec python3 -m http.server ${hostOnly.port} --bind 127.0.0.1 --directory /srv/m`,
        { extra: toVm() },
      ),
      { stdio: ['ignore', 'ignore', 'ignore'] },
    );
    const stopped = once(server, 'close');
    let body = '';
    for (let i = 0; i < 300 && body !== 'inside-vm\n'; i++) {
      body = await get();
      if (body !== 'inside-vm\n') await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(body, 'inside-vm\n');
    server.kill();
    await stopped;
  } finally {
    fwd.kill();
    await fwdClosed;
    hostOnly.server.close();
  }
});

async function isListening(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

test('vm dest: remote forwarding (-R) is refused', async () => {
  const r = await h.ssh('true', {
    extra: [...toVm(), '-o', 'ExitOnForwardFailure=yes', '-R', '0:localhost:22'],
  });
  assert.equal(r.code, 255);
  assert.match(r.stderr, /remote port forwarding failed/i);
});

test('vm dest: scp (sftp mode and legacy -O), sftp -b and rsync -a in and out are byte-identical', async () => {
  const local = f.svc.dir.join('transfer');
  const { mkdir, writeFile, readFile } = await import('node:fs/promises');
  await mkdir(join(local, 'tree', 'sub'), { recursive: true });
  const data = randomBytes(300 * 1024);
  await writeFile(join(local, 'tree', 'a.bin'), data);
  await writeFile(join(local, 'tree', 'sub', 'b.txt'), 'bee\n');
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const dest = `vm+web@127.0.0.1`;
  const scp = (args: string[]) => run('scp', [...f.common(), '-P', String(f.port), ...args]);
  for (const mode of [[], ['-O']]) {
    const name = mode.length === 0 ? 'sftp-mode' : 'legacy';
    const up = await scp([...mode, join(local, 'tree', 'a.bin'), `${dest}:/root/${name}.bin`]);
    assert.equal(up.code, 0, `${name} up: ${up.stderr}`);
    const down = await scp([...mode, `${dest}:/root/${name}.bin`, join(local, `${name}.back`)]);
    assert.equal(down.code, 0, `${name} down: ${down.stderr}`);
    assert.equal(sha(await readFile(join(local, `${name}.back`))), sha(data), name);
  }
  const batch = join(local, 'batch');
  await writeFile(
    batch,
    `put ${join(local, 'tree', 'sub', 'b.txt')} /root/b.txt\nget /root/b.txt ${join(local, 'b.back')}\n`,
  );
  const sftp = await run('sftp', [...f.common(), '-P', String(f.port), '-b', batch, dest]);
  assert.equal(sftp.code, 0, sftp.stderr);
  assert.equal(await readFile(join(local, 'b.back'), 'utf8'), 'bee\n');
  const e = ['ssh', ...f.common(), '-p', String(f.port)].join(' ');
  const rsyncUp = await run('rsync', [
    '-a',
    '-e',
    e,
    join(local, 'tree') + '/',
    `${dest}:/root/tree/`,
  ]);
  assert.equal(rsyncUp.code, 0, rsyncUp.stderr);
  const rsyncDown = await run('rsync', [
    '-a',
    '-e',
    e,
    `${dest}:/root/tree/`,
    join(local, 'tree-back') + '/',
  ]);
  assert.equal(rsyncDown.code, 0, rsyncDown.stderr);
  assert.equal(sha(await readFile(join(local, 'tree-back', 'a.bin'))), sha(data));
  assert.equal(await readFile(join(local, 'tree-back', 'sub', 'b.txt'), 'utf8'), 'bee\n');
});

test('vm dest: a 40 s command is not cut at the 30 s limit of /exec', async () => {
  const r = await h.ssh('sleep 40; echo done', { extra: toVm() });
  assert.equal(r.stdout, 'done\n', r.stderr);
  assert.equal(r.code, 0);
});

test('vm dest: a shell without a pty (ssh -T) reads commands from stdin', async () => {
  const r = await h.ssh(undefined, { extra: [...toVm(), '-T'], input: 'echo "in $0"; exit 3\n' });
  assert.equal(r.stdout, 'in -bash\n');
  assert.equal(r.code, 3);
});

test('vm dest: a shell on a pty (ssh -tt) is a login shell: $0 is -bash, /etc/profile and ~/.profile read', async () => {
  const marked = await h.ssh(
    "grep -q EXECTL_PROFILE_READ /root/.profile || echo 'export EXECTL_PROFILE_READ=yes' >> /root/.profile",
    { extra: toVm() },
  );
  assert.equal(marked.code, 0, marked.stderr);
  const r = await h.ssh(undefined, {
    extra: [...toVm(), '-tt'],
    // /etc/profile sets PATH for a login shell; ~/.profile the marker.
    input:
      'echo "zero=[$0] profile=[$EXECTL_PROFILE_READ] login=[$(shopt -q login_shell && echo y)]"; exit 4\n',
  });
  assert.match(r.stdout, /zero=\[-bash\] profile=\[yes\] login=\[y\]/);
  assert.equal(r.code, 4);
});

test('vm dest: a client that goes hangs up its session (SIGHUP); nohup processes live on', async () => {
  const child = spawn(
    'ssh',
    // The background job says when nohup has made it ignore SIGHUP (it runs only after that).
    h.sshArgs(
      "rm -f /tmp/nh; nohup sh -c 'echo ready > /tmp/nh; exec sleep 300' >/dev/null 2>&1 & " +
        'while [ ! -s /tmp/nh ]; do sleep 0.05; done; echo "$! $$"; sleep 300',
      { extra: toVm() },
    ),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const closed = once(child, 'close');
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const [kept, shell] = line.toString().trim().split(' ');
  child.kill('SIGKILL');
  await closed;
  // Bounded poll: the hang-up reaches the session's shell once the server saw the client go.
  let alive = '';
  for (let i = 0; i < 200; i++) {
    alive = (await h.ssh(`kill -0 ${shell} 2>/dev/null && echo up || echo gone`, { extra: toVm() }))
      .stdout;
    if (alive === 'gone\n') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(alive, 'gone\n');
  const nohup = await h.ssh(`kill -0 ${kept} && echo up; kill ${kept}`, { extra: toVm() });
  assert.equal(nohup.stdout, 'up\n', nohup.stderr);
});

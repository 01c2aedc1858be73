// A VM's SSH server under abuse (SPEC §6a, §9, issue 23): a client that reads nothing of a
// huge stream, one that keeps opening its window without reading, 100 MB of garbage on
// stdin, absurd pty sizes, a flood of channel opens. The server stays up, its memory bounded
// (at most about a window and the socket mark per channel), and another user's session works.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import ssh2, { type ClientChannel } from 'ssh2';
import { rssGrowthOver } from '../../helpers/rss.js';
import { serverChannelId } from './raw-client.js';
import { startVmDest, type VmDestFixture } from './vm-dest-fixture.js';

const MB = 1024 * 1024;
/** What one abusive connection may make the server hold (SPEC §6a: ~1 MiB per direction). */
const RSS_LIMIT_MB = 100;

let f: VmDestFixture;
before(async () => {
  f = await startVmDest();
  for (const name of ['web', 'other']) {
    const made = await f.lobby(`new --name ${name} --json`);
    assert.equal(made.code, 0, made.stderr);
  }
});
after(() => f?.svc.stop());

/** Another user's plain session still works: the server is up and serving. */
async function othersStillServed(): Promise<void> {
  const r = await f.ssh('vm+other', 'echo fine');
  assert.equal(r.stdout, 'fine\n', r.stderr);
  assert.equal(r.code, 0);
}

interface Raw {
  client: ssh2.Client;
  socket: Socket;
  windowAdjust(recipient: number, amount: number): void;
}

/** ssh2's client as `vm+<vm>`, its protocol reached to send what no real client sends. */
async function connectAs(vm: string): Promise<Raw> {
  const client = new ssh2.Client();
  client.on('error', () => {});
  const privateKey = await readFile(f.svc.owner.key.path);
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve).once('error', reject);
    client.connect({
      host: '127.0.0.1',
      port: f.port,
      username: `vm+${vm}`,
      privateKey,
      readyTimeout: 60_000,
    });
  });
  const internals = client as unknown as {
    _protocol: { channelWindowAdjust(recipient: number, amount: number): void };
    _sock: Socket;
  };
  return {
    client,
    socket: internals._sock,
    windowAdjust: (id, amount) => internals._protocol.channelWindowAdjust(id, amount),
  };
}

function exec(
  client: ssh2.Client,
  command: string,
  options: ssh2.ExecOptions = {},
): Promise<ClientChannel> {
  return new Promise((resolve, reject) =>
    client.exec(command, options, (err, stream) => (err ? reject(err) : resolve(stream))),
  );
}

test('a client that reads nothing of a 500 MB stream keeps the server under +100 MB', async () => {
  const baseline = process.memoryUsage().rss;
  const client = spawn('ssh', f.sshArgs('vm+web', 'head -c 500000000 /dev/zero'), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closed = once(client, 'close');
  await once(client.stdout, 'data');
  client.stdout.pause();
  const growth = await rssGrowthOver(8_000, baseline);
  client.kill('SIGKILL');
  await closed;
  assert.ok(growth < RSS_LIMIT_MB, `the server grew by ${growth.toFixed(0)} MB`);
  await othersStillServed();
});

test('window adjusts from a client that reads nothing do not queue output', async () => {
  const baseline = process.memoryUsage().rss;
  const raw = await connectAs('web');
  const stream = await exec(raw.client, 'head -c 500000000 /dev/zero');
  stream.on('data', () => {});
  // From now on nothing the server sends is read, while the window keeps being opened wide.
  raw.socket.pause();
  const id = serverChannelId(stream);
  const adjusting = setInterval(() => raw.windowAdjust(id, 256 * MB), 50);
  try {
    const growth = await rssGrowthOver(6_000, baseline);
    assert.ok(growth < RSS_LIMIT_MB, `the server grew by ${growth.toFixed(0)} MB`);
  } finally {
    clearInterval(adjusting);
    raw.client.destroy();
  }
  await othersStillServed();
});

test('100 MB of garbage on a session stdin is taken with backpressure, all of it', async () => {
  const baseline = process.memoryUsage().rss;
  const client = spawn('ssh', f.sshArgs('vm+web', 'wc -c'), { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  client.stdout.on('data', (c: Buffer) => (out += c.toString()));
  client.stdin.on('error', () => {});
  const chunk = randomBytes(MB);
  const sampling = rssGrowthOver(4_000, baseline);
  for (let i = 0; i < 100; i++) {
    if (!client.stdin.write(chunk)) await once(client.stdin, 'drain');
  }
  client.stdin.end();
  const [code] = await once(client, 'close');
  assert.equal(out.trim(), String(100 * MB));
  assert.equal(code, 0);
  const growth = await sampling;
  assert.ok(growth < RSS_LIMIT_MB, `the server grew by ${growth.toFixed(0)} MB`);
  await othersStillServed();
});

test('a pty request with absurd sizes and TERM gets a sane terminal', async () => {
  const raw = await connectAs('web');
  try {
    const stream = await exec(raw.client, 'stty size; echo "TERM=$TERM"', {
      pty: {
        rows: 0xffffffff,
        cols: 0xffffffff,
        height: 0xffffffff,
        width: 0xffffffff,
        term: 'x'.repeat(4000),
      },
    });
    let out = '';
    stream.on('data', (c: Buffer) => (out += c.toString()));
    const [code] = (await once(stream, 'exit')) as [number];
    assert.equal(code, 0, out);
    assert.match(out, /TERM=dumb\r\n$/);
  } finally {
    raw.client.destroy();
  }
  await othersStillServed();
});

test('a flood of channel opens is capped per connection; others are still served', async () => {
  const raw = await connectAs('web');
  try {
    const opened = await Promise.allSettled(
      Array.from({ length: 200 }, () => exec(raw.client, 'sleep 30')),
    );
    const accepted = opened.filter((o) => o.status === 'fulfilled').length;
    assert.ok(accepted <= 10, `${accepted} sessions were opened at once`);
    await othersStillServed();
  } finally {
    raw.client.destroy();
  }
});

test('forwardings are capped per connection (32 open or opening); one that ends makes room', async () => {
  // A listener inside that never accepts: each connection completes in its backlog and stays.
  const listening = await f.ssh(
    'vm+web',
    `setsid python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 9100)); s.listen(128); time.sleep(600)' > /dev/null 2>&1 &
for i in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/9100) 2>/dev/null && break; sleep 0.1; done`,
  );
  assert.equal(listening.code, 0, listening.stderr);
  const raw = await connectAs('web');
  const forward = () =>
    new Promise<ClientChannel | null>((resolve) =>
      raw.client.forwardOut('127.0.0.1', 0, 'localhost', 9100, (err, channel) =>
        resolve(err ? null : channel),
      ),
    );
  try {
    const opened = await Promise.all(Array.from({ length: 40 }, forward));
    const accepted = opened.filter((c) => c !== null);
    assert.equal(accepted.length, 32);
    assert.equal(await forward(), null, 'a 33rd is refused');
    accepted[0]!.close();
    let again: ClientChannel | null = null;
    for (let i = 0; i < 100 && again === null; i++) {
      again = await forward();
      if (again === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(again !== null, 'a forwarding is accepted once one ended');
    await othersStillServed();
  } finally {
    raw.client.destroy();
  }
});

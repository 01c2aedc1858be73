// The door into a network namespace (vm/network/door.ts), as root, on a namespace of the test's
// own: a connection it makes reaches a server inside and never a port of the host; a listener
// it makes inside is accepted on here; its helper ends once idle, and with the door.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { NetnsDoor } from '../../../src/service/vm/network/door.js';
import { hostPidsWith } from './fixture.js';

let holder: ChildProcess;
let door: NetnsDoor;
let hostServer: Server;
let hostPort: number;

before(async () => {
  // A namespace with its loopback up, held by a sleeping process, as a VM's init holds its own.
  holder = spawn('unshare', ['--net', 'sh', '-c', 'ip link set lo up && exec sleep 600'], {
    stdio: 'ignore',
  });
  const ours = readlinkSync('/proc/self/ns/net');
  for (let i = 0; i < 500; i++) {
    const theirs = (() => {
      try {
        return readlinkSync(`/proc/${holder.pid}/ns/net`);
      } catch {
        return ours;
      }
    })();
    if (theirs !== ours && (await hostPidsWith('sleep 600')).includes(holder.pid!)) break;
    await sleep(10);
  }
  door = new NetnsDoor('nsenter', 'perl', openSync(`/proc/${holder.pid}/ns/net`, 'r'));
  hostServer = createServer((socket) => socket.end('host secret\n'));
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  hostPort = (hostServer.address() as { port: number }).port;
});

after(async () => {
  door.close();
  holder.kill('SIGKILL');
  await new Promise((resolve) => hostServer.close(resolve));
});

const firstLine = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
  });

test('a listener made inside takes the connections made inside, and the host port stays out', async () => {
  const inside = await door.listen('127.0.0.1', hostPort);
  inside.on('connection', (socket) => socket.end('inside\n'));
  try {
    const socket = await door.connect(hostPort);
    // The same port number on the host's loopback answers otherwise: the door never goes there.
    assert.equal(await firstLine(socket), 'inside\n');
  } finally {
    inside.close();
  }
  await assert.rejects(door.connect(hostPort), { code: 'ECONNREFUSED' });
});

test('its helper ends once idle; a later ask starts another', async () => {
  // This namespace's helpers only: VMs of test files running beside this one have their own.
  const ours = readlinkSync(`/proc/${holder.pid}/ns/net`);
  const helpers = async () =>
    (await hostPidsWith('netns-door.cjs: run by node inside')).filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/ns/net`) === ours;
      } catch {
        return false; // gone meanwhile
      }
    });
  const inside = await door.listen('127.0.0.1', 8000);
  inside.on('connection', (socket) => socket.end('again\n'));
  try {
    door.rest();
    for (let i = 0; i < 500 && (await helpers()).length > 0; i++) await sleep(10);
    assert.deepEqual(await helpers(), []);
    assert.equal(await firstLine(await door.connect(8000)), 'again\n');
  } finally {
    inside.close();
  }
});

test('listeners made at the start take connections at once; those waiting are the server’s', async () => {
  const fresh = new NetnsDoor('nsenter', 'perl', openSync(`/proc/${holder.pid}/ns/net`, 'r'));
  try {
    assert.deepEqual(
      await fresh.prepare([
        { host: '127.0.0.1', port: 8100 },
        { host: '127.0.0.1', port: hostPort },
      ]),
      [true, true],
    );
    // Connected inside by other processes while the helper's node starts: they wait in the
    // listener's backlog, and must all be served by the server (never accepted by the helper).
    const clients = spawn(
      'nsenter',
      [
        `--net=/proc/${holder.pid}/ns/net`,
        '--',
        'bash',
        '-c',
        'for i in $(seq 20); do (exec 3<>/dev/tcp/127.0.0.1/8100 && cat <&3) & done; wait',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let served = '';
    clients.stdout!.on('data', (chunk: Buffer) => (served += chunk.toString()));
    // Both asked at once, as at boot: the second hand-over waits for the first.
    const [inside, other] = await Promise.all([
      fresh.listen('127.0.0.1', hostPort),
      fresh.listen('127.0.0.1', 8100),
    ]);
    inside.on('connection', (socket) => socket.end('first\n'));
    other.on('connection', (socket) => socket.end('served here\n'));
    try {
      await new Promise((resolve) => clients.once('exit', resolve));
      assert.equal(served, 'served here\n'.repeat(20));
      assert.equal(await firstLine(await fresh.connect(8100)), 'served here\n');
      // Never the host's port of the same number.
      assert.equal(await firstLine(await fresh.connect(hostPort)), 'first\n');
    } finally {
      inside.close();
      other.close();
    }
  } finally {
    fresh.close();
  }
});

test('a helper ended as the next one starts fails none of the next one’s asks', async () => {
  const inside = await door.listen('127.0.0.1', 8200);
  inside.on('connection', (socket) => socket.end('next\n'));
  try {
    for (let i = 0; i < 3; i++) {
      // The idle end of one helper (its exit comes a moment later) and a new ask at once.
      door.rest();
      assert.equal(await firstLine(await door.connect(8200)), 'next\n');
    }
  } finally {
    inside.close();
  }
});

test('a connection handed over after its ask timed out is closed, not kept', async () => {
  const slow = new NetnsDoor('nsenter', 'perl', openSync(`/proc/${holder.pid}/ns/net`, 'r'), {
    askTimeoutMs: 300,
  });
  const inside = await door.listen('127.0.0.1', 8300);
  const accepted: Promise<true>[] = [];
  inside.on('connection', (socket) => {
    socket.resume();
    accepted.push(new Promise((resolve) => socket.once('close', () => resolve(true))));
  });
  // The VM holds the connection back: its first SYN is dropped, the kernel tries again 1 s later.
  const nft = async (script: string) => {
    const child = spawn('nsenter', [`--net=/proc/${holder.pid}/ns/net`, '--', 'nft', '-f', '-'], {
      stdio: ['pipe', 'inherit', 'inherit'],
    });
    child.stdin!.end(script);
    const [code] = (await once(child, 'exit')) as [number];
    assert.equal(code, 0, `nft ${script}`);
  };
  const table = [
    'table inet hold {',
    '  chain in {',
    '    type filter hook input priority 0; policy accept;',
    '    tcp dport 8300 tcp flags & (syn | ack) == syn drop',
    '  }',
    '}',
  ].join('\n');
  try {
    await nft(table);
    await assert.rejects(slow.connect(8300), { code: 'ETIMEDOUT' });
    await nft('delete table inet hold');
    // The retried SYN gets through: the helper connects and hands the socket over late.
    for (let i = 0; i < 500 && accepted.length === 0; i++) await sleep(10);
    assert.equal(accepted.length, 1, 'the late connection was made');
    const closed = await Promise.race([accepted[0]!, sleep(10_000, false)]);
    assert.equal(closed, true, 'the server let the late connection go');
  } finally {
    slow.close();
    inside.close();
  }
});

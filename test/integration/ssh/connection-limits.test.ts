// Idle and unauthenticated connections on the SSH listener (SPEC §7): a cap per client address
// and in all, and a short grace before authentication, so that nobody can hold the server's
// descriptors with connections that never sign in, nor keep others out for long.
import { after, afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import ssh2 from 'ssh2';
import { readFileSync } from 'node:fs';
import { buildRegistry } from '../../../src/service/commands/index.js';
import type { ConnectionLimits } from '../../../src/service/ssh/connection-limits.js';
import { startSshHarness, type SshHarness } from './harness.js';
import { PtyClient } from './pty-client.js';

/** How long a bounded wait for the server to act may take on a loaded machine. */
const WAIT_MS = 15_000;

let h: SshHarness | undefined;
const sockets: Socket[] = [];
const clients: PtyClient[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  await h?.close();
  h = undefined;
});
after(() => h?.close());

async function harness(limits?: Partial<ConnectionLimits>): Promise<SshHarness> {
  h = await startSshHarness({ registry: buildRegistry(), limits });
  return h;
}

/**
 * Opens a TCP connection from `from` (any 127.x address is this machine) that says nothing,
 * and resolves with what happened first: the server's SSH version line, or the connection
 * closed without one.
 */
async function idleConnection(
  s: SshHarness,
  from: string,
): Promise<{ socket: Socket; answer: 'banner' | 'closed' }> {
  const socket = connect({ host: '127.0.0.1', port: s.frontEnd.address.port, localAddress: from });
  sockets.push(socket);
  socket.on('error', () => {});
  const answer = await Promise.race([
    once(socket, 'data').then(([chunk]) => {
      assert.match(String(chunk), /^SSH-2\.0-exectl/);
      return 'banner' as const;
    }),
    once(socket, 'close').then(() => 'closed' as const),
  ]);
  return { socket, answer };
}

/** Waits (bounded) until `socket` is closed; true if it was. */
async function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.closed) return true;
  return Promise.race([once(socket, 'close').then(() => true), sleep(ms).then(() => false)]);
}

async function whoami(s: SshHarness): Promise<{ code: number | null; stderr: string }> {
  return s.ssh('whoami --json');
}

test('an address with 10 connections not signed in gets no 11th; other addresses still sign in', async () => {
  const s = await harness();
  for (let i = 0; i < 10; i++) {
    assert.equal((await idleConnection(s, '127.0.0.2')).answer, 'banner', `connection ${i + 1}`);
  }
  assert.equal((await idleConnection(s, '127.0.0.2')).answer, 'closed');
  const other = await whoami(s);
  assert.equal(other.code, 0, other.stderr);
});

test('100 connections not signed in, in all, keep out the 101st from any address until they go', async () => {
  const s = await harness();
  const idle: Socket[] = [];
  for (let address = 2; address < 12; address++) {
    for (let i = 0; i < 10; i++) {
      const { socket, answer } = await idleConnection(s, `127.0.0.${address}`);
      assert.equal(answer, 'banner', `connection ${i + 1} from 127.0.0.${address}`);
      idle.push(socket);
    }
  }
  assert.equal((await idleConnection(s, '127.0.0.12')).answer, 'closed');
  assert.equal((await whoami(s)).code, 255, 'the listener is full');

  for (const socket of idle) socket.destroy();
  // The server learns of the closes asynchronously: poll until a new connection gets in.
  let answer: string = 'closed';
  for (const end = Date.now() + WAIT_MS; answer === 'closed' && Date.now() < end;) {
    ({ answer } = await idleConnection(s, '127.0.0.12'));
    if (answer === 'closed') await sleep(50);
  }
  assert.equal(answer, 'banner');
  const back = await whoami(s);
  assert.equal(back.code, 0, back.stderr);
});

test('a connection not signed in within the login grace is cut, silent or halfway; a signed-in one stays', async () => {
  // Long enough that the REPL's own sign-in (an OpenSSH client started now) beats it on a
  // loaded machine; the cut connections are waited for much longer.
  const s = await harness({ loginGraceMs: 3000 });
  const repl = new PtyClient(s.sshArgs(undefined));
  clients.push(repl);
  await repl.waitFor('exectl> ');
  const silent = await idleConnection(s, '127.0.0.2');
  const halfway = await idleConnection(s, '127.0.0.2');
  halfway.socket.write('SSH-2.0-OpenSSH_9.6\r\n');
  assert.equal(await closedWithin(silent.socket, WAIT_MS), true, 'the silent one was cut');
  assert.equal(await closedWithin(halfway.socket, WAIT_MS), true, 'the halfway one was cut');
  // The grace is over for the REPL too, which signed in: it goes on.
  repl.type('whoami --json\r');
  await repl.waitFor(/"email":"owner@example\.com"/);
});

test('connections signed in count too: past the cap per address, the next one is refused', async () => {
  const s = await harness({ maxConnectionsPerAddress: 2 });
  for (let i = 0; i < 2; i++) {
    const repl = new PtyClient(s.sshArgs(undefined));
    clients.push(repl);
    await repl.waitFor('exectl> ');
  }
  const refused = await whoami(s);
  assert.equal(refused.code, 255);
  const elsewhere = await idleConnection(s, '127.0.0.2');
  assert.equal(elsewhere.answer, 'banner', 'another address still gets in');
});

test('a connection may have 10 sessions open at once, not 11; one that ends makes room', async () => {
  const s = await harness();
  const client = new ssh2.Client();
  const ready = once(client, 'ready');
  client.on('error', () => {});
  client.connect({
    host: '127.0.0.1',
    port: s.frontEnd.address.port,
    username: 'owner',
    privateKey: readFileSync(s.owner.key.path),
  });
  await ready;
  try {
    const channels: ssh2.ClientChannel[] = [];
    const shell = () =>
      new Promise<'open' | 'refused'>((resolve) =>
        client.shell(false, (err, channel) => {
          if (err) return resolve('refused');
          channels.push(channel);
          resolve('open');
        }),
      );
    const opened: string[] = [];
    for (let i = 0; i < 11; i++) opened.push(await shell());
    assert.deepEqual(opened, [...Array(10).fill('open'), 'refused']);

    // A session that ends gives its place back (the server learns of it asynchronously).
    channels[0]!.close();
    let again = 'refused';
    for (const end = Date.now() + WAIT_MS; again === 'refused' && Date.now() < end;) {
      again = await shell();
      if (again === 'refused') await sleep(50);
    }
    assert.equal(again, 'open');
  } finally {
    client.end();
  }
});

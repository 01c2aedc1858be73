// Clients that break SSH's flow control on purpose (SPEC §6 "Backpressure everywhere", §7):
// data sent past the window the server granted, and window adjusts from a client that reads
// nothing. ssh2 alone takes both; the server must cut the first and throttle the second,
// keep its memory and /healthz, and serve other clients meanwhile.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestService } from '../../helpers/service.js';
import { assertServerFine, RSS_LIMIT_MB, watchService, withService } from './flood.js';
import { connectRaw, openShell, rekey, serverChannelId, type RawClient } from './raw-client.js';

const MB = 1024 * 1024;
/** 9 bytes in, about 7 KB out: the server has output to queue for as long as lines come. */
const HELP_LINES = Buffer.from('help all\n'.repeat(4000));

/** Waits (bounded) until the client's own socket has sent what it queued, or is gone. */
async function drained(raw: RawClient): Promise<void> {
  while (raw.socket.writableLength > 4 * MB && !raw.closed) {
    await once(raw.socket, 'drain', { signal: AbortSignal.timeout(100) }).catch(() => {});
  }
}

test('data past the window the server granted cuts the connection', async (t) => {
  await withService(async (svc) => {
    const raw = await connectRaw(svc);
    // Nobody reads the shell's output: its window closes, the session stops reading input,
    // and the server stops granting window; everything from then on is past the window.
    const shell = await openShell(raw.client);
    const id = serverChannelId(shell);
    // 32767 bytes: a window of 2 MiB, or anything it is topped up to, never ends at exactly 0
    // (which ssh2 would refuse on its own), so the window goes negative.
    const packet = HELP_LINES.subarray(0, 32_767);
    let tooBig = false;
    const watch = watchService(svc.url, RSS_LIMIT_MB, () => (tooBig = true));
    let sent = 0;
    const deadline = Date.now() + 60_000;
    while (!raw.closed && !tooBig && sent < 256 * MB && Date.now() < deadline) {
      raw.protocol.channelData(id, packet);
      sent += packet.length;
      await drained(raw);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // What the kernel still holds reaches the server after the overrun: wait for the cut.
    for (let i = 0; i < 100 && !raw.closed; i++) await sleep(100);
    const watched = await watch.stop();
    t.diagnostic(`${(sent / MB).toFixed(1)} MiB sent before the connection was cut`);
    const cut = raw.closed;
    raw.client.destroy();
    assert.ok(cut, `the connection took ${(sent / MB).toFixed(0)} MiB and was not cut`);
    await assertServerFine(t, svc, watched);
  });
});

/**
 * A -T shell given 230,000 `help all` lines by a client that reads nothing and, each turn of
 * the flood, does `nudge` (which should make the server queue more): the commands must stop
 * running (nothing new for 3 s, a wide margin on a loaded machine) before RSS grows past the
 * limit, and the client must not be cut.
 */
async function commandsStopWhenNotRead(
  t: TestContext,
  svc: TestService,
  nudge: (raw: RawClient, id: number, turn: number) => void,
): Promise<void> {
  const raw = await connectRaw(svc);
  const shell = await openShell(raw.client);
  const id = serverChannelId(shell);
  raw.socket.pause();
  // The window the server granted (2 MiB) of lines: 230,000 commands' worth of output.
  shell.write(Buffer.from('help all\n'.repeat(230_000)));
  const helps = () => svc.logs.filter((line) => / cmd="help" status=200 /.test(line)).length;
  let tooBig = false;
  const watch = watchService(svc.url, RSS_LIMIT_MB, () => (tooBig = true));
  let progress = { helps: 0, at: Date.now() };
  const deadline = Date.now() + 60_000;
  for (let turn = 0; !tooBig && Date.now() < deadline && Date.now() - progress.at < 3_000; turn++) {
    if (helps() !== progress.helps) progress = { helps: helps(), at: Date.now() };
    nudge(raw, id, turn);
    await drained(raw);
    await sleep(10);
  }
  const stalled = helps();
  for (let i = 0; i < 20 && helps() === stalled; i++) await sleep(100);
  const later = helps();
  const watched = await watch.stop();
  t.diagnostic(`${stalled} commands ran before they stopped, ${later - stalled} after`);
  const open = !raw.closed;
  raw.client.destroy();
  assert.ok(!tooBig && Date.now() < deadline, 'the commands never stopped running');
  assert.equal(later, stalled, 'commands went on running while nobody read their output');
  assert.ok(open, 'a client that only reads slowly is throttled, not cut');
  await assertServerFine(t, svc, watched);
}

test('window adjusts from a client that reads nothing do not queue output', async (t) => {
  await withService((svc) =>
    // It keeps telling the server it may send more.
    commandsStopWhenNotRead(t, svc, (raw, id) => raw.protocol.channelWindowAdjust(id, 256 * MB)),
  );
});

test('a key exchange the client never finishes does not queue output', async (t) => {
  await withService((svc) =>
    // A wide window, then a key exchange it starts and never reads the answer to: ssh2 holds
    // the output of the exchange's duration in memory, not in the socket.
    commandsStopWhenNotRead(t, svc, (raw, id, turn) => {
      if (turn > 0) return;
      raw.protocol.channelWindowAdjust(id, 1024 * MB);
      raw.protocol.rekey();
    }),
  );
});

test('a client that reads its socket slowly gets all its output, and can rekey meanwhile', async () => {
  await withService(async (svc) => {
    const raw = await connectRaw(svc);
    const shell = await openShell(raw.client);
    let output = 0;
    shell.on('data', (chunk: Buffer) => (output += chunk.length));
    shell.stderr.resume();
    const exited = once(shell, 'exit');
    // A window far larger than the output (as HPN-SSH grants): only the socket holds it back.
    raw.protocol.channelWindowAdjust(serverChannelId(shell), 256 * MB);
    // 4000 answers of about 7 KB: more than the kernel buffers, and the mark, hold; read in sips.
    shell.end(HELP_LINES.subarray(0, 9 * 4000));
    let rekeyed = false;
    const sips = (async () => {
      for (let i = 0; i < 300 && !raw.closed && (output < 4000 * 6_000 || !rekeyed); i++) {
        raw.socket.pause();
        await sleep(200);
        raw.socket.resume();
        await sleep(1);
        // Asked while the server has more queued than its mark, and has stopped reading.
        if (i === 2) rekey(raw, () => (rekeyed = true));
      }
    })();
    const [code] = (await Promise.race([exited, sleep(90_000).then(() => ['no exit'])])) as [
      number | string,
    ];
    await sips;
    raw.client.destroy();
    assert.equal(code, 0);
    assert.ok(output > 4000 * 6_000, `only ${output} bytes of output came`);
    assert.equal(rekeyed, true, 'the rekey did not complete');
    assert.equal(svc.logs.filter((l) => / cmd="help" status=200 /.test(l)).length, 4000);
  });
});

// Hostile input on the SSH front end (SPEC §7, §6 "Backpressure everywhere"): a whole service
// in this process, flooded through the real OpenSSH client, must keep answering /healthz and
// other clients, hold its memory, and stop cleanly afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { run } from '../../helpers/keys.js';
import {
  assertServerFine,
  flood,
  killed,
  RSS_LIMIT_MB,
  sshArgs,
  spawnSsh,
  watchService,
  withService,
} from './flood.js';

const FLOOD_MS = 3_000;
const MB = 1024 * 1024;

test('repl: Up/Down over two 60 KB history lines, never read: input waits for the echo', async (t) => {
  await withService(async (svc) => {
    const client = spawnSsh(sshArgs(svc, ['-tt']));
    let screen = '';
    const collect = (chunk: Buffer) => (screen += chunk.toString('latin1'));
    client.stdout!.on('data', collect);
    const waitForScreen = async (text: string, times: number) => {
      const seen = () => screen.split(text).length - 1 >= times;
      for (let i = 0; i < 300 && !seen(); i++) await sleep(50);
      assert.ok(
        seen(),
        `no ${JSON.stringify(text)} x${times}: ${JSON.stringify(screen.slice(-500))}`,
      );
    };
    await waitForScreen('exectl> ', 1);
    // Two long lines into the history, each run (and refused) before the flood begins.
    client.stdin!.write(`whoami ${'a'.repeat(60_000)}\r`);
    await waitForScreen('exectl> ', 2);
    client.stdin!.write(`whoami ${'b'.repeat(60_000)}\r`);
    await waitForScreen('exectl> ', 3);
    // From now on nobody reads what the server sends.
    client.stdout!.off('data', collect);
    client.stdout!.pause();
    client.stdin!.write('\x1b[A');

    let tooBig = false;
    const watch = watchService(svc.url, RSS_LIMIT_MB, () => (tooBig = true));
    const end = Date.now() + FLOOD_MS;
    // Each Down then Up redraws a 60 KB line: 6 bytes in, 120 KB out.
    const keys = Buffer.from('\x1b[B\x1b[A'.repeat(1000));
    const written = await flood(client, keys, () => tooBig || Date.now() > end);
    const watched = await watch.stop();
    await killed(client);
    await assertServerFine(t, svc, watched);
    t.diagnostic(`${written} bytes of keys sent`);
    assert.ok(written >= 6_000, `only ${written} bytes of keys were sent`);
  });
});

test('ssh -T: 10 MB of newlines, while another client runs whoami', async (t) => {
  await withService(async (svc) => {
    const client = spawnSsh(sshArgs(svc, ['-T']));
    const output: Buffer[] = [];
    client.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
    client.stderr!.on('data', (chunk: Buffer) => output.push(chunk));
    const exited = once(client, 'exit');

    let tooBig = false;
    const watch = watchService(svc.url, RSS_LIMIT_MB, () => (tooBig = true));
    let meanwhile: ReturnType<typeof run> | undefined;
    const deadline = Date.now() + 60_000;
    await flood(client, Buffer.alloc(64 * 1024, '\n'), (written) => {
      // Another client asks for whoami once the flood is well under way.
      if (meanwhile === undefined && written >= MB) {
        meanwhile = run('ssh', sshArgs(svc, [], 'whoami --json'));
      }
      return tooBig || Date.now() > deadline || written >= 10 * MB;
    });
    client.stdin!.end();
    const [code] = (await Promise.race([exited, sleep(60_000).then(() => ['no exit'])])) as [
      number | string,
    ];
    const whoami = await meanwhile!;
    const watched = await watch.stop();
    await killed(client);
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.equal(code, 0, Buffer.concat(output).toString());
    assert.equal(Buffer.concat(output).length, 0, 'blank lines say nothing');
    await assertServerFine(t, svc, watched);
  });
});

test('ssh -T: commands whose output nobody reads stop running until it is read', async (t) => {
  await withService(async (svc) => {
    const client = spawnSsh(sshArgs(svc, ['-T']));
    client.stdout!.pause();
    client.stderr!.pause();
    const helps = () => svc.logs.filter((line) => / cmd="help" status=200 /.test(line)).length;
    // Each 9-byte line answers 7 KB; the flood goes on until the server takes no more input.
    let progress = { written: 0, at: Date.now() };
    const deadline = Date.now() + 30_000;
    await flood(client, Buffer.from('help all\n'.repeat(100)), (written) => {
      if (written !== progress.written) progress = { written, at: Date.now() };
      return Date.now() - progress.at > 1000 || Date.now() > deadline;
    });
    // The client's pipe can also stall for a while when ssh itself is starved of CPU: lines it
    // held may still reach the server and run. So the server's own count must first stand
    // still for 3 s (bounded by the deadline)...
    let stalled = helps();
    for (let still = Date.now(); Date.now() - still < 3_000 && Date.now() < deadline;) {
      await sleep(100);
      if (helps() !== stalled) [stalled, still] = [helps(), Date.now()];
    }
    // ...and then nothing reads, so nothing more may run: give the server time to show it would.
    for (let i = 0; i < 20 && helps() === stalled; i++) await sleep(100);
    const later = helps();
    await killed(client);
    t.diagnostic(`${stalled} commands ran before the input stopped, ${later - stalled} after`);
    assert.ok(Date.now() < deadline, 'the server never stopped taking input');
    assert.equal(later, stalled, 'commands went on running while nobody read their output');
    assert.ok(stalled < 2_000, `${stalled} answers of 7 KB were queued`);
  });
});

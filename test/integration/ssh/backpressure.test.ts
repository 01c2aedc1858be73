// Backpressure on SSH channels (SPEC §6, §9): a real OpenSSH client whose output nobody reads
// stops taking the channel's data once its window is full; the server then pauses the VM
// command instead of buffering its output, and the client leaving frees everything at once.
// A client that keeps opening its window without reading its socket is held back the same way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientChannel } from 'ssh2';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { startVmMachines } from '../../../src/service/vm/index.js';
import { rssGrowth, rssGrowthOver } from '../../helpers/rss.js';
import { startSshHarness, type SshHarness } from './harness.js';
import { connectRawTo, serverChannelId } from './raw-client.js';

let h: SshHarness;
before(async () => {
  h = await startSshHarness({
    registry: buildRegistry(),
    machines: startVmMachines,
    commandDeadlineMs: 120_000,
  });
  const made = await h.ssh('new --name web --json');
  assert.equal(made.code, 0, made.stderr);
});
after(() => h?.close());

test('a client that reads nothing of 500 MB holds the server under 50 MB; leaving frees it', async () => {
  const baseline = process.memoryUsage().rss;
  const client = spawn('ssh', h.sshArgs('ssh web head -c 500000000 /dev/zero'), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The output has started; from now on nobody reads it (the pipe, then ssh, then its window).
  await once(client.stdout, 'data');
  client.stdout.pause();

  const growth = await rssGrowthOver(10_000, baseline);
  assert.ok(growth < 50, `the server grew by ${growth.toFixed(0)} MB`);

  const from = h.logs.length;
  client.kill('SIGKILL');
  await once(client, 'close');
  // Leaving stops the command: its request is over and logged at once.
  for (let i = 0; i < 50 && !h.logs.slice(from).some((l) => / cmd="ssh" /.test(l)); i++) {
    await sleep(100);
  }
  assert.ok(
    h.logs.slice(from).some((l) => / cmd="ssh" /.test(l)),
    'the command stopped',
  );
  assert.ok(rssGrowth(baseline) < 50, `still ${rssGrowth(baseline).toFixed(0)} MB over`);
});

test('a client that opens its window and never reads its socket holds the server under 50 MB', async () => {
  const baseline = process.memoryUsage().rss;
  const raw = await connectRawTo(h.frontEnd.address.port, h.owner.key.path);
  const stream = await new Promise<ClientChannel>((resolve, reject) =>
    raw.client.exec('ssh web head -c 500000000 /dev/zero', (err, s) =>
      err ? reject(err) : resolve(s),
    ),
  );
  await once(stream, 'data');
  // From now on the client reads nothing, and keeps telling the server it may send 256 MiB more.
  raw.socket.pause();
  let peak = 0;
  for (let i = 0; i < 100 && peak < 200; i++) {
    raw.protocol.channelWindowAdjust(serverChannelId(stream), 256 * 1024 * 1024);
    await sleep(50);
    peak = Math.max(peak, rssGrowth(baseline));
  }
  raw.client.destroy();
  assert.ok(peak < 50, `the server grew by ${peak.toFixed(0)} MB`);
});

// The disk watchdog's admission (SPEC §7): room promised to one copy is not promised again to a
// second copy checked at the same time, and comes back when the first one releases it. Measured
// on a tmpfs of its own (as root, as CI runs: no other writer moves its free space), with the
// floor set just under its free space.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { DiskWatchdog } from '../../../../../src/service/vm/disk/watchdog.js';
import { createTempDir } from '../../../../helpers/tmp.js';

const root = process.getuid?.() === 0;

test(
  'two copies checked at once cannot both take the same free space; a release gives it back',
  { skip: !root && 'needs root to mount a tmpfs' },
  async (t) => {
    const dir = await createTempDir('watchdog');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1g', 'tmpfs', dir.path]);
    t.after(async () => {
      execFileSync('umount', [dir.path]);
      await dir.remove();
    });
    const fs = statfsSync(dir.path);
    const free = fs.bavail * fs.bsize;
    // 512 MiB above the floor: enough for one 300 MiB copy, not for two.
    const floor = free - 512 * 2 ** 20;
    const watchdog = new DiskWatchdog(
      dir.path,
      async () => [],
      () => {},
      floor,
    );
    t.after(() => watchdog.stop());
    const need = 300 * 2 ** 20;

    const [first, second] = await Promise.allSettled([
      watchdog.assertRoom('copy vm "a"', need),
      watchdog.assertRoom('copy vm "b"', need),
    ]);
    assert.equal(first.status, 'fulfilled', String((first as PromiseRejectedResult).reason));
    assert.equal(second.status, 'rejected');
    assert.match(
      (second as PromiseRejectedResult).reason.message,
      /^cannot copy vm "b": the server's disk has .* free, under its floor of .* \(it needs 300(\.0)?M\)$/,
    );

    (first as PromiseFulfilledResult<() => void>).value();
    const again = await watchdog.assertRoom('copy vm "b"', need);
    again();
    again(); // a second release gives nothing back twice
    const third = await watchdog.assertRoom('copy vm "c"', need);
    third();
  },
);

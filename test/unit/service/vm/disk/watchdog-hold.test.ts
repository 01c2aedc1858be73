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

    // Both measure the disk at once; which measurement comes back first is the thread pool's
    // choice, so either copy may win. Exactly one does, and the other is refused by name.
    const names = ['a', 'b'];
    const settled = await Promise.allSettled(
      names.map((name) => watchdog.assertRoom(`copy vm "${name}"`, need)),
    );
    const won = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const lost = settled.flatMap((s, i) => (s.status === 'rejected' ? [[names[i], s.reason]] : []));
    assert.equal(won.length, 1, `one copy gets the room: ${settled.map((s) => s.status)}`);
    assert.equal(lost.length, 1);
    const [loser, reason] = lost[0] as [string, Error];
    assert.match(
      reason.message,
      new RegExp(
        `^cannot copy vm "${loser}": the server's disk has .* free, under its floor of .* \\(it needs 300(\\.0)?M\\)$`,
      ),
    );

    won[0]!();
    const again = await watchdog.assertRoom('copy vm "b"', need);
    again();
    again(); // a second release gives nothing back twice
    const third = await watchdog.assertRoom('copy vm "c"', need);
    third();
  },
);

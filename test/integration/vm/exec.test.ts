// What a command sees and how it ends, in both runtimes (real bwrap sandboxes, real processes).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import type { RuntimeKind, VmSpec } from '../../../src/service/vm/index.js';
import { hostPidsWith, openVmFixture, uniqueMarker, type VmFixture } from './fixture.js';

const ABORT_AFTER_MS = 2000;

for (const kind of ['bwrap', 'process'] satisfies RuntimeKind[]) {
  describe(`${kind} runtime: commands`, () => {
    let fx: VmFixture;
    let vm: VmSpec;
    // What HOME and USER are for this runtime: the VM's root, or the server's user in the folder.
    let home: { HOME: string; USER: string };

    before(async () => {
      fx = await openVmFixture(kind);
      vm = await fx.create('web-1', { GREETING: 'hello world', EMPTY: '' });
      home =
        kind === 'bwrap'
          ? { HOME: '/root', USER: 'root' }
          : { HOME: vm.diskDir, USER: userInfo().username };
    });
    after(() => fx.close());

    test('exit codes propagate', async () => {
      for (const [command, exitCode] of [
        ['true', 0],
        ['exit 7', 7],
        ['false', 1],
        ['exit 255', 255],
        ['no-such-command-here', 127],
      ] as const) {
        const ran = await fx.run(vm, command);
        assert.equal(ran.exitCode, exitCode, command);
        assert.equal(ran.aborted, false);
      }
    });

    test('a command killed by a signal reports 128 + n and the signal', async () => {
      const ran = await fx.run(vm, 'kill -TERM $$');
      assert.deepEqual(
        { exitCode: ran.exitCode, signal: ran.signal, aborted: ran.aborted },
        { exitCode: 143, signal: 'SIGTERM', aborted: false },
      );
    });

    test('the env is exactly HOME, USER, PATH, the VM env and the call env', async () => {
      const ran = await fx.run(vm, 'env', {
        env: { EXECTL_REFLECTION_URL: 'http://127.0.0.1:7071/vm/s3cr3t' },
      });
      const lines = ran.output.split('\n').filter((l) => l !== '' && !l.startsWith('PWD='));
      assert.deepEqual(lines.sort(), [
        'EMPTY=',
        'EXECTL_REFLECTION_URL=http://127.0.0.1:7071/vm/s3cr3t',
        'GREETING=hello world',
        `HOME=${home.HOME}`,
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/exectl/bin',
        `USER=${home.USER}`,
      ]);
      // PWD is the shell's own doing (sh sets it), like on any sshd.
      assert.match(ran.output, /^PWD=/m);
    });

    test('the VM env may override PATH; the call env wins over the VM env', async () => {
      const other = { ...vm, env: { PATH: '/usr/bin:/bin', EXECTL_REFLECTION_URL: 'from-vm' } };
      const ran = await fx.run(other, 'echo "$PATH|$EXECTL_REFLECTION_URL"', {
        env: { EXECTL_REFLECTION_URL: 'from-call' },
      });
      assert.equal(ran.output, '/usr/bin:/bin|from-call\n');
    });

    test('the command runs in the home folder with no stdin', async () => {
      const ran = await fx.run(vm, 'pwd; cat; readlink /proc/self/fd/0');
      assert.equal(ran.output, `${home.HOME}\n/dev/null\n`);
    });

    test('stdout and stderr arrive interleaved in the order written', async () => {
      const ran = await fx.run(vm, 'echo a; echo b >&2; echo c; echo d >&2');
      assert.equal(ran.output, 'a\nb\nc\nd\n');
    });

    test('3 MB of output arrives whole and in order', async () => {
      const ran = await fx.run(vm, 'seq 1 450000');
      const expected = Array.from({ length: 450000 }, (_, i) => `${i + 1}\n`).join('');
      assert.ok(expected.length > 3_000_000);
      assert.equal(ran.output.length, expected.length);
      assert.equal(ran.output, expected);
    });

    test('the command line is /bin/sh -c: quoting, pipes and ; are the shell’s', async () => {
      const ran = await fx.run(vm, `printf '%s|' "a b" 'c;d' | tr '|' '\\n'; echo "$0"`);
      assert.equal(ran.output, 'a b\nc;d\n/bin/sh\n');
    });

    test('an aborted command loses its whole tree; the VM answers the next command', async () => {
      const [bg, child, fg, job] = [uniqueMarker(), uniqueMarker(), uniqueMarker(), uniqueMarker()];
      // A background child, a nested shell's child, a job in its own process group (set -m),
      // and the foreground sleep the deadline interrupts.
      const command =
        `sleep ${bg} & sh -c "sleep ${child}" & ` +
        `sh -c "set -m; sleep ${job} & wait" & sleep ${fg}`;
      const started = Date.now();
      const ran = await fx.run(vm, command, { signal: AbortSignal.timeout(ABORT_AFTER_MS) });
      assert.deepEqual(
        { exitCode: ran.exitCode, signal: ran.signal, aborted: ran.aborted },
        { exitCode: 137, signal: 'SIGKILL', aborted: true },
      );
      // Generous window: the point is that the abort, not the 45 s sleep, ended it.
      assert.ok(Date.now() - started < 20_000);
      for (const marker of [bg, child, fg, job]) {
        assert.deepEqual(await hostPidsWith(`sleep ${marker}`), [], `sleep ${marker} survived`);
      }
      const next = await fx.run(vm, 'echo still here');
      assert.equal(next.output, 'still here\n');
    });

    test('a signal aborted before the call rejects without running anything', async () => {
      const marker = uniqueMarker();
      const controller = new AbortController();
      controller.abort(new Error('too late'));
      await assert.rejects(fx.run(vm, `sleep ${marker}`, { signal: controller.signal }), {
        message: 'too late',
      });
      assert.deepEqual(await hostPidsWith(`sleep ${marker}`), []);
    });

    test('a background process keeps running after its command returned', async () => {
      const marker = uniqueMarker();
      const ran = await fx.run(vm, `setsid sleep ${marker} & echo started`);
      assert.equal(ran.output, 'started\n');
      assert.equal((await hostPidsWith(`sleep ${marker}`)).length, 1);
      const seen = await fx.run(vm, 'ps -eo args');
      assert.match(seen.output, new RegExp(`sleep ${marker.replace('.', '\\.')}`));
    });
  });
}

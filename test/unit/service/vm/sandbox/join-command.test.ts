// The host side of a command launch holds nothing of the user's: its argv and env are ours,
// and the user's env and words are only in the payload the in-VM launcher reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { joinLaunch } from '../../../../../src/service/vm/sandbox/join-command.js';
import { singleQuoted } from '../../../../../src/service/vm/process/in-vm-command.js';

const tools = { bwrap: '/b', nsenter: '/usr/bin/nsenter', setpriv: '/s', unshare: '/u' };
const MARK = 'MARK-d41d8c';

const cases = [
  { name: 'user mode', target: { initPid: 42 } },
  { name: 'machine', target: { initPid: 42, machine: { procsFiles: ['/cg/a/cgroup.procs'] } } },
];

for (const { name, target } of cases) {
  test(`${name}: user values are in the payload only`, () => {
    const env = { LD_PRELOAD: `/x/${MARK}.so`, [`K_${MARK.replaceAll('-', '_')}`]: 'v' };
    const launch = joinLaunch(tools, target, env, ['/bin/sh', '-c', `echo ${MARK}`]);
    assert.deepEqual(launch.env, {
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    });
    assert.equal(launch.argv.join(' ').includes(MARK), false);
    assert.equal(launch.argv.join(' ').includes('LD_PRELOAD'), false);
    const payload = launch.payload!.toString();
    assert.equal(
      payload,
      `exec /usr/bin/env -i -- '${'LD_PRELOAD'}=/x/${MARK}.so' 'K_MARK_d41d8c=v' '/bin/sh' '-c' 'echo ${MARK}'`,
    );
    assert.ok(launch.argv.includes(`--target=42`));
    assert.equal(launch.argv.includes('--net'), 'machine' in target);
  });
}

test('single quoting: any text without NUL is one word to /bin/sh, byte for byte', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary' }).filter((t) => !t.includes('\0')),
      (text) => {
        const printed = execFileSync('/bin/sh', ['-c', `printf %s ${singleQuoted(text)}`]);
        assert.equal(printed.toString(), text);
      },
    ),
    { numRuns: 150 },
  );
  assert.equal(singleQuoted("it's"), `'it'\\''s'`);
});

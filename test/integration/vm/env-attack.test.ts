// SPEC §4: nothing a user supplies is read by a process outside the VM. The attack of issue 10:
// `new --env LD_PRELOAD=<a library>` once became the environment of the host-side nsenter,
// which runs as root, so the library's constructor ran as the host's root.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { VmSpec } from '../../../src/service/vm/index.js';
import { openVmFixture, uniqueMarker, type VmFixture } from './fixture.js';

// A library whose constructor leaves a note in /tmp saying who loaded it: on the host that
// note is the proof of the attack, inside the VM it shows the value still works there.
const LIBRARY = `
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void loaded(void) {
  FILE *note = fopen(NOTE, "a");
  if (note) { fprintf(note, "loaded by uid %d\\n", (int)getuid()); fclose(note); }
}`;

describe('bwrap runtime: user values never reach a host-side process', () => {
  let fx: VmFixture;
  let vm: VmSpec;
  const marker = uniqueMarker().replace('.', '-');
  const library = join(tmpdir(), `exectl-preload-${marker}.so`);
  const note = join(tmpdir(), `exectl-preload-${marker}.note`);
  const env = {
    LD_PRELOAD: library,
    LD_LIBRARY_PATH: tmpdir(),
    GCONV_PATH: tmpdir(),
    BASH_ENV: library,
    NODE_OPTIONS: `--require ${library}`,
    PATH: `${tmpdir()}:/usr/bin:/bin`,
  };

  before(async () => {
    const source = join(tmpdir(), `exectl-preload-${marker}.c`);
    await writeFile(source, LIBRARY);
    await promisify(execFile)('cc', [
      '-shared',
      '-fPIC',
      `-DNOTE="${note}"`,
      '-o',
      library,
      source,
    ]);
    await rm(source);
    fx = await openVmFixture('bwrap');
    vm = await fx.create('target', env);
  });
  after(async () => {
    await fx.close();
    await rm(library, { force: true });
    await rm(note, { force: true });
  });

  test('LD_PRELOAD and its kin leave no trace on the host, and still reach the VM’s programs', async () => {
    // The host has the library at that path, so a host process given this env would load it.
    const bytes = (await readFile(library)).toString('base64');
    await fx.run(vm, `echo ${bytes} | base64 -d > ${library}`);
    const ran = await fx.run(
      vm,
      `cat ${note}; printenv LD_PRELOAD LD_LIBRARY_PATH GCONV_PATH BASH_ENV NODE_OPTIONS PATH`,
    );
    assert.equal(existsSync(note), false, 'the library was loaded by a process on the host');
    const values = [env.LD_PRELOAD, env.LD_LIBRARY_PATH, env.GCONV_PATH, env.BASH_ENV];
    // Inside, the VM's own shell and cat loaded it: as the VM's root.
    assert.match(ran.output, /^(loaded by uid 0\n)+/);
    assert.equal(
      ran.output.replace(/^(loaded by uid 0\n)+/, ''),
      [...values, env.NODE_OPTIONS, env.PATH, ''].join('\n'),
    );
  });

  test('a value no host program could survive is data inside: quotes, newlines, $(…)', async () => {
    const tricky = `a'b"c\n$(touch ${note})\`id\` \\ ; | &&`;
    const other = await fx.create('tricky', { TRICKY: tricky });
    const ran = await fx.run(other, 'printf %s "$TRICKY"');
    assert.equal(ran.output, tricky);
    assert.equal(existsSync(note), false);
  });
});

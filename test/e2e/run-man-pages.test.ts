// The man pages of run, ssh, ssh-config, reflect, completion and profile render cleanly within 80 columns,
// document every flag their --help shows, and are named in exectl(1)'s SEE ALSO.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { run } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { REPO, assertBuilt, exectl, renderedManPage as rendered } from './harness.js';

const PAGES = ['run', 'ssh', 'ssh-config', 'reflect', 'completion', 'profile'] as const;

let dir: TempDir;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-man-run');
});
after(() => dir.remove());

test('groff renders each page without a warning; no line passes 80 columns', async () => {
  for (const name of PAGES) {
    const page = join(REPO, 'man', `exectl-${name}.1`);
    const groff = await run('groff', ['-man', '-Tutf8', '-ww', '-z', page]);
    assert.deepEqual([groff.code, groff.stderr], [0, ''], name);
    const text = await rendered(`exectl-${name}`);
    assert.match(text, new RegExp(`^EXECTL-${name.toUpperCase()}\\(1\\)`), name);
    assert.deepEqual(
      text.split('\n').filter((line) => line.length > 80),
      [],
      name,
    );
  }
});

test('every flag in --help is documented in the page', async () => {
  for (const name of PAGES) {
    const help = await exectl([name, '--help'], { home: dir.path });
    assert.equal(help.code, 0, help.stderr);
    const flags = new Set(help.stdout.match(/--[a-z][a-z0-9-]*/g));
    flags.delete('--help');
    const text = await rendered(`exectl-${name}`);
    for (const flag of flags)
      assert.ok(text.includes(flag), `${flag} missing from exectl-${name}(1)`);
  }
});

test('exectl(1) lists each page under its command and in SEE ALSO', async () => {
  const text = await rendered('exectl');
  const seeAlso = text.slice(text.indexOf('\nSEE ALSO'));
  for (const name of PAGES) {
    assert.ok(seeAlso.includes(`exectl-${name}(1)`), `exectl-${name}(1) in SEE ALSO`);
    // A tagged paragraph: the name alone on its line, or followed by its text on the same line.
    const commands = text.slice(text.indexOf('\nCOMMANDS'), text.indexOf('\nGLOBAL OPTIONS'));
    assert.match(commands, new RegExp(`\\n {7}${name}(\\n| {2,})`), `${name} under COMMANDS`);
  }
});

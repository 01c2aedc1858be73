// The man pages render cleanly, document every flag --help shows, and their OpenSSH example
// really verifies a token minted by the built CLI.
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateKey, run } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { REPO, assertBuilt, exectl, renderedManPage as rendered } from './harness.js';

const PAGES = { exectl: [], 'exectl-mint': ['mint'], 'exectl-inspect': ['inspect'] } as const;

let dir: TempDir;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-man');
});
after(() => dir.remove());

test('package.json lists every page', async () => {
  const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { man: string[] };
  for (const page of Object.keys(PAGES)) assert.ok(pkg.man.includes(`man/${page}.1`), page);
});

test('groff renders each page without a warning; no line passes 80 columns', async () => {
  for (const page of Object.keys(PAGES)) {
    const groff = await run('groff', [
      '-man',
      '-Tutf8',
      '-ww',
      '-z',
      join(REPO, 'man', `${page}.1`),
    ]);
    assert.deepEqual([groff.code, groff.stderr], [0, ''], page);
    const long = (await rendered(page)).split('\n').filter((line) => line.length > 80);
    assert.deepEqual(long, [], page);
  }
});

test('every flag in --help is documented in the page', async () => {
  for (const [page, command] of Object.entries(PAGES)) {
    const help = await exectl([...command, '--help'], { home: dir.path });
    const flags = new Set(help.stdout.match(/--[a-z][a-z-]*/g));
    flags.delete('--help');
    assert.ok(flags.size > 0, page);
    const text = await rendered(page);
    for (const flag of flags) assert.ok(text.includes(flag), `${flag} missing from ${page}(1)`);
  }
});

test('exectl-mint(1): the OpenSSH example verifies a minted token', async () => {
  const text = await rendered('exectl-mint');
  const start = text.indexOf('TOKEN=$(exectl mint --key ~/.ssh/id_ed25519)');
  const end = text.indexOf('\nSEE ALSO');
  assert.ok(start > 0 && end > start, 'example found');
  const script = text
    .slice(start, end)
    .split('\n')
    .map((line) => line.replace(/^ {11}/, ''))
    .join('\n');

  await mkdir(dir.join('.ssh'));
  await generateKey(dir.join('.ssh'), 'ed25519', { name: 'id_ed25519' });
  await mkdir(dir.join('bin'));
  const shim = dir.join('bin', 'exectl');
  await writeFile(
    shim,
    `#!/bin/sh\nexec "${process.execPath}" "${join(REPO, 'bin', 'exectl.cjs')}" "$@"\n`,
  );
  await chmod(shim, 0o755);

  const result = await run('sh', ['-ec', `cd "$HOME" && ${script}`], {
    env: { HOME: dir.path, PATH: `${dir.join('bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^Good "v0@localhost" signature for me with ED25519 key SHA256:/);
});

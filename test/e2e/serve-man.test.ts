// exectl-serve(1) renders cleanly and documents every flag `exectl serve ... --help` shows,
// with its EXECTL_* variable.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { run } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { REPO, assertBuilt, exectl } from './harness.js';

const PAGE = join(REPO, 'man', 'exectl-serve.1');
let dir: TempDir;
let text: string;
before(async () => {
  assertBuilt();
  dir = await createTempDir('e2e-serve-man');
  const man = await run('man', ['-l', PAGE], {
    env: { MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
  });
  assert.equal(man.code, 0, man.stderr);
  text = man.stdout;
});
after(() => dir.remove());

test('groff renders it without a warning; no line passes 80 columns', async () => {
  const groff = await run('groff', ['-man', '-Tutf8', '-ww', '-z', PAGE]);
  assert.deepEqual([groff.code, groff.stderr], [0, '']);
  assert.deepEqual(
    text.split('\n').filter((line) => line.length > 80),
    [],
  );
});

test('every flag of serve, its accounts commands, reset, export and import is documented; serve flags with their variable', async () => {
  const helps: [string[], boolean][] = [
    [['serve'], true],
    [['serve', 'accounts', 'add'], false],
    [['serve', 'accounts', 'list'], false],
    [['serve', 'accounts', 'remove'], false],
    [['serve', 'reset'], false],
    [['serve', 'export'], false],
    [['serve', 'import'], false],
  ];
  for (const [command, withVariables] of helps) {
    const help = await exectl([...command, '--help'], { home: dir.path });
    assert.equal(help.code, 0, help.stderr);
    const flags = new Set(help.stdout.match(/--[a-z][a-z-]*/g));
    flags.delete('--help');
    for (const flag of flags)
      assert.ok(text.includes(flag), `${flag} missing from exectl-serve(1)`);
    if (!withVariables) continue;
    // The flags of the Options list (not those quoted in examples) each have a variable.
    const options = [...help.stdout.matchAll(/^ {2}(--[a-z][a-z-]*)/gm)].map((m) => m[1]!);
    assert.ok(options.length >= 14, help.stdout);
    for (const option of options.filter((o) => o !== '--help')) {
      const variable = `EXECTL_${option.slice(2).toUpperCase().replace(/-/g, '_')}`;
      assert.ok(text.includes(variable), `${variable} missing from exectl-serve(1)`);
    }
  }
});

test('the sections a reader looks for are there', () => {
  for (const section of [
    'OPTIONS',
    'FIRST START',
    'SEED FILE',
    'ACCOUNTS',
    'RESET',
    'EXPORT AND IMPORT',
    'HEALTH CHECK',
    'LOGS',
    'SIGNALS',
    'FILES',
    'ENVIRONMENT',
    'EXIT STATUS',
    'EXAMPLES',
  ]) {
    assert.ok(text.includes(`\n${section}\n`), section);
  }
});

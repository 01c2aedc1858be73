// vm/'s host scripts (src/service/vm/scripts/): each one is a file that names its arguments in
// a header, passes shellcheck (sh), `perl -c` (perl), `nft -c` (nftables) or `node --check`
// (cjs), and loads as text through scriptText.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scriptText, type ScriptName } from '../../../../../src/service/vm/scripts/load.js';

const FOLDER = 'src/service/vm/scripts';
const scripts = readdirSync(FOLDER).filter((name) => /\.(sh|pl|nft|cjs)$/.test(name));

test('the scripts folder holds the shell and perl programs of vm/', () => {
  assert.ok(scripts.filter((n) => n.endsWith('.sh')).length >= 8, scripts.join(' '));
  assert.ok(scripts.filter((n) => n.endsWith('.pl')).length >= 3, scripts.join(' '));
});

for (const name of scripts) {
  test(`${name}: its header names it and its arguments`, () => {
    const header = readFileSync(join(FOLDER, name), 'utf8').split('\n').slice(0, 12);
    const mark = name.endsWith('.cjs') ? '//' : '#';
    assert.match(header[0]!, new RegExp(`^${mark} ${name.replace('.', '\\.')}: `));
    assert.ok(
      header.some((line) =>
        new RegExp(`^${mark} .*\\b(arguments?|no argument)\\b`, 'i').test(line),
      ),
      `${name} names no arguments in its header`,
    );
  });

  test(`${name}: loads as text through scriptText`, () => {
    assert.equal(scriptText(name as ScriptName), readFileSync(join(FOLDER, name), 'utf8'));
  });

  if (name.endsWith('.sh')) {
    test(`${name}: shellcheck finds nothing (POSIX sh)`, () => {
      const result = spawnSync('shellcheck', ['--shell=sh', join(FOLDER, name)], {
        encoding: 'utf8',
      });
      assert.equal(result.error, undefined, 'shellcheck is not installed (.ci/run installs it)');
      assert.equal(result.stdout, '');
      assert.equal(result.status, 0);
    });
  } else if (name.endsWith('.nft')) {
    test(`${name}: nft checks it, given its definitions (nothing is loaded)`, () => {
      const defined = ['-D', 'exectl_ids={ 268369920-4294967294 }', '-D', 'resolvers={ 10.0.0.1 }'];
      const result = spawnSync('nft', ['-c', ...defined, '-f', join(FOLDER, name)], {
        encoding: 'utf8',
      });
      assert.equal(result.error, undefined, 'nft is not installed (.ci/run installs nftables)');
      assert.equal(result.stderr, '');
      assert.equal(result.status, 0);
    });
  } else if (name.endsWith('.cjs')) {
    test(`${name}: node parses it`, () => {
      const result = spawnSync(process.execPath, ['--check', join(FOLDER, name)], {
        encoding: 'utf8',
      });
      assert.equal(result.stderr, '');
      assert.equal(result.status, 0);
    });
  } else {
    test(`${name}: perl compiles it`, () => {
      const result = spawnSync('perl', ['-c', join(FOLDER, name)], { encoding: 'utf8' });
      assert.equal(result.stderr.trim(), `${join(FOLDER, name)} syntax OK`);
      assert.equal(result.status, 0);
    });
  }
}

test('shellcheck fails a script with a fault (the check can fail)', () => {
  const result = spawnSync('shellcheck', ['--shell=sh', '-'], {
    input: 'echo $1\n',
    encoding: 'utf8',
  });
  assert.equal(result.status, 1);
  assert.match(result.stdout, /SC2086/);
});

// The completion cache: one file per server and identity under the user's cache folder, used
// for CACHE_LIFETIME_MS, private to the user.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cacheDir } from '../../../../../src/cli/cache-dir.js';
import {
  CACHE_LIFETIME_MS,
  cacheFile,
  readCached,
  writeCached,
} from '../../../../../src/cli/commands/completion/cache.js';
import { createTempDir, type TempDir } from '../../../../helpers/tmp.js';

let dir: TempDir;
before(async () => {
  dir = await createTempDir('completion-cache');
});
after(() => dir.remove());

test('the folder: $XDG_CACHE_HOME/exectl when absolute, else ~/.cache/exectl', () => {
  assert.equal(cacheDir({ HOME: '/h', XDG_CACHE_HOME: '/c' }), '/c/exectl');
  assert.equal(cacheDir({ HOME: '/h', XDG_CACHE_HOME: 'rel' }), '/h/.cache/exectl');
  assert.equal(cacheDir({ HOME: '/h' }), '/h/.cache/exectl');
});

test('one file per identity, named by a hash that shows neither URL nor key', () => {
  const env = { HOME: '/h' };
  const a = cacheFile(env, 'http://a:1\n\nv0@localhost\n');
  assert.match(a, /^\/h\/\.cache\/exectl\/completion-[0-9a-f]{32}\.json$/);
  assert.notEqual(a, cacheFile(env, 'http://b:1\n\nv0@localhost\n'));
  assert.equal(a, cacheFile(env, 'http://a:1\n\nv0@localhost\n'));
});

test('an answer is used for CACHE_LIFETIME_MS (60 s), then asked again', () => {
  assert.equal(CACHE_LIFETIME_MS, 60_000);
  const file = cacheFile({ HOME: dir.path }, 'identity');
  const t0 = 1_700_000_000_000;
  assert.equal(readCached(file, 'vms', t0), undefined, 'nothing before the first write');
  writeCached(file, 'vms', [{ name: 'web', status: 'running' }], t0);
  writeCached(file, 'help-all', [], t0 + 10);
  assert.deepEqual(readCached(file, 'vms', t0 + 59_999), [{ name: 'web', status: 'running' }]);
  assert.deepEqual(readCached(file, 'help-all', t0 + 10), []);
  assert.equal(readCached(file, 'vms', t0 + 60_000), undefined);
  assert.equal(readCached(file, 'vms', t0 - 1), undefined, 'a clock set back is a miss');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(join(file, '..')).mode & 0o777, 0o700);
});

test('an unwritable folder or a broken file is a miss, never an error', async () => {
  // The folder's place is taken by a file: mkdir fails with ENOTDIR.
  await writeFile(dir.join('not-a-dir'), '');
  const file = join(dir.join('not-a-dir'), 'exectl', 'completion.json');
  writeCached(file, 'vms', [], 0);
  assert.equal(readCached(file, 'vms', 0), undefined);
  const broken = dir.join('broken.json');
  await writeFile(broken, '{"vms":');
  assert.equal(readCached(broken, 'vms', 0), undefined);
  writeCached(broken, 'vms', ['x'], 0);
  assert.deepEqual(readCached(broken, 'vms', 0), ['x']);
});

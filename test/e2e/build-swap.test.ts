// `npm run build` never leaves dist/ missing: an exectl started from the same folder during a
// build (a second `npx exectl` while the first one's prepare rebuilds) answers from the old
// build until the new one is swapped in. Built in a copy of the sources, so that the suite's
// own dist/ is left alone.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cp, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createTempDir } from '../helpers/tmp.js';
import { REPO, assertBuilt } from './harness.js';

const SOURCES = ['bin', 'scripts', 'src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

test('exectl --version answers on every run while a build replaces dist/', async () => {
  assertBuilt();
  const dir = await createTempDir('e2e-build-swap');
  try {
    for (const name of [...SOURCES, 'dist']) {
      await cp(join(REPO, name), dir.join(name), { recursive: true });
    }
    await symlink(await realpath(join(REPO, 'node_modules')), dir.join('node_modules'));
    const build = spawn(process.execPath, ['scripts/build.mjs'], { cwd: dir.path, stdio: 'pipe' });
    let buildOutput = '';
    build.stdout.on('data', (chunk: Buffer) => (buildOutput += chunk.toString()));
    build.stderr.on('data', (chunk: Buffer) => (buildOutput += chunk.toString()));
    const built = new Promise<number | null>((resolve) => build.once('exit', resolve));
    let finished = false;
    void built.then(() => (finished = true));
    const failures: string[] = [];
    let runs = 0;
    while (!finished) {
      const version = spawnSync(process.execPath, [dir.join('bin', 'exectl.cjs'), '--version'], {
        encoding: 'utf8',
      });
      runs += 1;
      if (version.status !== 0) failures.push(`exit ${version.status}: ${version.stderr}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(await built, 0, buildOutput);
    assert.deepEqual(failures, []);
    assert.ok(runs > 5, `only ${runs} runs during the build`);
  } finally {
    await dir.remove();
  }
});

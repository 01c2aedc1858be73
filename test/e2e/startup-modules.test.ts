// What the built CLI loads as it starts is what its start-up time is made of
// (bench/cli-startup.bench.ts). `inspect`, `mint` and `--version` must not load the Node
// modules the bundle takes care to avoid: the ES module loader (the bundle and its shim are
// CommonJS), node:fs/promises (readline and file watching come with it) and
// node:child_process (commander's, loaded only if used; scripts/bundle-cli.mjs). A recorder
// preloaded with --require lists every built-in module the process loaded, as it exits.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { generateKey } from '../helpers/keys.js';
import { createTempDir, type TempDir } from '../helpers/tmp.js';
import { assertBuilt, exectl } from './harness.js';

const AVOIDED = [
  'NativeModule internal/modules/esm/loader',
  'NativeModule internal/modules/esm/module_job',
  'NativeModule fs/promises',
  'NativeModule child_process',
];

let dir: TempDir;
let key: string;
let token: string;

before(async () => {
  assertBuilt();
  dir = await createTempDir('startup');
  key = (await generateKey(dir.path, 'ed25519')).path;
  await writeFile(
    dir.join('recorder.cjs'),
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_OUT, process.moduleLoadList.join('\\n')));\n",
  );
  const minted = await exectl(['mint', '--key', key, '--exp', '1h'], { home: dir.path });
  assert.equal(minted.code, 0, minted.stderr);
  token = minted.stdout.trim();
});
after(() => dir.remove());

/** The built-in modules a run of `exectl ...args` loaded. */
async function builtinsLoadedBy(args: string[]): Promise<string[]> {
  const out = dir.join('loaded.txt');
  const result = await exectl(args, {
    home: dir.path,
    env: { NODE_OPTIONS: `--require ${dir.join('recorder.cjs')}`, LOADED_OUT: out },
  });
  assert.equal(result.code, 0, result.stderr);
  return (await readFile(out, 'utf8')).split('\n');
}

for (const [name, args] of [
  ['inspect', () => ['inspect', token]],
  ['mint', () => ['mint', '--key', key]],
  ['--version', () => ['--version']],
] as const) {
  test(`${name} loads neither the ES module loader, node:fs/promises nor node:child_process`, async () => {
    const loaded = await builtinsLoadedBy(args());
    assert.ok(loaded.includes('NativeModule fs'), 'the recorder sees what is loaded');
    assert.deepEqual(
      AVOIDED.filter((m) => loaded.includes(m)),
      [],
    );
  });
}

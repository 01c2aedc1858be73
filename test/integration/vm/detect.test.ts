// Choosing the runtime at start, with a real test sandbox.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { detectRuntime } from '../../../src/service/vm/index.js';
import { newRunDir } from './fixture.js';

const machine = () => ({ runDir: newRunDir(), inbound: () => [] });

test('as root, auto and bwrap choose machine VMs with every guarantee; process is taken as asked', async () => {
  for (const choice of ['auto', 'bwrap'] as const) {
    const found = await detectRuntime(choice, machine());
    assert.deepEqual([found.kind, found.mode.kind, found.warnings], ['bwrap', 'machine', []]);
  }
  assert.deepEqual(await detectRuntime('process', machine()), {
    kind: 'process',
    mode: { kind: 'user' },
    warnings: [],
  });
});

test('where no sandbox can start: auto falls back with a reason, bwrap is a usage error', async () => {
  // A user namespace in which no further user namespace may be made: bwrap cannot work there.
  const script = `
    import { detectRuntime } from ${JSON.stringify(resolve('src/service/vm/index.ts'))};
    const machine = { runDir: '/nonexistent', inbound: () => [] };
    console.log(JSON.stringify(await detectRuntime('auto', machine)));
    const refused = await detectRuntime('bwrap', machine).catch((err) => err);
    console.log(JSON.stringify({ code: refused.code, exit: refused.exitCode, message: refused.message, hint: refused.hint }));`;
  const { stdout } = await promisify(execFile)('unshare', [
    '--user',
    '--map-root-user',
    '/bin/sh',
    '-c',
    'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"',
    'sh',
    process.execPath,
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    script,
  ]);
  const [auto, refused] = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(auto.kind, 'process');
  assert.match(
    auto.reason,
    /^isolated VMs cannot run here \(.+\); VM commands run as plain processes, without isolation$/,
  );
  assert.equal(refused.code, 'cannot_start');
  assert.equal(refused.exit, 2);
  assert.match(refused.message, /^the bwrap runtime cannot run here: .+/);
  assert.equal(
    refused.hint,
    'install bubblewrap (as root also slirp4netns, e2fsprogs), or choose --runtime process',
  );
});

// `cat setup.sh | ssh host defaults write dev.exe new.setup-script` (the real service's
// documented way): the value comes from the exec request's stdin, bounded. Real OpenSSH client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { startSshHarness, type SshHarness } from './harness.js';

let h: SshHarness;
before(async () => {
  h = await startSshHarness({ registry: buildRegistry() });
});
after(() => h?.close());

test('defaults write without a value reads it from stdin, to its end', async () => {
  const script = '#!/bin/bash\necho "it\'s $HOME"\ntouch /tmp/fine\n';
  const wrote = await h.ssh('defaults write dev.exe new.setup-script --json', { input: script });
  assert.equal(wrote.stderr, '');
  assert.equal(wrote.code, 0);
  assert.deepEqual(JSON.parse(wrote.stdout), {
    domain: 'dev.exe',
    key: 'new.setup-script',
    status: 'written',
  });
  const read = await h.ssh('defaults read dev.exe new.setup-script --json');
  assert.deepEqual(JSON.parse(read.stdout), {
    defaults: { 'dev.exe': { 'new.setup-script': script } },
  });
  const text = await h.ssh('defaults write dev.exe new.setup-script', { input: 'true\n' });
  assert.equal(text.stdout, 'written dev.exe new.setup-script\n');
});

test('stdin past 65536 bytes is refused, and nothing is written', async () => {
  await h.ssh('defaults write dev.exe new.setup-script', { input: 'kept\n' });
  const big = await h.ssh('defaults write dev.exe new.setup-script', {
    input: 'x'.repeat(300_000),
  });
  assert.equal(big.stderr, 'error: the value of dev.exe new.setup-script exceeds 65536 bytes\n');
  assert.equal(big.code, 1);
  const read = await h.ssh('defaults read dev.exe new.setup-script --json');
  assert.deepEqual(JSON.parse(read.stdout), {
    defaults: { 'dev.exe': { 'new.setup-script': 'kept\n' } },
  });
});

// `cat k.pub | ssh host ssh-key add` (the real service's documented way): without the argument
// the key comes from the exec request's stdin, one line, bounded. Real OpenSSH client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { buildRegistry } from '../../../src/service/commands/index.js';
import { generateKey } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';
import { startSshHarness, type SshHarness } from './harness.js';

let h: SshHarness;
let dir: TempDir;
before(async () => {
  h = await startSshHarness({ registry: buildRegistry() });
  dir = await createTempDir('key-stdin');
});
after(async () => {
  await h?.close();
  await dir?.remove();
});

test('ssh-key add without an argument registers the key piped in', async () => {
  const key = await generateKey(dir.path, 'ed25519', { name: 'piped', comment: 'ci-runner' });
  const pub = await readFile(key.pubPath, 'utf8');
  const added = await h.ssh('ssh-key add --json', { input: pub });
  assert.equal(added.stderr, '');
  assert.equal(added.code, 0);
  const body = JSON.parse(added.stdout) as Record<string, unknown>;
  assert.deepEqual(
    { name: body.name, public_key: body.public_key, status: body.status },
    { name: 'ci-runner', public_key: pub.trim(), status: 'added' },
  );
});

test('stdin with two keys, nothing, or too much is refused and adds nothing', async () => {
  const a = await generateKey(dir.path, 'ed25519', { name: 'a', comment: 'a' });
  const b = await generateKey(dir.path, 'ed25519', { name: 'b', comment: 'b' });
  const two = (await readFile(a.pubPath, 'utf8')) + (await readFile(b.pubPath, 'utf8'));
  const cases: [input: string, stderr: string][] = [
    [two, 'error: stdin holds 2 lines: give one public key\n'],
    ['\n\n', 'error: missing argument <public-key>: stdin was empty\n'],
    ['x'.repeat(100_000), 'error: the key on stdin exceeds 16384 bytes\n'],
  ];
  for (const [input, stderr] of cases) {
    const refused = await h.ssh('ssh-key add', { input });
    assert.deepEqual({ code: refused.code, stderr: refused.stderr }, { code: 1, stderr });
  }
  const list = JSON.parse((await h.ssh('ssh-key list --json')).stdout) as {
    ssh_keys: { name: string }[];
  };
  assert.deepEqual(
    list.ssh_keys.map((k) => k.name).filter((n) => n === 'a' || n === 'b'),
    [],
  );
});

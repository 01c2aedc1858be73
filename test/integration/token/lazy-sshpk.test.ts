// sshpk is slow to load and only needed to read encrypted, PEM and PKCS#8 private key files:
// `exectl inspect`, the server's verifier and signing with an unencrypted OpenSSH key (what
// ssh-keygen writes by default) must never load it. Checked in a fresh process each time.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKey, run } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

let dir: TempDir;
before(async () => {
  dir = await createTempDir('lazy');
});
after(() => dir.remove());

/** How many sshpk modules are loaded before and after loading `keyPath` in a fresh process. */
async function sshpkModulesAround(keyPath: string): Promise<{ before: number; after: number }> {
  const script = `
    import { createRequire } from 'node:module';
    const sshpkModules = () =>
      Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('/node_modules/sshpk/')).length;
    for (const m of ['format', 'permissions', 'sshsig', 'keys', 'agent', 'signer', 'mint', 'decode', 'verify']) {
      await import(process.env.TOKEN_DIR + m + '.js');
    }
    const before = sshpkModules();
    const { loadPrivateKey } = await import(process.env.TOKEN_DIR + 'keys.js');
    await loadPrivateKey(process.env.KEY, { passphrase: async () => 'pass phrase' });
    console.log(JSON.stringify({ before, after: sshpkModules() }));
  `;
  const result = await run(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      env: { KEY: keyPath, TOKEN_DIR: new URL('../../../src/token/', import.meta.url).href },
    },
  );
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as { before: number; after: number };
}

for (const kind of ['ed25519', 'ecdsa-384', 'rsa-2048'] as const) {
  test(`importing the token library and loading an unencrypted ${kind} key do not load sshpk`, async () => {
    const key = await generateKey(dir.path, kind);
    assert.deepEqual(await sshpkModulesAround(key.path), { before: 0, after: 0 });
  });
}

test('a passphrase-protected key loads sshpk, only then', async () => {
  const key = await generateKey(dir.path, 'ed25519', { name: 'locked', passphrase: 'pass phrase' });
  const counts = await sshpkModulesAround(key.path);
  assert.equal(counts.before, 0);
  assert.ok(counts.after > 0, 'the check can see sshpk once it is loaded');
});

test('a PEM key loads sshpk', async () => {
  const key = await generateKey(dir.path, 'ecdsa-256', { name: 'pem', format: 'pem' });
  assert.ok((await sshpkModulesAround(key.path)).after > 0);
});

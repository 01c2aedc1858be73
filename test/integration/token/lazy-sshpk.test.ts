// sshpk is slow to load and only needed to read private key files: `exectl inspect` and the
// server's verifier must never load it. Checked in a fresh process, where nothing else has.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKey, run } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

let dir: TempDir;
before(async () => {
  dir = await createTempDir('lazy');
});
after(() => dir.remove());

test('importing the token library does not load sshpk; loadPrivateKey does', async () => {
  const key = await generateKey(dir.path, 'ed25519');
  const script = `
    import { createRequire } from 'node:module';
    const sshpkModules = () =>
      Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('/node_modules/sshpk/')).length;
    for (const m of ['format', 'permissions', 'sshsig', 'keys', 'agent', 'signer', 'mint', 'decode', 'verify']) {
      await import(process.env.TOKEN_DIR + m + '.js');
    }
    const before = sshpkModules();
    const { loadPrivateKey } = await import(process.env.TOKEN_DIR + 'keys.js');
    await loadPrivateKey(process.env.KEY, { passphrase: async () => undefined });
    console.log(JSON.stringify({ before, after: sshpkModules() }));
  `;
  const result = await run(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      env: { KEY: key.path, TOKEN_DIR: new URL('../../../src/token/', import.meta.url).href },
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const counts = JSON.parse(result.stdout) as { before: number; after: number };
  assert.equal(counts.before, 0);
  assert.ok(counts.after > 0, 'the check can see sshpk once it is loaded');
});

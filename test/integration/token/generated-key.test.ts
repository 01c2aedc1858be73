import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ExectlError } from '../../../src/errors.js';
import { splitSvc0 } from '../../../src/token/format.js';
import { generateOneShotEd25519Signer } from '../../../src/token/generated-key.js';
import { parsePublicKey } from '../../../src/token/keys.js';
import { mintSvc0 } from '../../../src/token/mint.js';
import { armorSshSig } from '../../../src/token/sshsig.js';
import { verifySvc0 } from '../../../src/token/verify.js';
import { sshKeygenVerify } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

let dir: TempDir;
before(async () => {
  dir = await createTempDir('genkey');
});
after(() => dir.remove());

test('a token signed by the generated key passes ssh-keygen -Y verify and verifySvc0', async () => {
  const signer = generateOneShotEd25519Signer('api-key-2025-03-01');
  const payload = '{"exp":1900000000,"cmds":["whoami"]}';
  const token = await mintSvc0(payload, signer, 'v0@localhost');
  const { sigblob } = splitSvc0(token);
  const line = signer.publicKey.toOpenSsh();

  const result = await sshKeygenVerify({
    dir: dir.path,
    publicKeyLine: line,
    armoredSignature: armorSshSig(sigblob),
    message: payload,
    namespace: 'v0@localhost',
  });
  assert.ok(result.ok, result.stderr);

  const verified = verifySvc0(token, {
    namespace: 'v0@localhost',
    nowSeconds: 1_800_000_000,
    findKey: (fp) => (fp === signer.publicKey.fingerprint ? parsePublicKey(line) : undefined),
  });
  assert.deepEqual(verified.permissions, { exp: 1900000000, cmds: ['whoami'] });
});

test('the public half is an ordinary ed25519 key line with the comment given', () => {
  const signer = generateOneShotEd25519Signer('ci key');
  assert.equal(signer.source, 'generated');
  assert.equal(signer.publicKey.type, 'ssh-ed25519');
  assert.match(signer.publicKey.toOpenSsh(), /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI\S+ ci key$/);
  const reparsed = parsePublicKey(signer.publicKey.toOpenSsh());
  assert.equal(reparsed.fingerprint, signer.publicKey.fingerprint);
  assert.notEqual(
    generateOneShotEd25519Signer('x').publicKey.fingerprint,
    signer.publicKey.fingerprint,
  );
});

test('the private key is dropped after the first signature: a second sign is refused', async () => {
  const signer = generateOneShotEd25519Signer('once');
  await signer.sign(Buffer.from('first'));
  await assert.rejects(signer.sign(Buffer.from('second')), (error: unknown) => {
    assert.ok(error instanceof ExectlError);
    assert.equal(error.code, 'key_error');
    assert.equal(error.message, 'the generated key has already signed and is gone');
    return true;
  });
  await assert.rejects(mintSvc0('{}', signer, 'v0@localhost'), { code: 'key_error' });
});

// The project's own reader of unencrypted OpenSSH private keys against sshpk, byte for byte:
// for every key type, keys written by ssh-keygen and by sshpk, any comment and any message,
// both readers give the same private JWK, the same public key blob and fingerprint (also
// sshpk's own), and signatures that agree (ed25519 and RSA are deterministic: equal bytes;
// ECDSA is randomized: each verifies under the other's public key).
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import sshpk from 'sshpk';
import { ExectlError } from '../../../src/errors.js';
import { signerFromMaterial } from '../../../src/token/key-import.js';
import { loadPrivateKey, verifyWireSignature } from '../../../src/token/keys.js';
import { readOpenSshKeyFile } from '../../../src/token/openssh-private-key.js';
import { readWithSshpk } from '../../../src/token/sshpk-private-key.js';
import { ALL_KEY_KINDS, generateKey, run, type KeyKind } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const noPassphrase = async (): Promise<string | undefined> => {
  throw new Error('an unencrypted key must not ask for a passphrase');
};

let dir: TempDir;
const keys = new Map<KeyKind, Buffer>();
before(async () => {
  dir = await createTempDir('openssh-key');
  for (const kind of ALL_KEY_KINDS)
    keys.set(kind, await readFile((await generateKey(dir.path, kind)).path));
});
after(() => dir.remove());

/** Writes `kind`'s key with `comment`, re-encoded by ssh-keygen (`-c`) or by sshpk. */
async function keyFile(kind: KeyKind, comment: string, writer: 'ssh-keygen' | 'sshpk', n: number) {
  const path = join(dir.path, `k${n}`);
  const original = keys.get(kind)!;
  if (writer === 'sshpk') {
    const key = sshpk.parsePrivateKey(original, 'ssh');
    key.comment = comment;
    await writeFile(path, key.toBuffer('ssh'), { mode: 0o600 });
  } else {
    await writeFile(path, original, { mode: 0o600 });
    const result = await run('ssh-keygen', ['-q', '-c', '-C', comment, '-f', path]);
    assert.equal(result.code, 0, result.stderr);
  }
  return { path, file: await readFile(path) };
}

describe('unencrypted OpenSSH keys: the own reader agrees with sshpk', () => {
  let n = 0;
  test('same JWK, public key, fingerprint and comment; signatures agree', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ALL_KEY_KINDS),
        // ssh-keygen takes the comment as one argv word: no NUL; sshpk writes any string.
        fc.string({ unit: 'grapheme', maxLength: 40 }).filter((c) => !c.includes('\0')),
        fc.constantFrom('ssh-keygen' as const, 'sshpk' as const),
        fc.uint8Array({ maxLength: 200 }),
        async (kind, comment, writer, message) => {
          const { path, file } = await keyFile(kind, comment, writer, n++);
          const own = readOpenSshKeyFile(file, path);
          assert.ok(own?.material !== undefined, 'the own reader reads it');
          const viaSshpk = await readWithSshpk(file, path, noPassphrase);
          assert.deepEqual(own.material, viaSshpk);

          const signer = await loadPrivateKey(path, { passphrase: noPassphrase });
          const other = signerFromMaterial(viaSshpk, path);
          const reference = sshpk.parsePrivateKey(file, 'ssh');
          assert.ok(signer.publicKey.blob.equals(other.publicKey.blob));
          assert.ok(signer.publicKey.blob.equals(reference.toPublic().toBuffer('rfc4253')));
          assert.ok(signer.publicKey.blob.equals(own.publicBlob));
          assert.equal(signer.publicKey.fingerprint, reference.fingerprint('sha256').toString());
          assert.equal(signer.publicKey.comment, comment);
          assert.equal(signer.publicKey.toOpenSsh(), other.publicKey.toOpenSsh());

          const [mine, theirs] = [await signer.sign(message), await other.sign(message)];
          if (kind.startsWith('ecdsa')) {
            assert.ok(verifyWireSignature(other.publicKey, message, mine));
            assert.ok(verifyWireSignature(signer.publicKey, message, theirs));
          } else {
            assert.ok(mine.equals(theirs), 'deterministic signatures are byte-identical');
            assert.ok(verifyWireSignature(signer.publicKey, message, mine));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

/** Re-armors an OpenSSH key body as a private key file. */
function armor(body: Buffer): Buffer {
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return Buffer.from(
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
}

function body(file: Buffer): Buffer {
  const text = file.toString('latin1').replace(/-----[A-Z ]+-----|\s/g, '');
  return Buffer.from(text, 'base64');
}

describe('the own reader refuses malformed unencrypted keys', () => {
  test('any byte changed or cut: a key_error, or the very same public key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ALL_KEY_KINDS.filter((k) => !k.startsWith('rsa-4'))),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.boolean(),
        async (kind, at, xor, cut) => {
          const bytes = Buffer.from(body(keys.get(kind)!));
          const original = readOpenSshKeyFile(keys.get(kind)!, 'original')!.publicBlob;
          const index = at % bytes.length;
          const changed = cut ? bytes.subarray(0, index) : bytes;
          if (!cut) changed[index] = changed[index]! ^ xor;
          const path = join(dir.path, 'broken');
          await writeFile(path, armor(changed), { mode: 0o600 });
          try {
            const signer = await loadPrivateKey(path, { passphrase: async () => undefined });
            // A change the format cannot see (the comment, an RSA prime) leaves the public key
            // whole: any change that reaches it is refused by the header check.
            assert.ok(signer.publicKey.blob.equals(original));
          } catch (error) {
            assert.ok(error instanceof ExectlError, String(error));
            assert.equal(error.code, 'key_error');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

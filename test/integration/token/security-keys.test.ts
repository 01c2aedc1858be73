// FIDO security-key signatures (sk-ssh-ed25519, sk-ecdsa-sha2-nistp256). No authenticator is
// available here, so the test plays one in software exactly as PROTOCOL.u2f describes; real
// ssh-keygen then judges the same signatures, so verifySvc0 is checked against OpenSSH.
import assert from 'node:assert/strict';
import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { joinSvc0 } from '../../../src/token/format.js';
import { parsePublicKey, type PublicKey } from '../../../src/token/keys.js';
import { armorSshSig, encodeSshSig, signedData } from '../../../src/token/sshsig.js';
import { sshMpint, sshString, sshUint32 } from '../../../src/token/ssh-wire.js';
import { verifySvc0 } from '../../../src/token/verify.js';
import { sshKeygenVerify } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const NS = 'v0@localhost';
const APPLICATION = 'ssh:';
const PAYLOAD = Buffer.from('{"cmds":["whoami"]}');

interface SoftwareSecurityKey {
  type: string;
  publicKeyLine: string;
  /** The SSHSIG blob an authenticator with these flags and counter would produce. */
  sigblob(flags: number, counter: number): Buffer;
}

function jwkBytes(key: KeyObject, field: 'x' | 'y'): Buffer {
  return Buffer.from(String(createPublicKey(key).export({ format: 'jwk' })[field]), 'base64url');
}

function softwareKey(kind: 'ed25519' | 'ecdsa'): SoftwareSecurityKey {
  const type =
    kind === 'ed25519' ? 'sk-ssh-ed25519@openssh.com' : 'sk-ecdsa-sha2-nistp256@openssh.com';
  const { privateKey } =
    kind === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyBody =
    kind === 'ed25519'
      ? sshString(jwkBytes(privateKey, 'x'))
      : Buffer.concat([
          sshString('nistp256'),
          sshString(
            Buffer.concat([Buffer.of(4), jwkBytes(privateKey, 'x'), jwkBytes(privateKey, 'y')]),
          ),
        ]);
  const blob = Buffer.concat([sshString(type), keyBody, sshString(APPLICATION)]);
  return {
    type,
    publicKeyLine: `${type} ${blob.toString('base64')} fido`,
    sigblob(flags, counter) {
      const data = signedData(NS, 'sha512', PAYLOAD);
      const tail = Buffer.concat([Buffer.of(flags), sshUint32(counter)]);
      const message = Buffer.concat([
        createHash('sha256').update(APPLICATION).digest(),
        tail,
        createHash('sha256').update(data).digest(),
      ]);
      let raw: Buffer;
      if (kind === 'ed25519') {
        raw = sign(null, message, privateKey);
      } else {
        const size = 32;
        const p1363 = sign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' });
        raw = Buffer.concat([sshMpint(p1363.subarray(0, size)), sshMpint(p1363.subarray(size))]);
      }
      const signature = Buffer.concat([sshString(type), sshString(raw), tail]);
      return encodeSshSig({
        publicKey: blob,
        namespace: NS,
        reserved: Buffer.alloc(0),
        hashAlgorithm: 'sha512',
        signature,
      });
    },
  };
}

describe('security-key (sk-*) signatures', () => {
  let dir: TempDir;
  before(async () => {
    dir = await createTempDir('sk');
  });
  after(() => dir.remove());

  for (const kind of ['ed25519', 'ecdsa'] as const) {
    const sk = softwareKey(kind);
    const publicKey: PublicKey = parsePublicKey(sk.publicKeyLine);
    const verify = (sigblob: Buffer) =>
      verifySvc0(joinSvc0(PAYLOAD, sigblob), {
        namespace: NS,
        nowSeconds: 1_800_000_000,
        findKey: (fp) => (fp === publicKey.fingerprint ? publicKey : undefined),
      });
    const openssh = (sigblob: Buffer) =>
      sshKeygenVerify({
        dir: dir.path,
        publicKeyLine: sk.publicKeyLine,
        armoredSignature: armorSshSig(sigblob),
        message: PAYLOAD,
        namespace: NS,
      });

    test(`${sk.type}: a touched signature passes ssh-keygen and verifySvc0`, async () => {
      const sigblob = sk.sigblob(0x01, 42);
      const checked = await openssh(sigblob);
      assert.equal(checked.ok, true, checked.stderr);
      assert.equal(verify(sigblob).fingerprint, publicKey.fingerprint);
      assert.equal(publicKey.bits, 256);
    });

    test(`${sk.type}: without the user-presence flag both accept it, as OpenSSH 9.2 does`, async () => {
      const sigblob = sk.sigblob(0x00, 43);
      const checked = await openssh(sigblob);
      assert.equal(checked.ok, true, checked.stderr);
      assert.equal(verify(sigblob).fingerprint, publicKey.fingerprint);
    });

    test(`${sk.type}: a changed counter or flags byte breaks the signature`, () => {
      // Flags and counter are the last 5 bytes of the blob, outside the raw signature but
      // covered by it: changing either must break it.
      for (const offset of [1, 5]) {
        const sigblob = sk.sigblob(0x01, 7);
        sigblob[sigblob.length - offset]! ^= 0x04;
        assert.throws(() => verify(sigblob), { reason: 'rejected', message: 'invalid token' });
      }
    });
  }
});

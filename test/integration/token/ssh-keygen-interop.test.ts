// SPEC §1.1: tokens exectl mints must pass `ssh-keygen -Y verify`, and tokens made with the
// shell recipe must pass exectl's verifier — for every key type and both SSHSIG hashes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { splitSvc0 } from '../../../src/token/format.js';
import { loadPrivateKey, parsePublicKey, type PublicKey } from '../../../src/token/keys.js';
import { mintSvc0 } from '../../../src/token/mint.js';
import { armorSshSig, dearmorSshSig, parseSshSig } from '../../../src/token/sshsig.js';
import { verifySvc0 } from '../../../src/token/verify.js';
import {
  ALL_KEY_KINDS,
  generateKey,
  mintWithShellRecipe,
  run,
  sshKeygenSign,
  sshKeygenVerify,
  type GeneratedKey,
  type KeyKind,
} from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const PAYLOAD = '{"exp":1900000000,"cmds":["whoami"]}';
const NAMESPACE = 'v0@localhost';
const NOW = 1_800_000_000;
const noPassphrase = async (): Promise<string | undefined> => undefined;

function onlyKey(key: PublicKey) {
  return (fingerprint: string) => (fingerprint === key.fingerprint ? key : undefined);
}

describe('SSHSIG interoperability with OpenSSH ssh-keygen', () => {
  let dir: TempDir;
  const keys = new Map<KeyKind, GeneratedKey>();

  before(async () => {
    dir = await createTempDir('interop');
    for (const kind of ALL_KEY_KINDS) keys.set(kind, await generateKey(dir.path, kind));
  });
  after(() => dir.remove());

  const keyOf = (kind: KeyKind): GeneratedKey => keys.get(kind) as GeneratedKey;

  for (const kind of ALL_KEY_KINDS) {
    test(`${kind}: a token from mintSvc0 passes ssh-keygen -Y verify, for its namespace only`, async () => {
      const key = keyOf(kind);
      const signer = await loadPrivateKey(key.path, { passphrase: noPassphrase });
      const token = await mintSvc0(PAYLOAD, signer, NAMESPACE);
      const { payload, sigblob } = splitSvc0(token);
      assert.equal(payload.toString('utf8'), PAYLOAD);
      const sig = parseSshSig(sigblob);
      assert.equal(sig.hashAlgorithm, 'sha512');
      assert.equal(
        sig.signatureAlgorithm,
        kind.startsWith('rsa') ? 'rsa-sha2-512' : key.publicKeyLine.split(' ')[0],
      );

      const common = { dir: dir.path, publicKeyLine: key.publicKeyLine, message: payload };
      const armoredSignature = armorSshSig(sigblob);
      const good = await sshKeygenVerify({ ...common, armoredSignature, namespace: NAMESPACE });
      assert.equal(good.ok, true, good.stderr);
      assert.match(good.stdout, /^Good "v0@localhost" signature for tester@exectl with /);
      const other = await sshKeygenVerify({ ...common, armoredSignature, namespace: 'v0@other' });
      assert.equal(other.ok, false);
    });

    for (const hashAlgorithm of ['sha512', 'sha256'] as const) {
      test(`${kind}: a shell-recipe token signed with ${hashAlgorithm} passes verifySvc0`, async () => {
        const key = keyOf(kind);
        const publicKey = parsePublicKey(key.publicKeyLine);
        // ssh-keygen hashes with sha512 by default: the recipe runs verbatim for that case.
        const opts = hashAlgorithm === 'sha256' ? { hashAlgorithm } : {};
        const token = await mintWithShellRecipe(key, PAYLOAD, NAMESPACE, opts);
        const verified = verifySvc0(token, {
          namespace: NAMESPACE,
          nowSeconds: NOW,
          findKey: onlyKey(publicKey),
        });
        assert.deepEqual(verified, {
          permissions: { exp: 1900000000, cmds: ['whoami'] },
          payload: Buffer.from(PAYLOAD),
          fingerprint: publicKey.fingerprint,
          namespace: NAMESPACE,
          hashAlgorithm,
        });
      });
    }
  }

  test('armorSshSig reproduces ssh-keygen armor byte for byte (70 columns, LF)', async () => {
    for (const kind of ['ed25519', 'rsa-4096'] as const) {
      const printed = await sshKeygenSign(keyOf(kind), 'message', NAMESPACE);
      assert.equal(armorSshSig(dearmorSshSig(printed)), printed);
    }
  });

  test('the fingerprint matches ssh-keygen -lf for every key type', async () => {
    for (const kind of ALL_KEY_KINDS) {
      const key = keyOf(kind);
      const listed = await run('ssh-keygen', ['-lf', key.pubPath]);
      const [bits, fingerprint] = listed.stdout.split(' ');
      const publicKey = parsePublicKey(key.publicKeyLine);
      assert.equal(publicKey.fingerprint, fingerprint);
      assert.equal(String(publicKey.bits), bits);
    }
  });
});

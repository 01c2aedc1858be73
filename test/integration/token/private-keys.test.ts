// loadPrivateKey with files written by real ssh-keygen: formats, passphrases, ciphers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ExectlError } from '../../../src/errors.js';
import { splitSvc0 } from '../../../src/token/format.js';
import { loadPrivateKey, parsePublicKey, type Signer } from '../../../src/token/keys.js';
import { mintSvc0 } from '../../../src/token/mint.js';
import { armorSshSig } from '../../../src/token/sshsig.js';
import { generateKey, run, sshKeygenVerify, type GeneratedKey } from '../../helpers/keys.js';
import { createTempDir, type TempDir } from '../../helpers/tmp.js';

const NS = 'v0@localhost';

/** A passphrase source that records how often it was asked. */
function passphrase(value: string | undefined) {
  const source = async () => {
    source.calls++;
    return value;
  };
  source.calls = 0;
  return source;
}

async function assertSignsForOpenSsh(dir: TempDir, key: GeneratedKey, signer: Signer) {
  assert.equal(signer.publicKey.fingerprint, parsePublicKey(key.publicKeyLine).fingerprint);
  assert.equal(signer.source, key.path);
  const token = await mintSvc0('{"cmds":["whoami"]}', signer, NS);
  const { payload, sigblob } = splitSvc0(token);
  const result = await sshKeygenVerify({
    dir: dir.path,
    publicKeyLine: key.publicKeyLine,
    armoredSignature: armorSshSig(sigblob),
    message: payload,
    namespace: NS,
  });
  assert.equal(result.ok, true, result.stderr);
}

describe('loadPrivateKey', () => {
  let dir: TempDir;
  before(async () => {
    dir = await createTempDir('privkeys');
  });
  after(() => dir.remove());

  test('an unencrypted key loads without asking for a passphrase, comment kept', async () => {
    const key = await generateKey(dir.path, 'ed25519', { name: 'plain', comment: 'me@laptop' });
    const ask = passphrase('unused');
    const signer = await loadPrivateKey(key.path, { passphrase: ask });
    assert.equal(ask.calls, 0);
    assert.equal(signer.publicKey.comment, 'me@laptop');
    await assertSignsForOpenSsh(dir, key, signer);
  });

  for (const kind of ['ed25519', 'ecdsa-256', 'rsa-2048'] as const) {
    test(`${kind} with a passphrase: the right one signs, asked exactly once`, async () => {
      const key = await generateKey(dir.path, kind, {
        name: `pass-${kind}`,
        passphrase: 'correct horse',
      });
      const ask = passphrase('correct horse');
      const signer = await loadPrivateKey(key.path, { passphrase: ask });
      assert.equal(ask.calls, 1);
      await assertSignsForOpenSsh(dir, key, signer);
    });
  }

  test('a wrong passphrase is a one-line key_error naming the file', async () => {
    const key = await generateKey(dir.path, 'ed25519', { name: 'wrongpass', passphrase: 'right' });
    await assert.rejects(
      loadPrivateKey(key.path, { passphrase: passphrase('wrong') }),
      (error: ExectlError) => {
        assert.equal(error.name, 'ExectlError');
        assert.equal(error.code, 'key_error');
        assert.equal(error.message, `wrong passphrase for ${key.path}`);
        assert.ok(!error.message.includes('\n'));
        assert.equal(error.hint, 'check EXECTL_PASSPHRASE or the passphrase typed');
        return true;
      },
    );
  });

  test('a missing passphrase names EXECTL_PASSPHRASE and the terminal prompt', async () => {
    const key = await generateKey(dir.path, 'ed25519', { name: 'nopass', passphrase: 'secret' });
    await assert.rejects(loadPrivateKey(key.path, { passphrase: passphrase(undefined) }), {
      code: 'key_error',
      message: `${key.path} is protected by a passphrase`,
      hint: 'set EXECTL_PASSPHRASE, or run exectl on a terminal to be asked for it',
    });
  });

  for (const cipher of ['aes256-gcm@openssh.com', 'chacha20-poly1305@openssh.com']) {
    test(`a key encrypted with ${cipher} is refused with a pointer to ssh-agent`, async () => {
      const key = await generateKey(dir.path, 'ed25519', {
        name: `c-${cipher.slice(0, 6)}`,
        passphrase: 'pw',
        cipher,
      });
      const ask = passphrase('pw');
      await assert.rejects(loadPrivateKey(key.path, { passphrase: ask }), {
        code: 'key_error',
        message: `${key.path} is encrypted with ${cipher}, which exectl cannot read`,
        hint: 'load it into ssh-agent with `ssh-add` and exectl will sign through the agent',
      });
      assert.equal(ask.calls, 0);
    });
  }

  for (const format of ['pem', 'pkcs8'] as const) {
    for (const kind of ['ecdsa-384', 'rsa-2048'] as const) {
      test(`${format.toUpperCase()} ${kind} loads and signs`, async () => {
        const key = await generateKey(dir.path, kind, { name: `${format}-${kind}`, format });
        await assertSignsForOpenSsh(
          dir,
          key,
          await loadPrivateKey(key.path, { passphrase: passphrase(undefined) }),
        );
      });
    }
  }

  const failures: [string, (d: TempDir) => Promise<string>, (path: string) => string][] = [
    ['a missing file', async (d) => d.join('absent'), (p) => `cannot read key file ${p} (ENOENT)`],
    [
      'a public key given as the private key',
      async (d) => (await generateKey(d.path, 'ed25519', { name: 'pubonly' })).pubPath,
      (p) => `cannot read ${p} as an SSH private key`,
    ],
    [
      'an RSA key below 2048 bits',
      async (d) => {
        await run('ssh-keygen', [
          '-q',
          '-t',
          'rsa',
          '-b',
          '1024',
          '-N',
          '',
          '-f',
          d.join('rsa1024'),
        ]);
        return d.join('rsa1024');
      },
      () => 'RSA key of 1024 bits is too small',
    ],
  ];
  for (const [name, make, message] of failures) {
    test(`${name} is a key_error`, async () => {
      const path = await make(dir);
      await assert.rejects(loadPrivateKey(path, { passphrase: passphrase(undefined) }), {
        code: 'key_error',
        message: message(path),
      });
    });
  }
});

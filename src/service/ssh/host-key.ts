import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import ssh2 from 'ssh2';
import { ExectlError } from '../../errors.js';
import { fingerprintOf } from '../../token/keys.js';

/** The server's SSH identity: what ssh2 serves and what users pin in known_hosts. */
interface HostKey {
  /** OpenSSH private key text, handed to ssh2's `hostKeys`. Never logged. */
  privateKey: string;
  /** The public key as one known_hosts / .pub line: `ssh-ed25519 AAAA...`. */
  publicKey: string;
  /** `SHA256:...`, what `ssh-keygen -lf` and the first-connection prompt of `ssh` show. */
  fingerprint: string;
}

/**
 * Reads the host key at `path`, or creates an ed25519 key there on first start, so that
 * clients see the same host key after every restart. The file is created with mode 0600 and
 * appears whole or not at all: it is written to a temporary name and then hard-linked into
 * place, which fails if another process got there first (then its key is used). A `.pub` copy
 * is written beside it for users who want to pin the key ahead of their first connection.
 */
export async function loadOrCreateHostKey(path: string): Promise<HostKey> {
  const existing = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (existing !== undefined) return describe(path, existing);

  const generated = await openSshPrivateKey(generateKeyPairSync('ed25519').privateKey);
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, generated, { mode: 0o600, flush: true });
  try {
    await link(temporary, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(temporary);
  }
  const key = describe(path, await readFile(path, 'utf8'));
  await writeFile(`${path}.pub`, key.publicKey + '\n', { mode: 0o644 });
  return key;
}

/**
 * An ed25519 private key as OpenSSH private key text, the form ssh2 and ssh-keygen load.
 * Not `ssh2.utils.generateKeyPairSync('ed25519')`: it drops a leading zero byte of the key —
 * about one key in 300 (measured on ssh2 1.17) — and writes a file that neither ssh2 nor
 * ssh-keygen can load, so the server could not start.
 */
export async function openSshPrivateKey(key: KeyObject): Promise<string> {
  const { default: sshpk } = await import('sshpk');
  // From its parts rather than parsed from PKCS#8: that parse recomputes the public half in
  // pure JavaScript (tweetnacl), about 30 ms per key, where node:crypto already gives it.
  const { x, d } = key.export({ format: 'jwk' });
  const part = (name: 'A' | 'k', base64url: string | undefined) => ({
    name,
    data: Buffer.from(base64url ?? '', 'base64url'),
  });
  const parts = [part('A', x), part('k', d)];
  return new sshpk.PrivateKey({ type: 'ed25519', parts }).toString('ssh');
}

function describe(path: string, privateKey: string): HostKey {
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error || Array.isArray(parsed) || !parsed.isPrivateKey()) {
    throw new ExectlError(
      'cannot_start',
      `SSH host key ${path} is not an unencrypted private key`,
      {
        hint: 'move the file away and a new host key is generated at the next start',
      },
    );
  }
  const blob = parsed.getPublicSSH();
  return {
    privateKey,
    publicKey: `${parsed.type} ${blob.toString('base64')}`,
    fingerprint: fingerprintOf(blob),
  };
}

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ExectlError } from '../errors.js';
import { listAgentSigners } from './agent.js';
import { loadPrivateKey, parsePublicKey, type Signer } from './keys.js';

/** The files tried in `~/.ssh` when neither `--key` nor an agent key is available (§1.4). */
export const DEFAULT_KEY_FILES = ['id_ed25519', 'id_ecdsa', 'id_rsa'] as const;

/**
 * The agent's keys, or none when no agent is configured or it cannot be reached: a stale
 * SSH_AUTH_SOCK is common and must not stop the key files from being used.
 */
export async function agentSigners(agentSocket: string | undefined): Promise<Signer[]> {
  if (agentSocket === undefined || agentSocket === '') return [];
  try {
    return await listAgentSigners(agentSocket);
  } catch (error) {
    if (error instanceof ExectlError) return [];
    throw error;
  }
}

/**
 * Whether `path` names a regular file (a key file to try); false when it cannot be read. Key
 * files are looked at synchronously, as key-import.ts reads them, and for the same reason.
 */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** One key exectl may sign with, before it is loaded (a file may need a passphrase). */
export interface KeyCandidate {
  /** `ssh-agent`, or the path of the private key file. */
  readonly source: 'ssh-agent' | { readonly path: string };
  /**
   * SHA256 fingerprint: the agent key's, or that of the `.pub` beside the file; undefined for
   * a file without a readable `.pub` (it is known once loaded).
   */
  readonly fingerprint: string | undefined;
  /**
   * The signer: the agent's, or the file loaded (`passphrase` is asked only when it is
   * encrypted).
   *
   * @throws ExectlError `key_error` when the file cannot be read, parsed or decrypted.
   */
  signer(passphrase: () => Promise<string | undefined>): Promise<Signer>;
}

function agentCandidate(signer: Signer): KeyCandidate {
  return {
    source: 'ssh-agent',
    fingerprint: signer.publicKey.fingerprint,
    signer: () => Promise.resolve(signer),
  };
}

function fileCandidate(path: string): KeyCandidate {
  let fingerprint: string | undefined;
  try {
    fingerprint = parsePublicKey(readFileSync(`${path}.pub`, 'utf8')).fingerprint;
  } catch {
    // No readable .pub beside the key: its fingerprint is known once the file is loaded.
    fingerprint = undefined;
  }
  return {
    source: { path },
    fingerprint,
    signer: (passphrase) => loadPrivateKey(path, { passphrase }),
  };
}

/**
 * Every key exectl may sign with, in the SPEC §1.4 order. With `keyPath`: the agent's copy of
 * it (the agent key matching `keyPath + '.pub'`: no passphrase needed) when the agent holds
 * it, then the file itself. Without: every agent key in the agent's order, then those of
 * `~/.ssh/id_ed25519`, `id_ecdsa`, `id_rsa` in `homeDir` that exist. Nothing is loaded yet.
 *
 * @param opts.agentSocket the ssh-agent socket (SSH_AUTH_SOCK); an unreachable agent is skipped.
 */
export async function keyCandidates(opts: {
  keyPath?: string | undefined;
  agentSocket?: string | undefined;
  homeDir: string;
}): Promise<KeyCandidate[]> {
  if (opts.keyPath !== undefined) {
    const file = fileCandidate(opts.keyPath);
    if (file.fingerprint === undefined) return [file];
    const agent = await agentSigners(opts.agentSocket);
    const copy = agent.find((s) => s.publicKey.fingerprint === file.fingerprint);
    return copy === undefined ? [file] : [agentCandidate(copy), file];
  }
  const agent = await agentSigners(opts.agentSocket);
  const files = DEFAULT_KEY_FILES.map((name) => join(opts.homeDir, '.ssh', name)).filter(isFile);
  return [...agent.map(agentCandidate), ...files.map(fileCandidate)];
}

/**
 * Picks the key that signs: the first of {@link keyCandidates}, loaded.
 *
 * @param opts.passphrase asked only when the chosen key file is encrypted.
 * @throws ExectlError `key_error` when no key is found, or the chosen file cannot be loaded.
 */
export async function chooseSigner(opts: {
  keyPath?: string;
  agentSocket?: string;
  homeDir: string;
  passphrase: () => Promise<string | undefined>;
}): Promise<Signer> {
  const [first] = await keyCandidates(opts);
  if (first === undefined) throw noKeyFound();
  return first.signer(opts.passphrase);
}

/** No key to sign with at all (SPEC §1.4 sources all empty). */
export function noKeyFound(): ExectlError {
  return new ExectlError('key_error', 'no SSH key found', {
    hint: 'create one with `ssh-keygen -t ed25519`, or pass --key PATH',
  });
}

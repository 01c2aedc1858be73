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

/** The agent key whose public half is in `pubPath`, if that file exists and the agent has it. */
async function agentKeyMatching(
  pubPath: string,
  agentSocket: string | undefined,
): Promise<Signer | undefined> {
  if (agentSocket === undefined || agentSocket === '') return undefined;
  let wanted: Buffer;
  try {
    wanted = parsePublicKey(readFileSync(pubPath, 'utf8')).blob;
  } catch {
    // No readable .pub beside the key: the file itself will be used.
    return undefined;
  }
  const signers = await agentSigners(agentSocket);
  return signers.find((s) => s.publicKey.blob.equals(wanted));
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

/**
 * Picks the key that signs, in the SPEC §1.4 order. With `keyPath`: the agent key matching
 * `keyPath + '.pub'` when the agent holds it (no passphrase needed), else the file itself.
 * Without: the agent's first key, else `~/.ssh/id_ed25519`, `id_ecdsa`, `id_rsa` in `homeDir`.
 *
 * @param opts.agentSocket the ssh-agent socket (SSH_AUTH_SOCK); an unreachable agent is skipped.
 * @param opts.passphrase asked only when the chosen key file is encrypted.
 * @throws ExectlError `key_error` when no key is found, or the chosen file cannot be loaded.
 */
export async function chooseSigner(opts: {
  keyPath?: string;
  agentSocket?: string;
  homeDir: string;
  passphrase: () => Promise<string | undefined>;
}): Promise<Signer> {
  const load = (path: string) => loadPrivateKey(path, { passphrase: opts.passphrase });
  if (opts.keyPath !== undefined) {
    const fromAgent = await agentKeyMatching(`${opts.keyPath}.pub`, opts.agentSocket);
    return fromAgent ?? load(opts.keyPath);
  }
  const [firstAgentKey] = await agentSigners(opts.agentSocket);
  if (firstAgentKey !== undefined) return firstAgentKey;
  for (const name of DEFAULT_KEY_FILES) {
    const path = join(opts.homeDir, '.ssh', name);
    if (isFile(path)) return load(path);
  }
  throw new ExectlError('key_error', 'no SSH key found', {
    hint: 'create one with `ssh-keygen -t ed25519`, or pass --key PATH',
  });
}
